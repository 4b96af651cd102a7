#include "refcheck/harness/coverage.hpp"

#include "refcheck/harness/coverage_reasons.hpp"

#include <capstone/capstone.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace refcheck::harness {

namespace {

struct Decoded {
    std::uint32_t address = 0;
    std::uint32_t size = 0;
    bool ends_block = false;   // a branch, call, return or other transfer: the next instruction leads
    bool falls_through = true; // false after jmp, ret, hlt, ud2, int3
    bool padding = false;      // nop-like filler
};

class Capstone {
public:
    Capstone() {
        if (cs_open(CS_ARCH_X86, CS_MODE_32, &handle_) != CS_ERR_OK)
            throw std::runtime_error("Capstone: cannot open x86-32");
        cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
        insn_ = cs_malloc(handle_);
    }
    ~Capstone() {
        cs_free(insn_, 1);
        cs_close(&handle_);
    }
    Capstone(const Capstone&) = delete;
    Capstone& operator=(const Capstone&) = delete;
    csh handle() const { return handle_; }
    cs_insn* insn() const { return insn_; }

private:
    csh handle_ = 0;
    cs_insn* insn_ = nullptr;
};

bool is_padding(const cs_insn& i) {
    const cs_x86& x = i.detail->x86;
    switch (i.id) {
        case X86_INS_NOP:
        case X86_INS_INT3:
        case X86_INS_UD2: return true; // ud2: the trap compilers put after code that cannot return
        case X86_INS_LEA:              // lea esi, [esi + 0] / [esi + eiz*1 + 0]
            return x.op_count == 2 && x.operands[1].type == X86_OP_MEM &&
                   x.operands[0].reg == x.operands[1].mem.base &&
                   (x.operands[1].mem.index == X86_REG_INVALID || x.operands[1].mem.index == X86_REG_EIZ) &&
                   x.operands[1].mem.disp == 0;
        case X86_INS_MOV:
        case X86_INS_XCHG: // mov edi, edi / xchg ax, ax
            return x.op_count == 2 && x.operands[0].type == X86_OP_REG && x.operands[1].type == X86_OP_REG &&
                   x.operands[0].reg == x.operands[1].reg;
        default: return false;
    }
}

// jmp [table + reg*4]: the table's entries that point into [begin, end), in order, until one does not.
void jump_table(const cs_x86& x, std::uint32_t begin, std::uint32_t end, const ReadU32& read,
                std::set<std::uint32_t>& targets) {
    if (!read || x.op_count != 1 || x.operands[0].type != X86_OP_MEM) return;
    const x86_op_mem& m = x.operands[0].mem;
    if (m.base != X86_REG_INVALID || m.index == X86_REG_INVALID || m.scale != 4) return;
    for (std::uint32_t k = 0; k < 1024; ++k) {
        const auto entry = read(static_cast<std::uint32_t>(m.disp) + 4 * k);
        if (!entry || *entry < begin || *entry >= end) return;
        targets.insert(*entry);
    }
}

struct Found {
    std::set<std::uint32_t> targets, outgoing, pointer_tables, immediates;
};

// [T + reg*4] outside a jmp (call [T + reg*4], mov reg, [T + reg*4]) records T as a possible table of
// routine pointers; immediates of instructions that are not branches are kept as possible addresses
// taken.
void note_references(const cs_insn& i, bool branch, Found& found) {
    const cs_x86& x = i.detail->x86;
    for (std::uint8_t k = 0; k < x.op_count; ++k) {
        const cs_x86_op& op = x.operands[k];
        if (op.type == X86_OP_MEM && i.id != X86_INS_JMP && op.mem.base == X86_REG_INVALID &&
            op.mem.index != X86_REG_INVALID && op.mem.scale == 4)
            found.pointer_tables.insert(static_cast<std::uint32_t>(op.mem.disp));
        if (op.type == X86_OP_IMM && !branch) found.immediates.insert(static_cast<std::uint32_t>(op.imm));
    }
}

std::vector<Decoded> decode_all(std::span<const std::uint8_t> code, std::uint32_t address,
                                const ReadU32& read, Found& found) {
    std::set<std::uint32_t>& targets = found.targets;
    std::set<std::uint32_t>& outgoing = found.outgoing;
    static thread_local Capstone cs;
    const std::uint32_t end = address + static_cast<std::uint32_t>(code.size());
    std::vector<Decoded> out;
    const std::uint8_t* p = code.data();
    std::size_t left = code.size();
    std::uint64_t at = address;
    while (left) {
        if (!cs_disasm_iter(cs.handle(), &p, &left, &at, cs.insn())) { // not code: skip a byte
            ++p, --left, ++at;
            continue;
        }
        const cs_insn& i = *cs.insn();
        Decoded d{static_cast<std::uint32_t>(i.address), i.size};
        const bool jump = cs_insn_group(cs.handle(), &i, CS_GRP_JUMP),
                   call = cs_insn_group(cs.handle(), &i, CS_GRP_CALL);
        const bool ret =
            cs_insn_group(cs.handle(), &i, CS_GRP_RET) || cs_insn_group(cs.handle(), &i, CS_GRP_IRET);
        const bool stop = i.id == X86_INS_HLT || i.id == X86_INS_UD2 || i.id == X86_INS_INT3;
        d.ends_block = jump || call || ret || stop || cs_insn_group(cs.handle(), &i, CS_GRP_INT);
        d.falls_through = !(ret || stop || i.id == X86_INS_JMP || i.id == X86_INS_LJMP);
        d.padding = is_padding(i);
        const cs_x86& x = i.detail->x86;
        if ((jump || call) && x.op_count == 1 && x.operands[0].type == X86_OP_IMM) {
            const auto target = static_cast<std::uint32_t>(x.operands[0].imm);
            if (target >= address && target < end && !call)
                targets.insert(target);
            else if (target < address || target >= end)
                outgoing.insert(target);
        } else if (i.id == X86_INS_JMP) {
            jump_table(x, address, end, read, targets);
        }
        note_references(i, jump || call, found);
        out.push_back(d);
    }
    return out;
}

} // namespace

