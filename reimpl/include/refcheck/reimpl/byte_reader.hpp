// Checked little-endian reads over an archive's bytes, confined to a window (the whole archive or
// one record's extent). Every read checks its size; every failure goes through fail(), which adds
// the archive name, the record and the byte offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "refcheck/reimpl/format_error.hpp"

namespace refcheck::reimpl {

class ByteReader {
public:
    // Reads are allowed in [begin, end) of `bytes` (absolute archive offsets).
    ByteReader(std::span<const std::uint8_t> bytes, std::string archive, std::optional<std::uint32_t> record,
               std::uint64_t begin, std::uint64_t end);
    // The whole archive, no record.
    ByteReader(std::span<const std::uint8_t> bytes, std::string archive);

    std::uint64_t begin() const { return begin_; }
    std::uint64_t end() const { return end_; }
    std::span<const std::uint8_t> bytes() const { return bytes_; }
    const std::string& archive() const { return archive_; }
    std::optional<std::uint32_t> record() const { return record_; }

    // True when [at, at + size) lies inside the window (no overflow).
    bool contains(std::uint64_t at, std::uint64_t size) const;
    // Fails with `what` unless [at, at + size) lies inside the window.
    void require(std::uint64_t at, std::uint64_t size, std::string_view what) const;

    std::uint8_t u8(std::uint64_t at) const;
    std::int8_t s8(std::uint64_t at) const;
    std::uint16_t u16(std::uint64_t at) const;
    std::int16_t s16(std::uint64_t at) const;
    std::uint32_t u32(std::uint64_t at) const;
    std::int32_t s32(std::uint64_t at) const;
    std::span<const std::uint8_t> span(std::uint64_t at, std::uint64_t size) const;

    // Reads past the window fail as a table check on the whole archive (the only reads there are
    // the count and the offset table) and as a content check inside a record.
    [[noreturn]] void fail(std::uint64_t at, std::string_view detail, Check check = Check::content) const;

private:
    std::span<const std::uint8_t> bytes_;
    std::string archive_;
    std::optional<std::uint32_t> record_;
    std::uint64_t begin_;
    std::uint64_t end_;
};

// Sequential field-by-field reads through a ByteReader.
class Cursor {
public:
    Cursor(const ByteReader& reader, std::uint64_t at) : reader_(reader), at_(at) {}
    std::uint64_t at() const { return at_; }
    std::uint8_t u8() { return advance(1, reader_.u8(at_)); }
    std::uint16_t u16() { return advance(2, reader_.u16(at_)); }
    std::int16_t s16() { return advance(2, reader_.s16(at_)); }
    std::uint32_t u32() { return advance(4, reader_.u32(at_)); }
    std::int32_t s32() { return advance(4, reader_.s32(at_)); }
    template <std::size_t N>
    void chars(char (&out)[N]) {
        auto s = reader_.span(at_, N);
        for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<char>(s[i]);
        at_ += N;
    }

private:
    template <class T>
    T advance(std::uint64_t n, T value) {
        at_ += n;
        return value;
    }
    const ByteReader& reader_;
    std::uint64_t at_;
};

} // namespace refcheck::reimpl
