// The original side of a case: the image loaded into an emu::Machine with the data root mounted,
// its routines called by profile name and convention, the hooks in effect recorded for the report,
// and every fault kept as a report entry (registers, disassembly, call stack) while the run goes on.
#pragma once

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/profile.hpp"
#include "refcheck/harness/record.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace refcheck::harness {

emu::Convention parse_convention(const std::string& name); // throws ProfileError
ojson to_json(const emu::Fault& fault);
// A fault as an event of kind "fault" (routine called, fault kind, EIP, message, data address,
// registers, disassembly, guest call stack), for the comparison's first divergence.
EventRecord fault_event(const std::string& routine, const emu::Fault& fault);

// Where a profile routine finds one of its arguments at entry: the register its "args" entry
// names ("eax", "edx", ...), or its stack slot ("stack": the k-th stack argument, above the
// return address). An entry without "reg" is where the routine's convention puts the argument of
// its position. Read at the routine's entry (a tap or a replacement at its address). A real
// image whose routine takes the same arguments in other registers or another order needs an
// edit of its profile's "args", not of the harness.
class ArgSlot {
public:
    std::uint32_t u32(const emu::Machine& m) const;
    std::int32_t i32(const emu::Machine& m) const { return static_cast<std::int32_t>(u32(m)); }
    std::string where() const; // "edx", "stack+8" (from ESP at entry)

private:
    friend ArgSlot arg_slot(const Profile& profile, const std::string& routine, const std::string& name);

    // The bytes of stack arguments `routine` pops on return (0 when the caller pops them), its stack
    // arguments counted where its profile "args" place them, as arg_slot() reads them.
    std::uint32_t callee_popped_bytes(const Profile& profile, const std::string& routine);
    std::optional<emu::Reg> reg_;
    std::uint32_t stack_offset_ = 0;
};
// The slot of argument `name` of `routine`; throws ProfileError naming the profile, routine and
// argument when the profile lacks it or names a register that is none.
ArgSlot arg_slot(const Profile& profile, const std::string& routine, const std::string& name);

// The bytes of stack arguments `routine` pops on return (0 when the caller pops them), its stack
// arguments counted where its profile "args" place them, as arg_slot() reads them.
std::uint32_t callee_popped_bytes(const Profile& profile, const std::string& routine);

// The arguments of a call as the emu's convention frame takes them (its registers in order, then the
// stack): argument i goes where the profile's i-th "args" entry puts it, its register or the next
// stack slot, as arg_slot() reads it at a hook; an entry without "reg" is the convention's i-th
// place. A register the convention passes no argument in, two arguments in one, or more arguments
// than the entry lists is the profile's error (ProfileError). A profile without "args" passes the
// arguments in the convention's order. Cases (Original::call) and `refcheck call` both place them so.
std::vector<std::uint32_t> placed_arguments(const Profile& profile, const ProfileRoutine& r,
                                            std::span<const std::uint32_t> args);

class Original {
public:
    // Loads the image at its preferred base and mounts the data root (throws on a bad image). The
    // Original keeps its own profile: profile() lives as long as the Original, whatever the caller's
    // copy does.
    Original(const Environment& env, Profile profile);
    // The address of "symbol+0x1c" (an export or COFF symbol of the image, else a profile name) or
    // "0x00401234"; throws when the name is unknown, or when `bytes` bytes from there would not fit
    // the 32-bit address space (computed in 64 bits: such a place wrapped round to low memory).
    std::uint32_t resolve(const std::string& where, std::size_t bytes = 1) const;
    // Writes a seeded fault over the image and returns where it went and the bytes it replaced;
    // throws PatchMismatch, writing nothing, when the patch states other bytes than the image has.
    AppliedPatch patch(const Patch& p);
    // Puts the guest back as `snapshot` holds it (emu::Machine::restore), with every patch written
    // so far kept: a served mutant is written after the case's snapshot, and restoring the code the
    // snapshot holds would run the unmutated original for the rest of the case.
    emu::RestoreStats restore(const emu::Snapshot& snapshot);

    emu::Machine& machine() { return *machine_; }
    const emu::Machine& machine() const { return *machine_; }
    const Profile& profile() const { return profile_; }

    // Calls a profile routine with its convention. A fault is recorded (see faults()) and returned.
    emu::CallResult call(const std::string& routine, std::initializer_list<std::uint32_t> args,
                         std::uint32_t wall_ms = kWallBackstopMs);
    // Boot mode (Profile::boot_until): the image's entry point runs until it reaches `routine`,
    // under the same budgets as call(); a fault (or a start-up that never reaches it) is recorded
    // like a call's and returned.
    emu::CallResult run_entry_until(const std::string& routine, std::uint32_t wall_ms = kWallBackstopMs);
    // The wall-clock limit of a call: a backstop only (the instruction budgets bound a call; a
    // test never depends on this).
    static constexpr std::uint32_t kWallBackstopMs = 120000;
    // The case's limits (Case::instructions_per_call, instructions_per_case): every call gets at
    // most per_call instructions and no more than what is left of per_case (0, 0: none).
    void set_case_limits(std::uint64_t per_call, std::uint64_t per_case, std::uint64_t events_per_call = 0) {
        per_call_ = per_call;
        per_case_ = per_case;
        events_per_call_ = events_per_call;
    }
    // A recorder is about to keep one more event of the running call: false when that would pass
    // the case's events_per_call (0: none). The first refusal stops the call as a budget_exceeded
    // fault; the recorder drops the event. Counted per call().
    bool admit_event() {
        if (events_per_call_ == 0 || ++events_this_call_ <= events_per_call_) return true;
        if (events_this_call_ == events_per_call_ + 1)
            machine_->stop(emu::FaultKind::budget_exceeded, "the call made the recorders keep more than " +
                                                                std::to_string(events_per_call_) +
                                                                " events (limits: events_per_call)");
        return false;
    }
    // A call ran over its instruction budget (the case stops at its next input).
    bool overran() const { return overran_; }
    std::uint32_t address(const std::string& name) const { return profile_.address_of(name); }
    ArgSlot arg(const std::string& routine, const std::string& name) const {
        return arg_slot(profile_, routine, name);
    }
    // A global's 32-bit word (element `index` of a table of words); a scalar global whose profile
    // entry is not 4 bytes is refused (ProfileError naming it).
    std::uint32_t u32(const std::string& global, std::uint32_t index = 0) const;
    void write_u32(const std::string& global, std::uint32_t value);
    std::vector<std::uint8_t> bytes(std::uint32_t address, std::size_t size) const;
    // Guest memory for inputs the harness passes by pointer (camera, light), from the guest heap.
    std::uint32_t scratch(std::uint32_t size);

