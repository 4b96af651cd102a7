#include "refcheck/harness/filter.hpp"

#include "refcheck/emu/data_root.hpp"

#include <algorithm>
#include <stdexcept>

namespace refcheck::harness {

bool glob_match(std::string_view p, std::string_view t) { return emu::wildcard_match(p, t, false); }

namespace {

std::vector<std::string> globs(std::string_view list) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (from <= list.size()) {
        const std::size_t to = std::min(list.find(':', from), list.size());
        std::string g(list.substr(from, to - from));
        if (!g.empty()) out.push_back(g.find('/') == std::string::npos ? g + "/*" : g);
        from = to + 1;
    }
    return out;
}

std::string_view case_part(const std::string& glob) {
    return std::string_view(glob).substr(0, glob.find('/'));
}

} // namespace

InputFilter::InputFilter(const std::string& pattern) : pattern_(pattern) {
    // Case names hold '-' ("program-matrix"), so the negative part begins at a '-' that starts the
    // pattern or follows a ':' (gtest's "A:B:-C" form; its bare "A-C" would split such names).
    std::size_t minus = pattern.rfind('-', 0) == 0 ? 0 : pattern.find(":-");
    if (minus != std::string::npos && minus > 0) ++minus;
    positive_ = globs(std::string_view(pattern).substr(0, minus));
    if (minus != std::string::npos) negative_ = globs(std::string_view(pattern).substr(minus + 1));
    if (positive_.empty() && minus == std::string::npos)
        throw std::runtime_error("--filter '" + pattern +
                                 "': no pattern in it (e.g. 'program-*' or 'loader:palette')");
    if (positive_.empty()) positive_.push_back("*/*");
}

bool InputFilter::selects_case(std::string_view name) const {
    for (const auto& n : negative_)
        if (n.ends_with("/*") && glob_match(case_part(n), name) && n.size() == case_part(n).size() + 2)
            return false;
    for (const auto& p : positive_)
        if (glob_match(case_part(p), name)) return true;
    return false;
}

bool InputFilter::selects_input(std::string_view case_name, std::string_view input) const {
    const std::string full = std::string(case_name) + "/" + std::string(input);
    for (const auto& n : negative_)
        if (glob_match(n, full)) return false;
    for (const auto& p : positive_)
        if (glob_match(p, full)) return true;
    return false;
}

bool InputFilter::selects_every_input(std::string_view name) const {
    for (const auto& n : negative_)
        if (glob_match(case_part(n), name)) return false; // it may leave some input out
    for (const auto& p : positive_)
        if (p.size() == case_part(p).size() + 2 && p.ends_with("/*") && glob_match(case_part(p), name))
            return true;
    return false;
}

} // namespace refcheck::harness
