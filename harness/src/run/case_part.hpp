// Work below the case (issue 17): a large case split into parts over its inputs, run by different
// workers, and finished by one more run that merges what the parts compared into the one report an
// unsplit run writes, byte for byte.
//
// - A part (CasePart{k, n}) boots the original as the whole case does and compares only the inputs
//   of its share of the selected records (part k of n: a contiguous range, so the parts in order
//   compare the inputs in the unsplit run's order). Its report carries "part_state": what the finish
//   needs to add (the comparator's counts, the exercise counts, the blocks it covered, the family's
//   seen-sets, its events and instructions, the routines it ran, its first known divergence).
// - The finish (CasePart::finish set) boots the original again, compares no input, absorbs the
//   parts' states in order before the report is assembled, and so writes the unsplit report through
//   the same code.
// - A part that is not clean (not equivalent, a fault, an error, a crash, a stop), or parts whose
//   instructions together pass the case's instructions_per_case, are not merged: the whole case runs
//   again unsplit (run.cpp), so divergent, faulting and crashing cases report exactly as before.
//
// Only cases whose every input is independent of the inputs before it and whose report is a sum, a
// union or a first of per-input results are split (splittable()): program cases with isolate_records
// (every record starts from the set-up's snapshot, in a part as in the unsplit run: Case::
// isolate_records), without null-argument calls, a broken program, narrowing, a probe or seeded
// faults. Without isolation a record's original-side values can depend on the records before it
// (the original reads stale stack: fault.normal.missing), which a part has not run.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstddef>
#include <vector>

namespace refcheck::harness {

struct CasePart {
    std::size_t index = 0, count = 1; // this run compares part `index` of `count`
    // The finish: the parts' results in part order (this run compares no input of its own; it reads
    // their reports' "part_state" and the frame pictures beside them).
    const std::vector<CaseResult>* finish = nullptr;
    bool finishing() const { return finish != nullptr; }
    // Whether element i (a selected record, in selection order) is this part's, by weight (a record's
    // expected cost): part k's when the middle of its weight lies in the k-th of `count` equal shares
    // of the total, so the parts stay contiguous and in order and take about equal work; with every
    // weight 0, by count (part k owns [k n / count, (k + 1) n / count)). The finish owns none.
    bool owns(std::size_t i, const std::vector<std::uint64_t>& weights) const;
    // The part each element goes to by weight (as owns() decides): non-decreasing, each < count.
    std::vector<std::size_t> shares(const std::vector<std::uint64_t>& weights) const;
};

// The part the running case is (set by CasePartScope around run_case), or null: a whole case.
const CasePart* case_part();
class CasePartScope {
public:
    explicit CasePartScope(const CasePart* part);
    ~CasePartScope();
    CasePartScope(const CasePartScope&) = delete;
    CasePartScope& operator=(const CasePartScope&) = delete;

private:
    const CasePart* previous_;
};

// How many parts case `c` runs as with `jobs` workers: 1 (whole) unless it is splittable, jobs > 1
// and its selection is large (at least kMinInputsToSplit inputs, a selection of every record
// counting as 1,000 records over its stride); then min(jobs, kMaxParts).
inline constexpr std::size_t kMinInputsToSplit = 256, kMaxParts = 8;
std::size_t case_parts(const Case& c, const Injection& injection, unsigned jobs);
bool splittable(const Case& c, const Injection& injection);

// Whether the parts' results can be merged into the unsplit report (every part equivalent, with its
// part_state, no fault or stop, and their instructions together within instructions_per_case); when
// not, `why` says which part and why (the whole case then runs unsplit).
bool parts_mergeable(const Case& c, const std::vector<CaseResult>& parts, std::string* why = nullptr);

// A part's state (its report's "part_state").
const ojson& part_state_of(const CaseResult& part);

} // namespace refcheck::harness
