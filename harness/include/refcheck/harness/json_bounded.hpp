// Parsing the JSON refcheck reads (cases, profiles, reports, coverage reasons, templates) with a
// bound on nesting. nlohmann's copies recurse once per level: a case file nested 100,000 deep (a
// 200 KB file) overflowed the stack where the case's "selection" was copied, and killed refcheck
// itself (found by the hostile-input audit). No document refcheck reads nests anywhere near the
// bound, so a deeper one is refused while it is parsed, before anything copies it.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::harness {

inline constexpr int kMaxJsonDepth = 256;

// Json::parse of `input`, throwing std::runtime_error past kMaxJsonDepth levels or for an object
// that has a key twice, and nlohmann's parse_error for malformed text (all std::exception). nlohmann
// keeps the last of a key's values: a profile listing a struct twice, or a case giving "selection"
// twice, ran on whichever came later in the file, silently (found by a read-only audit).
template <class Json, class Input>
Json parse_json_bounded(Input&& input) {
    std::vector<std::set<std::string>> keys; // of each object being parsed, the innermost last
    using Event = typename Json::parse_event_t;
    return Json::parse(std::forward<Input>(input), [&keys](int depth, Event event, Json& parsed) {
        if (depth > kMaxJsonDepth)
            throw std::runtime_error("nested deeper than " + std::to_string(kMaxJsonDepth) +
                                     " levels, far deeper than any document refcheck reads");
        if (event == Event::object_start) {
            keys.emplace_back();
        } else if (event == Event::object_end) {
            if (!keys.empty()) keys.pop_back();
        } else if (event == Event::key && !keys.empty() && parsed.is_string()) {
            const std::string& key = parsed.template get_ref<const std::string&>();
            if (!keys.back().insert(key).second)
                throw std::runtime_error("an object has the key \"" + key +
                                         "\" twice: which of its values counts would depend on the order of "
                                         "the file");
        }
        return true;
    });
}

} // namespace refcheck::harness
