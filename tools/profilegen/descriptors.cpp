#include "refcheck/profilegen/descriptors.hpp"

#include <algorithm>
#include <cstring>

namespace refcheck::profilegen {
namespace {

// Record layout (fixture/descriptor.h): magic[4] kind[12] name[48] text[184] value u32 size u32.
constexpr std::size_t kMagicAt = 0, kKindAt = 4, kNameAt = 16, kTextAt = 64, kValueAt = 248, kSizeAt = 252;

std::string fixed_string(std::span<const std::uint8_t> record, std::size_t at, std::size_t length) {
    auto first = record.begin() + static_cast<std::ptrdiff_t>(at);
    auto last = std::find(first, first + static_cast<std::ptrdiff_t>(length), std::uint8_t{0});
    return std::string(first, last);
}

std::uint32_t le32(std::span<const std::uint8_t> record, std::size_t at) {
    return std::uint32_t{record[at]} | std::uint32_t{record[at + 1]} << 8 |
           std::uint32_t{record[at + 2]} << 16 | std::uint32_t{record[at + 3]} << 24;
}

bool all_zero(std::span<const std::uint8_t> bytes) {
    return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

} // namespace

std::vector<Descriptor> parse_descriptors(std::span<const std::uint8_t> section) {
    std::vector<Descriptor> out;
    for (std::size_t at = 0; at < section.size(); at += kDescriptorSize) {
        auto record = section.subspan(at, std::min(kDescriptorSize, section.size() - at));
        if (all_zero(record)) continue;
        if (record.size() < kDescriptorSize)
            throw ProfileError("descriptor section: partial record at byte " + std::to_string(at));
        if (std::memcmp(record.data() + kMagicAt, "RCD1", 4) != 0)
            throw ProfileError("descriptor section: no RCD1 magic at byte " + std::to_string(at));
        out.push_back({fixed_string(record, kKindAt, 12), fixed_string(record, kNameAt, 48),
                       fixed_string(record, kTextAt, 184), le32(record, kValueAt), le32(record, kSizeAt)});
    }
    return out;
}

} // namespace refcheck::profilegen
