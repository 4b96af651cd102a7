#include "refcheck/reimpl/format_error.hpp"

#include <fmt/format.h>

namespace refcheck::reimpl {

std::string_view check_name(Check check) {
    switch (check) {
        case Check::open: return "open";
        case Check::table: return "table";
        case Check::record: return "record";
        case Check::internal: return "internal";
        case Check::content: return "content";
    }
    return "content";
}

std::string describe(const Location& where, std::string_view detail) {
    if (where.record) {
        return fmt::format("{}: record {}: offset 0x{:x}: {}", where.archive, *where.record, where.offset,
                           detail);
    }
    return fmt::format("{}: offset 0x{:x}: {}", where.archive, where.offset, detail);
}

FormatError::FormatError(Location where, std::string detail)
    : std::runtime_error(describe(where, detail)), where_(std::move(where)), detail_(std::move(detail)) {}

void fail(const Location& where, std::string_view detail) { throw FormatError(where, std::string(detail)); }

} // namespace refcheck::reimpl
