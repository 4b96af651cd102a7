#include "run/case_part.hpp"

#include "refcheck/harness/filter.hpp"

#include <algorithm>

namespace refcheck::harness {

namespace {
thread_local const CasePart* g_part = nullptr;
} // namespace

const CasePart* case_part() { return g_part; }
CasePartScope::CasePartScope(const CasePart* part) : previous_(g_part) { g_part = part; }
CasePartScope::~CasePartScope() { g_part = previous_; }

std::vector<std::size_t> CasePart::shares(const std::vector<std::uint64_t>& weights) const {
    std::uint64_t total = 0;
    for (const std::uint64_t w : weights) total += w;
    std::vector<std::size_t> out;
    std::uint64_t before = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        // The middle of element i's weight, 2 * (before + w / 2), in shares of 2 * total / count;
        // with no weight at all, by count.
        const std::uint64_t share =
            total == 0 ? i * count / weights.size() : (2 * before + weights[i]) * count / (2 * total);
        out.push_back(static_cast<std::size_t>(std::min<std::uint64_t>(share, count - 1)));
        before += weights[i];
    }
    return out;
}

bool CasePart::owns(std::size_t i, const std::vector<std::uint64_t>& weights) const {
    return !finish && shares(weights).at(i) == index;
}

bool splittable(const Case& c, const Injection& injection) {
    // A filter that selects every input of the case (`--filter '*:-other-case'`) narrows nothing.
    const bool narrowed =
        !c.only.empty() || !c.only_inputs.empty() || (c.filter && !c.filter->selects_every_input(c.name));
    return c.family == Family::Program && c.isolate_records && !c.null_arguments && !c.invalid_program &&
           !narrowed && injection.empty();
}

std::size_t case_parts(const Case& c, const Injection& injection, unsigned jobs) {
    if (jobs < 2 || !splittable(c, injection)) return 1;
    const RecordSelection& s = c.records;
    const std::size_t stride = std::max<std::uint32_t>(1, s.stride);
    std::size_t records = 0;
    if (!s.list.empty())
        records = s.list.size();
    else if (s.to)
        records = (*s.to - std::min(*s.to, s.from.value_or(0))) / stride + 1;
    else
        records = 1000 / stride; // every record: the archive is not read here
    const std::size_t inputs = records * c.views.size() * c.lights.size() * c.states.size();
    if (inputs < kMinInputsToSplit) return 1;
    return std::min<std::size_t>({jobs, kMaxParts, records});
}

bool parts_mergeable(const Case& c, const std::vector<CaseResult>& parts, std::string* why) {
    auto no = [&](std::size_t k, const std::string& reason) {
        if (why)
            *why = "part " + std::to_string(k + 1) + " of " + std::to_string(parts.size()) + ": " + reason;
        return false;
    };
    std::uint64_t instructions = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const CaseResult& p = parts[k];
        const ojson& r = p.report;
        if (p.status != Status::Equivalent) return no(k, "status " + std::string(status_name(p.status)));
        if (!r.contains("part_state")) return no(k, "no part_state");
        if (r.contains("stopped") || r.contains("error") || r.contains("construct_failures"))
            return no(k, "it stopped or failed");
        if (!member(r, "faults").empty()) return no(k, "the original faulted");
        // The finish merges no file access: the parts' must all be the boot's (records read none).
        if (k > 0 && member(r, "files") != member(parts[0].report, "files"))
            return no(k, "its file accesses differ from part 1's (its records read files)");
        const ojson& s = r.at("part_state");
        const auto boot = s.at("instructions_boot").get<std::uint64_t>();
        const auto total = s.at("instructions_total").get<std::uint64_t>();
        if (total < boot) return no(k, "instruction totals out of order");
        // Every part boots alike (the same image, data and calls): a boot that took another count
        // of instructions ran something else, and the parts' shares would not add up.
        if (k > 0 && boot != parts[0].report.at("part_state").at("instructions_boot").get<std::uint64_t>())
            return no(k, "its boot took another number of instructions than part 1's");
        // The boot runs once in the unsplit case; every part ran it.
        instructions += (k == 0 ? boot : 0) + (total - boot);
    }
    if (instructions > c.instructions_per_case)
        return no(parts.size() - 1, "the parts took " + std::to_string(instructions) +
                                        " instructions together, past the case's instructions_per_case");
    return true;
}

const ojson& part_state_of(const CaseResult& part) { return part.report.at("part_state"); }

} // namespace refcheck::harness
