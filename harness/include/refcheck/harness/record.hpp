// The event model the harness compares: one closed set of field value kinds, shared by both sides.
// Events of reimpl/ (refcheck/events.hpp) and events recorded from the original's hooked calls are both
// turned into EventRecords, so that comparison, reports and JSON see one shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace refcheck::harness {

using Value = std::variant<std::int64_t, bool, std::string, std::vector<std::int64_t>>;

struct Field {
    std::string name;
    Value value;
    friend bool operator==(const Field&, const Field&) = default;
};

// One side's own evidence that a documented cause concerns part of an event: the registry flag of
// the cause (divergences.hpp), the field, and the element of a list field (-1: the scalar field, or
// every element). The original's excuses come from its own execution and memory (the recorder's
// witnesses), the reimplementation's from its own fault detection; a difference is excused only
// where both sides carry the same excuse.
struct Excuse {
    std::uint32_t flag = 0;
    std::string_view field; // a static string: "face_level", "vertex_levels", "screen_x", ...
    std::int32_t element = -1;
    friend bool operator==(const Excuse&, const Excuse&) = default;
};

struct EventRecord {
    std::string kind;            // "face", "attach", "winding", "archive", "table", "instance", ...
    std::vector<Field> fields;   // in signature order; the first `key_fields` identify the event
    std::size_t key_fields = 0;  // fields that align the two streams (record, path, offset...)
    std::uint32_t flags = 0;     // documented-fault flags (see divergences.hpp)
    std::vector<Excuse> excuses; // this side's evidence of documented causes (see Excuse)

    const Value* find(std::string_view name) const;
    // Whether this side carries the cause `flag` for element `element` of `field` (an excuse for
    // the whole field covers every element).
    bool excuses_element(std::uint32_t flag, std::string_view field, std::int32_t element) const;
};

std::string to_string(const Value& v);
std::string key_of(const EventRecord& e); // kind + key fields, for alignment and messages
std::string to_string(const EventRecord& e);

} // namespace refcheck::harness
