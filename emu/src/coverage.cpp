#include "refcheck/emu/coverage.hpp"

#include <algorithm>
#include <cstdio>

namespace refcheck::emu {

std::vector<Routine> routines_of(const Image& image) {
    std::map<Address, std::string> starts;
    for (auto& [address, name] : address_names(image))
        if (image.is_code(address)) starts.emplace(address, std::move(name));
    std::vector<Routine> out;
    for (auto it = starts.begin(); it != starts.end(); ++it) {
        Address end = image.section_at(it->first)->range.end;
        if (auto next = std::next(it); next != starts.end()) end = std::min(end, next->first);
        out.push_back({it->second, {it->first, end}});
    }
    return out;
}

void Coverage::set_routines(std::vector<Routine> routines, CoverageMode mode) {
    routines_ = std::move(routines);
    mode_ = mode;
    fresh_.clear();
    ++generation_;
    span_ = {};
    for (const Routine& r : routines_) {
        if (r.range.end <= r.range.begin) continue;
        if (span_.end == 0) span_ = r.range;
        span_ = {std::min(span_.begin, r.range.begin), std::max(span_.end, r.range.end)};
    }
    table_.assign(span_.size(), BlockHits{});
}

void Coverage::first_run(Address block) {
    if (mode_ == CoverageMode::blocks) fresh_.push_back(block);
}

void Coverage::clear() {
    std::fill(table_.begin(), table_.end(), BlockHits{});
    fresh_.clear();
    ++generation_;
}

std::map<Address, BlockHits> Coverage::blocks() const {
    std::map<Address, BlockHits> out;
    for (size_t i = 0; i < table_.size(); ++i)
        if (table_[i].hits != 0) {
            BlockHits b = table_[i];
            if (mode_ == CoverageMode::blocks) b.hits = 1; // the count depends on when hooks were rebuilt
            out.emplace_hint(out.end(), span_.begin + static_cast<Address>(i), b);
        }
    return out;
}

size_t Coverage::executed_blocks() const {
    return static_cast<size_t>(
        std::count_if(table_.begin(), table_.end(), [](const BlockHits& b) { return b.hits != 0; }));
}

std::vector<std::pair<std::string, size_t>> Coverage::blocks_per_routine() const {
    std::vector<std::pair<std::string, size_t>> out;
    for (const Routine& r : routines_) {
        size_t n = 0;
        for (Address a = r.range.begin; a < r.range.end; ++a)
            n += span_.contains(a) && table_[a - span_.begin].hits != 0;
        out.emplace_back(r.name, n);
    }
    return out;
}

namespace {
void put_u32(std::ostream& out, uint32_t v) {
    char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
    out.write(b, 4);
}
void put_u16(std::ostream& out, uint16_t v) {
    char b[2] = {char(v), char(v >> 8)};
    out.write(b, 2);
}
} // namespace

void Coverage::write_drcov(std::ostream& out, const Image& image) const {
    std::vector<std::pair<Address, uint32_t>> inside;
    for (const auto& [address, hits] : blocks())
        if (image.range().contains(address)) inside.emplace_back(address, hits.size);
    char line[512];
    out << "DRCOV VERSION: 2\n";
    out << "DRCOV FLAVOR: refcheck\n";
    out << "Module Table: version 2, count 1\n";
    out << "Columns: id, base, end, entry, checksum, timestamp, path\n";
    std::snprintf(line, sizeof line, " 0, 0x%08x, 0x%08x, 0x%08x, 0x00000000, 0x00000000, %s\n", image.base,
                  image.base + image.size, image.entry, image.path.filename().string().c_str());
    out << line;
    out << "BB Table: " << inside.size() << " bbs\n";
    for (const auto& [address, size] : inside) {
        put_u32(out, address - image.base); // start, relative to the module base
        put_u16(out, static_cast<uint16_t>(size));
        put_u16(out, 0); // module id
    }
}

} // namespace refcheck::emu
