#include "roster.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

namespace refcheck::synth {

std::vector<int> place(const Profile& p) {
    const int n = static_cast<int>(p.specs.size());
    std::vector<int> index(p.specs.size(), -1);
    std::vector<bool> taken(p.specs.size(), false);
    for (int s = 0; s < n; ++s) {
        const int pin = p.specs[s].pin;
        if (pin < 0) continue;
        if (pin >= n || taken[pin]) throw std::logic_error("bad pin for " + p.specs[s].name);
        index[s] = pin;
        taken[pin] = true;
    }
    int next = 0;
    for (int s = 0; s < n; ++s) {
        if (index[s] >= 0) continue;
        while (taken[next]) ++next;
        index[s] = next;
        taken[next] = true;
    }
    return index;
}

int instances(const Profile& p, int s) {
    std::function<int(int, int)> count = [&](int spec, int depth) {
        if (depth > 8) throw std::logic_error("attachments nest deeper than 8: " + p.specs[s].name);
        int total = 1;
        for (const ChildRef& c : p.specs[spec].children)
            if (c.spec >= 0) total += count(c.spec, depth + 1);
        return total;
    };
    return count(s, 0);
}

Profile profile_named(const std::string& name) {
    if (name == "default") return default_profile();
    if (name == "small") return small_profile();
    throw std::invalid_argument("unknown profile: " + name + " (default, small)");
}

} // namespace refcheck::synth
