// An observer of the cases this process runs (refcheck mutate; nothing else sets one): told when a
// case's original is booted (coverage enabled, before any patch or call), when each input a family
// names is about to run (note_input), and when the case is over (the original still alive). One
// per process: mutate's workers are forked processes, each running one case at a time.
#pragma once

#include <string_view>

namespace refcheck::harness {

class Original;
class Comparator;

class CaseObserver {
public:
    virtual ~CaseObserver() = default;
    virtual void booted(Original& original, Comparator& comparator) = 0;
    // May throw OriginalFailed (families.hpp) to stop the case: it is called from the families'
    // input loops, never from inside the emulator.
    virtual void input(std::string_view name) = 0;
    virtual void finished(Original& original) = 0;
};

CaseObserver* case_observer();
void set_case_observer(CaseObserver* observer);

} // namespace refcheck::harness