SweptCode sweep(std::span<const std::uint8_t> code, std::uint32_t address, const ReadU32& read) {
    Found found;
    const std::vector<Decoded> insns = decode_all(code, address, read, found);
    const std::set<std::uint32_t>& targets = found.targets;
    SweptCode out;
    out.outgoing.assign(found.outgoing.begin(), found.outgoing.end());
    out.pointer_tables.assign(found.pointer_tables.begin(), found.pointer_tables.end());
    out.immediates.assign(found.immediates.begin(), found.immediates.end());
    struct Open {
        StaticBlock block;
        bool all_padding = true, after_transfer = false, target = false;
    };
    std::optional<Open> open;
    bool previous_falls_through = true;
    auto close = [&] {
        if (!open) return;
        const bool filler =
            open->all_padding && open->after_transfer && !open->target && open->block.address != address;
        if (!filler) out.blocks.push_back(open->block);
        open.reset();
    };
    for (std::size_t k = 0; k < insns.size(); ++k) {
        const Decoded& d = insns[k];
        const bool gap = k > 0 && insns[k - 1].address + insns[k - 1].size != d.address;
        if (open && (gap || targets.count(d.address))) close();
        if (!open) {
            open = Open{{d.address, 0},
                        true,
                        k > 0 && (gap || !previous_falls_through),
                        targets.count(d.address) > 0};
        }
        open->block.size += d.size;
        open->all_padding = open->all_padding && d.padding;
        previous_falls_through = d.falls_through;
        if (d.ends_block) close();
    }
    close();
    return out;
}

