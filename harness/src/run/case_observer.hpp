// An observer of the cases this process runs (refcheck mutate; nothing else sets one): told when a
// case's original is booted (coverage enabled, before any patch or call), when each input a family
// selects is about to run (CaseContext::selected), which it may then skip, and when the case is over
// (the original still alive, the report complete). One per process: mutate's workers are forked
// processes, each running one case at a time.
#pragma once

#include "refcheck/harness/report.hpp"

#include <string_view>

namespace refcheck::harness {

class Original;
class Comparator;

class CaseObserver {
public:
    virtual ~CaseObserver() = default;
    virtual void booted(Original& original, Comparator& comparator) = 0;
    // An input begins. `skippable`: the family asks whether it runs (CaseContext::selected), and the
    // answer counts (false: the family skips it, as an input the case does not select); otherwise it
    // runs whatever the answer (CaseContext::begins: its state carries on to the next input).
    // May throw OriginalFailed (families.hpp) to stop the case: it is called from the families'
    // input loops, never from inside the emulator.
    virtual bool input(std::string_view name, bool skippable) = 0;
    // Whether any input whose name starts with `prefix` may still run (families skip the work of
    // the others, CaseContext::selects_within).
    virtual bool within(std::string_view) { return true; }
    virtual void finished(Original& original, const ojson& report) = 0;
};

CaseObserver* case_observer();
void set_case_observer(CaseObserver* observer);

struct Case;
struct Counts;
// What makes an equivalent verdict an error (run_case.cpp): no input selected, no event compared,
// or, unless `narrowed` (the case's narrowing left inputs out), a kind in "compares" never
// compared. Throws std::runtime_error saying which.
void require_compared(const Case& c, const Counts& counts, bool narrowed);

} // namespace refcheck::harness
