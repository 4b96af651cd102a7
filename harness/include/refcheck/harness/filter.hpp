// `refcheck run --filter PATTERN`, the way GoogleTest's --gtest_filter reads: PATTERN is
// POSITIVE[:-NEGATIVE] (or -NEGATIVE), each a ':'-separated list of globs (a '-' inside a glob is
// literal: case names hold hyphens) (`*` any text, `?` one character) over
// full names "CASE/INPUT" ("program-matrix/record 12 view 0 light 0 state 0"). A glob without '/'
// names whole cases ("loader" is "loader/*"). An input runs when its full name matches a positive
// glob (an empty POSITIVE is "*") and no negative one; a case runs when some positive glob's case
// part matches its name and no negative glob names the whole case.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// Whether `text` matches the glob `pattern` (`*`, `?`; everything else literal).
bool glob_match(std::string_view pattern, std::string_view text);

class InputFilter {
public:
    explicit InputFilter(const std::string& pattern); // throws std::runtime_error on an empty glob list
    bool selects_case(std::string_view name) const;
    bool selects_input(std::string_view case_name, std::string_view input) const;
    // Whether every input of the case is selected, whatever its inputs are called: a positive glob
    // names the whole case and no negative glob could name one of its inputs (input names hold no
    // '/'). Such a filter narrows nothing of the case (it may still split across workers).
    bool selects_every_input(std::string_view case_name) const;
    const std::string& pattern() const { return pattern_; }

private:
    std::string pattern_;
    std::vector<std::string> positive_, negative_; // full-name globs, "CASE/INPUT"
};

} // namespace refcheck::harness
