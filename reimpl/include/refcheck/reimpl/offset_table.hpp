// The counted offset table shared by 3DOBJS.BIN and OBJTEXT.BIN (arc.table) and the record
// extents it implies (arc.extent).
#pragma once

#include <cstdint>
#include <vector>

#include "refcheck/reimpl/byte_reader.hpp"

namespace refcheck::reimpl {

// arc.capacity: the engine's tables hold at most this many slots.
inline constexpr std::uint32_t kModelTableCapacity = 2048;
inline constexpr std::uint32_t kTextureTableCapacity = 1024;

struct Extent {
    std::uint64_t begin = 0; // absolute archive offsets
    std::uint64_t end = 0;
    std::uint64_t size() const { return end - begin; }
};

class OffsetTable {
public:
    // u32 count, then count u32 offsets from the start of the file; 0 is an empty slot (valid.table):
    // the count is at most `capacity` (arc.capacity), every nonzero offset lies after the table with
    // at least `min_record` bytes before the end of the archive, and no two slots share a nonzero
    // offset.
    static OffsetTable read(const ByteReader& archive, std::uint32_t min_record, std::uint32_t capacity);

    std::uint32_t count() const { return static_cast<std::uint32_t>(offsets_.size()); }
    std::uint32_t offset(std::uint32_t slot) const { return offsets_.at(slot); }
    bool populated(std::uint32_t slot) const { return slot < count() && offsets_[slot] != 0; }
    const std::vector<std::uint32_t>& offsets() const { return offsets_; }
    // A populated slot's bytes: from its offset to the next greater nonzero offset, or the end of the file.
    Extent extent(std::uint32_t slot) const;

private:
    std::vector<std::uint32_t> offsets_;
    std::vector<std::uint32_t> sorted_; // distinct nonzero offsets, ascending
    std::uint64_t file_size_ = 0;
};

} // namespace refcheck::reimpl
