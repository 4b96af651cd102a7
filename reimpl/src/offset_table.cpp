#include "refcheck/reimpl/offset_table.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace refcheck::reimpl {
namespace {

void check_distinct(const ByteReader& archive, const std::vector<std::uint32_t>& offsets) {
    std::map<std::uint32_t, std::uint32_t> first_slot;
    for (std::uint32_t slot = 0; slot < offsets.size(); ++slot) {
        if (offsets[slot] == 0) continue;
        const auto [it, inserted] = first_slot.emplace(offsets[slot], slot);
        if (!inserted) {
            archive.fail(
                4 + 4ull * slot,
                fmt::format("slot {} shares offset 0x{:x} with slot {}", slot, offsets[slot], it->second),
                Check::table);
        }
    }
}

} // namespace

OffsetTable OffsetTable::read(const ByteReader& archive, std::uint32_t min_record, std::uint32_t capacity) {
    OffsetTable table;
    table.file_size_ = archive.end();
    const std::uint64_t count = archive.u32(0);
    if (count > capacity)
        archive.fail(0,
                     fmt::format("the table counts {} slots, more than the engine's {} (arc.capacity)", count,
                                 capacity),
                     Check::table);
    const std::uint64_t table_end = 4 + 4 * count;
    if (table_end > archive.end()) {
        archive.fail(0,
                     fmt::format("offset table of {} entries needs {} bytes, the archive has {}", count,
                                 table_end, archive.end()),
                     Check::table);
    }
    table.offsets_.reserve(count);
    for (std::uint64_t slot = 0; slot < count; ++slot) {
        const std::uint32_t offset = archive.u32(4 + 4 * slot);
        if (offset != 0 && (offset < table_end || std::uint64_t{offset} + min_record > archive.end())) {
            archive.fail(4 + 4 * slot,
                         fmt::format("slot {} offset 0x{:x} leaves no {}-byte record between the table end "
                                     "0x{:x} and the archive end 0x{:x}",
                                     slot, offset, min_record, table_end, archive.end()),
                         Check::record);
        }
        table.offsets_.push_back(offset);
    }
    check_distinct(archive, table.offsets_);
    for (std::uint32_t offset : table.offsets_) {
        if (offset != 0) table.sorted_.push_back(offset);
    }
    std::sort(table.sorted_.begin(), table.sorted_.end());
    return table;
}

Extent OffsetTable::extent(std::uint32_t slot) const {
    const std::uint32_t begin = offsets_.at(slot);
    const auto next = std::upper_bound(sorted_.begin(), sorted_.end(), begin);
    return Extent{begin, next == sorted_.end() ? file_size_ : *next};
}

} // namespace refcheck::reimpl