    // Hooks by profile routine name, recorded for the report's "hooks" section.
    emu::HookId replace(const std::string& routine, unsigned nargs, emu::ReplaceFn fn);
    emu::HookId tap(const std::string& routine, emu::TapFn fn);
    // The entries of the routines replace() took over. No family removes a replacement, so none of
    // their own instructions ran: a block at such an entry was entered only as far as the hook.
    const std::vector<std::uint32_t>& replaced_entries() const { return replaced_entries_; }
    // Calls `fn` when a call to `callee` returns, with the callee's result in EAX. At each entry the
    // return address and stack pointer are noted and a tap is placed on that return address the
    // first time it is seen (direct and indirect calls alike); the tap fires for a pending return
    // only when the stack pointer is exactly where the convention leaves it.
    void on_return(const std::string& callee, emu::TapFn fn);
    void forget_pending_returns() { pending_.clear(); } // before a new top-level call
    void note_ran(const std::string& routine) { ran_.push_back(routine); }
    const std::vector<std::string>& noted_ran() const { return ran_; }

    // Instruction budgets of call() (refcheck mutate): per routine, else `fallback` (0: none). With
    // a budget the machine counts instructions with its block hook; instructions_needed() keeps
    // the most each routine's calls took.
    void set_instruction_budgets(std::map<std::string, std::uint64_t> budgets, std::uint64_t fallback) {
        budgets_ = std::move(budgets);
        fallback_budget_ = fallback;
    }
    const std::map<std::string, std::uint64_t>& instructions_needed() const { return needed_; }
    std::uint64_t instructions_total() const { return instructions_total_; } // of every budgeted call

    // After close(), call() and run_entry_until() throw std::logic_error naming the routine and `why`,
    // running nothing: the taps, replacements and fault handler installed for a case hold objects of
    // the case (recorders, its context) that are gone once it has finished. The machine is sealed
    // too, so a caller going round the Original (machine().call()) is refused the same way. Reading
    // the Original (memory, coverage, counts, hooks_json) stays allowed.
    void close(std::string why) {
        machine_->seal(why);
        closed_ = std::move(why);
        on_fault_ = nullptr;
    }
    const std::vector<ojson>& faults() const { return faults_; }
    // Called with every fault of a call() as it is recorded (run_case makes each a divergence).
    void on_fault(std::function<void(const std::string& routine, const emu::Fault&)> fn) {
        on_fault_ = std::move(fn);
    }
    ojson hooks_json() const;
    ojson files_json() const;
    const std::vector<emu::FileAccess>& file_accesses() const; // the guest's, in order

    // The address of a global the harness reads or writes as one 32-bit word, after checking its
    // profile entry is 4 bytes (a table, "type" ending "[]", is of words); throws ProfileError.
    std::uint32_t word_global(const std::string& global) const;

private:
    // `fn` run as Phase::harness when a PhaseClock is installed (refcheck bench), else `fn` itself.
    static emu::TapFn timed(emu::TapFn fn);
    emu::CallLimits limits_for(const std::string& routine, std::uint32_t wall_ms) const;
    void refuse_if_closed(const std::string& routine) const; // close()
    void account(const std::string& routine, const emu::CallResult& result);

    const Profile profile_; // owned: callers hold the Original past the profile they loaded
    std::unique_ptr<emu::Machine> machine_;
    std::vector<AppliedPatch> patches_; // written by patch(), kept by restore()
    std::vector<ojson> faults_;
    std::function<void(const std::string&, const emu::Fault&)> on_fault_;
    std::optional<std::string> closed_; // why no call may run any more (close())
    struct PendingReturn {
        std::uint32_t address;
        std::uint32_t esp;   // expected ESP after the return
        std::size_t watcher; // index into return_watchers_
    };
    std::vector<PendingReturn> pending_;
    std::vector<emu::TapFn> return_watchers_;
    std::set<std::uint32_t> return_taps_;
    std::vector<std::string> replaced_, tapped_, ran_;
    std::vector<std::uint32_t> replaced_entries_; // replaced_'s addresses, resolved when replaced
    std::map<std::string, std::uint64_t> budgets_, needed_;
    std::uint64_t fallback_budget_ = 0;
    std::uint64_t instructions_total_ = 0;
    std::uint64_t per_call_ = 0, per_case_ = 0, events_per_call_ = 0, events_this_call_ = 0;
    bool overran_ = false;
};

} // namespace refcheck::harness
