// The reimplementation's one failure path for bad input: a FormatError that names the archive,
// the record (when there is one) and the byte offset in the archive file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace refcheck::reimpl {

struct Location {
    std::string archive;                 // "3DOBJS.BIN", "OBJTEXT.BIN", "3DPAL.RGB"
    std::optional<std::uint32_t> record; // record (slot) index, when the error is inside one
    std::uint64_t offset = 0;            // byte offset from the start of the archive file
};

class FormatError : public std::runtime_error {
public:
    FormatError(Location where, std::string detail);
    const Location& where() const { return where_; }
    const std::string& detail() const { return detail_; }

private:
    Location where_;
    std::string detail_;
};

// "3DOBJS.BIN: record 12: offset 0x1a4: <detail>" (the record part only when there is one).
std::string describe(const Location& where, std::string_view detail);

[[noreturn]] void fail(const Location& where, std::string_view detail);

} // namespace refcheck::reimpl