namespace {

std::string sub_name(std::uint32_t a) {
    char b[16];
    std::snprintf(b, sizeof b, "sub_%08x", a);
    return b;
}

// The end of `a`'s extent: the next known start or the end of the section's initialised bytes.
std::uint32_t extent_end(const emu::Image& image, const std::set<std::uint32_t>& starts, std::uint32_t a) {
    const emu::ImageSection* s = image.section_at(a);
    std::uint32_t end = s->range.end;
    if (s->data_size) end = std::min(end, s->range.begin + s->data_size);
    if (auto next = starts.upper_bound(a); next != starts.end()) end = std::min(end, *next);
    return std::max(end, a);
}

// The guest memory discover_routines reads, each read kept in a log (when given): the result is a
// function of these reads, the image's sections and names, and the entries, so a later call whose
// reads all give the same answers has the same result (DiscoveryMemo).
class LoggedMemory {
public:
    LoggedMemory(const emu::Machine& m, DiscoveryMemo::Log* log) : m_(m), log_(log) {}
    const emu::Image& image() const { return m_.image(); }
    std::vector<std::uint8_t> read_bytes(std::uint32_t a, std::uint32_t n) const {
        std::vector<std::uint8_t> b = m_.read_bytes(a, n);
        if (log_) log_->bytes.emplace_back(a, b);
        return b;
    }
    bool is_mapped(std::uint32_t a) const {
        const bool mapped = m_.is_mapped(a);
        if (log_) log_->mapped.emplace_back(a, mapped);
        return mapped;
    }
    std::uint32_t read_u32(std::uint32_t a) const {
        const std::uint32_t v = m_.read_u32(a);
        if (log_) log_->words.emplace_back(a, v);
        return v;
    }

private:
    const emu::Machine& m_;
    DiscoveryMemo::Log* log_;
};

SweptCode sweep_at(const LoggedMemory& m, const std::set<std::uint32_t>& starts, std::uint32_t a) {
    const emu::Image& image = m.image();
    const std::uint32_t end = extent_end(image, starts, a);
    const std::vector<std::uint8_t> bytes = m.read_bytes(a, end - a);
    return sweep(bytes, a, [&m](std::uint32_t at) -> std::optional<std::uint32_t> {
        if (!m.is_mapped(at) || !m.is_mapped(at + 3)) return std::nullopt;
        return m.read_u32(at);
    });
}

// The routines a swept extent reaches: direct targets in code, the entries of its routine-pointer
// tables, and the named routines whose address it takes. `named` holds every export and symbol.
std::vector<std::uint32_t> reached_from(const LoggedMemory& m, const SweptCode& swept,
                                        const std::map<emu::Address, std::string>& named) {
    const emu::Image& image = m.image();
    std::set<std::uint32_t> out;
    for (std::uint32_t t : swept.outgoing)
        if (image.is_code(t)) out.insert(t);
    for (std::uint32_t v : swept.immediates)
        if (named.count(v) && image.is_code(v)) out.insert(v);
    for (std::uint32_t table : swept.pointer_tables) {
        for (std::uint32_t at = table; at - table < 4096; at += 4) {
            if ((at != table && named.count(at)) || !m.is_mapped(at) || !m.is_mapped(at + 3)) break;
            const std::uint32_t entry = m.read_u32(at);
            if (!image.is_code(entry)) break;
            out.insert(entry);
        }
    }
    return {out.begin(), out.end()};
}

} // namespace

namespace {

std::vector<RoutineBlocks> discover(const LoggedMemory& m,
                                    const std::vector<std::pair<std::string, std::uint32_t>>& entries) {
    const emu::Image& image = m.image();
    std::set<std::uint32_t> starts;
    std::map<std::uint32_t, std::string> symbol_names, entry_names;
    const std::map<emu::Address, std::string> named = emu::address_names(image);
    for (const auto& r : emu::routines_of(image)) {
        starts.insert(r.range.begin);
        symbol_names.emplace(r.range.begin, r.name);
    }
    std::deque<std::uint32_t> work;
    for (const auto& [name, a] : entries) {
        if (!image.is_code(a)) continue;
        entry_names.emplace(a, name);
        starts.insert(a);
        work.push_back(a);
    }
    std::set<std::uint32_t> visited;
    while (!work.empty()) {
        const std::uint32_t a = work.front();
        work.pop_front();
        if (!visited.insert(a).second) continue;
        for (std::uint32_t t : reached_from(m, sweep_at(m, starts, a), named))
            if (!visited.count(t)) {
                starts.insert(t);
                work.push_back(t);
            }
    }
    std::vector<RoutineBlocks> out;
    std::set<std::string> used;
    for (std::uint32_t a : visited) {
        RoutineBlocks r;
        const auto e = entry_names.find(a);
        const auto s = symbol_names.find(a);
        r.in_profile = e != entry_names.end();
        r.name = r.in_profile ? e->second : s != symbol_names.end() ? s->second : sub_name(a);
        if (!used.insert(r.name).second) r.name += "@" + emu::hex(a);
        r.range = {a, extent_end(image, starts, a)};
        SweptCode swept = sweep_at(m, starts, a);
        r.calls = reached_from(m, swept, named);
        r.blocks = std::move(swept.blocks);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace

std::vector<RoutineBlocks>
discover_routines(const emu::Machine& m, const std::vector<std::pair<std::string, std::uint32_t>>& entries) {
    return discover(LoggedMemory(m, nullptr), entries);
}

bool DiscoveryMemo::Entry::holds_on(const emu::Machine& m) const {
    for (const auto& [a, bytes] : log.bytes)
        if (m.read_bytes(a, bytes.size()) != bytes) return false;
    for (const auto& [a, mapped] : log.mapped)
        if (m.is_mapped(a) != mapped) return false;
    for (const auto& [a, v] : log.words)
        if (m.read_u32(a) != v) return false;
    return true;
}

const std::vector<RoutineBlocks>&
DiscoveryMemo::routines(const emu::Machine& m, const std::string& image_sha256,
                        const std::vector<std::pair<std::string, std::uint32_t>>& entries, bool* reused) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        Entry& e = entries_[i];
        if (e.image_sha256 != image_sha256 || e.entries != entries || !e.holds_on(m)) continue;
        if (reused) *reused = true;
        std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                    entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1); // most recent first
        return entries_.front().routines;
    }
    if (reused) *reused = false;
    Entry e;
    e.image_sha256 = image_sha256;
    e.entries = entries;
    e.routines = discover(LoggedMemory(m, &e.log), entries);
    if (entries_.size() >= kEntries) entries_.pop_back();
    entries_.insert(entries_.begin(), std::move(e));
    return entries_.front().routines;
}

