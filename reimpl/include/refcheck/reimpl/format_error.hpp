// The reimplementation's one failure path for bad input: a FormatError that names the archive,
// the record (when there is one) and the byte offset in the archive file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace refcheck::reimpl {

// Which kind of check refused, in the loader's terms (the reimplementation's own account of why,
// compared with the reason the original records where its profile says how):
// - open: the file is missing, unreadable or too short to be one (the palette's 672 bytes);
// - table: the slot count or the offset table does not fit the archive or the engine's capacity;
// - record: a slot's record does not fit between the table and the archive's end, or a texture's
//   header (type, height, pixels) does not fit its slot;
// - internal: a model record's internal offset points outside the record or into its header;
// - content: anything else (what a record holds, read when it is used: programs, lists, ids).
enum class Check { open, table, record, internal, content };
std::string_view check_name(Check check);

struct Location {
    std::string archive;                 // "3DOBJS.BIN", "OBJTEXT.BIN", "3DPAL.RGB"
    std::optional<std::uint32_t> record; // record (slot) index, when the error is inside one
    std::uint64_t offset = 0;            // byte offset from the start of the archive file
    Check check = Check::content;        // which kind of check refused
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
