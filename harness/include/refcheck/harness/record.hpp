// The event model the harness compares: one closed set of field value kinds, shared by both sides.
// Events of reimpl/ (refcheck/events.hpp) and events recorded from the original's hooked calls are both
// turned into EventRecords, so that comparison, reports and JSON see one shape.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace refcheck::harness {

using Value = std::variant<std::int64_t, bool, std::string, std::vector<std::int64_t>>;

struct Field {
    std::string name;
    Value value;
    friend bool operator==(const Field&, const Field&) = default;
};

struct EventRecord {
    std::string kind;            // "face", "attach", "winding", "archive", "table", "instance", ...
    std::vector<Field> fields;   // in signature order; the first `key_fields` identify the event
    std::size_t key_fields = 0;  // fields that align the two streams (record, path, offset...)
    std::uint32_t flags = 0;     // documented-fault flags (see divergences.hpp)

    const Value* find(std::string_view name) const;
};

std::string to_string(const Value& v);
std::string key_of(const EventRecord& e);  // kind + key fields, for alignment and messages
std::string to_string(const EventRecord& e);

}  // namespace refcheck::harness