const std::vector<KeyedBlock>& DiscoveryMemo::keyed(const emu::Machine& m,
                                                    const std::vector<RoutineBlocks>& routines,
                                                    const CoverageReasons& reasons) {
    // `routines` is the front entry's (routines() just returned it): its blocks lie in the code it
    // read and checked, so the keys depend on nothing else but the reasons (by SHA-256) and the image.
    Entry& e = entries_.front();
    if (&routines != &e.routines)
        throw std::logic_error("DiscoveryMemo::keyed: routines not from routines()");
    const auto it = e.keyed.find(reasons.sha256);
    if (it != e.keyed.end()) return it->second;
    return e.keyed.emplace(reasons.sha256, keyed_blocks(m, routines, reasons)).first->second;
}

std::vector<std::pair<std::string, std::uint32_t>> profile_entries(const Profile& profile) {
    std::vector<std::pair<std::string, std::uint32_t>> out;
    // The boot routine (role "boot": where the C runtime hands over, e.g. main) is the runtime's,
    // not the engine's: neither coverage nor mutants start from it.
    for (const auto& [name, r] : profile.routines)
        if (r.address && r.role != "boot") out.emplace_back(name, *r.address);
    return out;
}

void enable_coverage(emu::Machine& m, const std::vector<RoutineBlocks>& routines) {
    if (routines.empty()) return;
    // ONE hook from the first routine's start to the last one's end: Unicorn walks every block hook
    // for each block it runs, so one range costs far less than one per island of routines. Blocks
    // executed in the gaps are recorded too (they are the image's own code: the drcov file keeps
    // them); coverage_json counts only the routines' blocks.
    emu::Range span = routines.front().range;
    for (const auto& r : routines)
        span = {std::min(span.begin, r.range.begin), std::max(span.end, r.range.end)};
    m.enable_coverage({{"covered routines", span}});
}

ojson coverage_json(const std::vector<RoutineBlocks>& routines, const emu::Coverage& executed,
                    const std::string& image) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ran; // merged [begin, end) of executed blocks
    for (const auto& [a, hits] : executed.blocks()) {
        if (!ran.empty() && a <= ran.back().second)
            ran.back().second = std::max(ran.back().second, a + hits.size);
        else
            ran.emplace_back(a, a + hits.size);
    }
    auto was_executed = [&](std::uint32_t a) {
        auto it = std::upper_bound(ran.begin(), ran.end(), std::make_pair(a, UINT32_MAX));
        return it != ran.begin() && a < std::prev(it)->second;
    };
    ojson rs = ojson::object();
    std::uint64_t blocks = 0, hit = 0;
    for (const auto& r : routines) {
        ojson missed = ojson::array();
        for (const auto& b : r.blocks)
            if (!was_executed(b.address)) missed.push_back(emu::hex(b.address));
        const std::uint64_t e = r.blocks.size() - missed.size();
        rs[r.name] = {{"address", emu::hex(r.range.begin)},
                      {"profile", r.in_profile},
                      {"blocks", r.blocks.size()},
                      {"executed", e},
                      {"missed", missed}};
        blocks += r.blocks.size();
        hit += e;
    }
    return {{"image", image}, {"blocks", blocks}, {"executed", hit}, {"routines", rs}};
}

std::vector<std::uint8_t> drcov_bytes(emu::Machine& m) {
    std::ostringstream out;
    m.coverage().write_drcov(out, m.image());
    const std::string s = out.str();
    return {s.begin(), s.end()};
}

