#include "refcheck/reimpl/byte_reader.hpp"

#include <fmt/format.h>

namespace refcheck::reimpl {

ByteReader::ByteReader(std::span<const std::uint8_t> bytes, std::string archive,
                       std::optional<std::uint32_t> record, std::uint64_t begin, std::uint64_t end)
    : bytes_(bytes), archive_(std::move(archive)), record_(record), begin_(begin), end_(end) {
    if (end_ > bytes_.size()) end_ = bytes_.size();
    if (begin_ > end_) begin_ = end_;
}

ByteReader::ByteReader(std::span<const std::uint8_t> bytes, std::string archive)
    : ByteReader(bytes, std::move(archive), std::nullopt, 0, bytes.size()) {}

bool ByteReader::contains(std::uint64_t at, std::uint64_t size) const {
    return at >= begin_ && at <= end_ && size <= end_ - at;
}

void ByteReader::require(std::uint64_t at, std::uint64_t size, std::string_view what) const {
    if (!contains(at, size)) {
        fail(at,
             fmt::format("{} ({} bytes) runs past the end of the {} (0x{:x})", what, size,
                         record_ ? "record" : "archive", end_),
             record_ ? Check::content : Check::table);
    }
}

std::uint8_t ByteReader::u8(std::uint64_t at) const {
    require(at, 1, "byte");
    return bytes_[at];
}

std::int8_t ByteReader::s8(std::uint64_t at) const { return static_cast<std::int8_t>(u8(at)); }

std::uint16_t ByteReader::u16(std::uint64_t at) const {
    require(at, 2, "16-bit value");
    return static_cast<std::uint16_t>(bytes_[at] | (bytes_[at + 1] << 8));
}

std::int16_t ByteReader::s16(std::uint64_t at) const { return static_cast<std::int16_t>(u16(at)); }

std::uint32_t ByteReader::u32(std::uint64_t at) const {
    require(at, 4, "32-bit value");
    return static_cast<std::uint32_t>(bytes_[at]) | (static_cast<std::uint32_t>(bytes_[at + 1]) << 8) |
           (static_cast<std::uint32_t>(bytes_[at + 2]) << 16) |
           (static_cast<std::uint32_t>(bytes_[at + 3]) << 24);
}

std::int32_t ByteReader::s32(std::uint64_t at) const { return static_cast<std::int32_t>(u32(at)); }

std::span<const std::uint8_t> ByteReader::span(std::uint64_t at, std::uint64_t size) const {
    require(at, size, "block");
    return bytes_.subspan(at, size);
}

void ByteReader::fail(std::uint64_t at, std::string_view detail, Check check) const {
    reimpl::fail(Location{archive_, record_, at, check}, detail);
}

} // namespace refcheck::reimpl
