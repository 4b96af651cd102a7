// Parsing the JSON refcheck reads (cases, profiles, reports, coverage reasons, templates) with a
// bound on nesting. nlohmann's copies recurse once per level: a case file nested 100,000 deep (a
// 200 KB file) overflowed the stack where the case's "selection" was copied, and killed refcheck
// itself (found by the hostile-input audit). No document refcheck reads nests anywhere near the
// bound, so a deeper one is refused while it is parsed, before anything copies it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace refcheck::harness {

inline constexpr int kMaxJsonDepth = 256;

// Json::parse of `input`, throwing std::runtime_error past kMaxJsonDepth levels and nlohmann's
// parse_error for malformed text (both std::exception).
template <class Json, class Input>
Json parse_json_bounded(Input&& input) {
    return Json::parse(std::forward<Input>(input), [](int depth, typename Json::parse_event_t, Json&) {
        if (depth > kMaxJsonDepth)
            throw std::runtime_error("nested deeper than " + std::to_string(kMaxJsonDepth) +
                                     " levels, far deeper than any document refcheck reads");
        return true;
    });
}

} // namespace refcheck::harness