namespace {

struct Merged {
    std::string address;
    bool profile = false;
    std::uint64_t blocks = 0;
    std::set<std::string> missed; // blocks no case executed
};

ojson merged_json(const std::string& image, const std::string& sha,
                  const std::map<std::string, Merged>& routines) {
    std::vector<std::pair<std::string, const std::pair<const std::string, Merged>*>> order;
    for (const auto& kv : routines) order.emplace_back(kv.second.address, &kv);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second->first < b.second->first;
    });
    ojson rs = ojson::object();
    std::uint64_t blocks = 0, executed = 0;
    for (const auto& [address, kv] : order) {
        const Merged& m = kv->second;
        const std::uint64_t e = m.blocks - m.missed.size();
        rs[kv->first] = {{"address", m.address},
                         {"profile", m.profile},
                         {"blocks", m.blocks},
                         {"executed", e},
                         {"missed", m.missed}};
        blocks += m.blocks;
        executed += e;
    }
    return {{"image", image}, {"sha256", sha}, {"blocks", blocks}, {"executed", executed}, {"routines", rs}};
}

} // namespace

ojson merge_coverage(const std::vector<ojson>& reports) {
    std::map<std::pair<std::string, std::string>, std::map<std::string, Merged>> images;
    std::map<std::pair<std::string, std::string>, std::vector<const ojson*>> coverages;
    for (const auto& r : reports) {
        const ojson& c = member(r, "coverage");
        if (!c.is_object()) continue;
        const ojson& sha = member(member(member(r, "inputs"), "image"), "sha256");
        const std::pair<std::string, std::string> key{c.at("image").get<std::string>(),
                                                      sha.is_string() ? sha.get<std::string>() : ""};
        coverages[key].push_back(&c);
        auto& routines = images[key];
        for (const auto& [name, rc] : member(c, "routines").items()) {
            const std::set<std::string> missed(rc.at("missed").begin(), rc.at("missed").end());
            auto [it, fresh] = routines.try_emplace(name);
            Merged& m = it->second;
            if (fresh) {
                m = {rc.at("address").get<std::string>(), rc.at("profile").get<bool>(),
                     rc.at("blocks").get<std::uint64_t>(), missed};
                continue;
            }
            m.profile = m.profile || rc.at("profile").get<bool>();
            std::set<std::string> both;
            std::set_intersection(m.missed.begin(), m.missed.end(), missed.begin(), missed.end(),
                                  std::inserter(both, both.end()));
            m.missed = std::move(both);
        }
    }
    ojson out = ojson::array();
    for (const auto& [key, routines] : images) {
        out.push_back(merged_json(key.first, key.second, routines));
        merge_reasons(out.back(), coverages[key]);
    }
    return out;
}

namespace {
std::string percent(std::uint64_t part, std::uint64_t whole) {
    if (!whole) return "-";
    const std::uint64_t tenths = (part * 1000 + whole / 2) / whole;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}
} // namespace

std::string coverage_html(const ojson& run_coverage) {
    std::ostringstream h;
    h << "<p>Basic blocks executed by the cases, per routine of "
         "the "
         "profile (marked) and the routines they call; a drcov file per case lies beside its report.</p>";
    for (const auto& image : run_coverage) {
        const auto blocks = image.at("blocks").get<std::uint64_t>(),
                   executed = image.at("executed").get<std::uint64_t>();
        h << "<h3>" << escape_markup(image.at("image").get<std::string>()) << "</h3><p>" << executed << " of "
          << blocks << " blocks executed (" << percent(executed, blocks) << "); image SHA-256 "
          << escape_markup(image.at("sha256").get<std::string>()) << "</p>";
        h << "<table><tr><th>routine</th><th>address</th><th>profile</th><th>executed</th><th>blocks</"
             "th><th></th>"
             "<th>blocks never executed</th></tr>";
        for (const auto& [name, r] : member(image, "routines").items()) {
            const auto b = r.at("blocks").get<std::uint64_t>(), e = r.at("executed").get<std::uint64_t>();
            std::string missed;
            for (const auto& a : r.at("missed")) missed += (missed.empty() ? "" : " ") + a.get<std::string>();
            h << "<tr"
              << (b && e == b ? " class=equivalent"
                  : e == 0    ? " class=divergent"
                              : "")
              << "><td>" << escape_markup(name) << "</td><td>" << r.at("address").get<std::string>()
              << "</td><td>" << (r.at("profile").get<bool>() ? "yes" : "") << "</td><td>" << e << "</td><td>"
              << b << "</td><td>" << percent(e, b) << "</td><td><code>" << missed << "</code></td></tr>";
        }
        h << "</table>" << reasons_html(image);
    }
    return h.str();
}

} // namespace refcheck::harness
