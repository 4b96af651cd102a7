// Calling conventions as typed argument readers (callee side) and frame writers (caller side)
// that also do the stack clean-up.
//
//   cdecl     all arguments on the stack, right to left; the caller pops.
//   stdcall   all arguments on the stack; the callee pops.
//   fastcall  ECX, EDX, then the stack; the callee pops.
//   watcall   EAX, EDX, EBX, ECX, then the stack; the callee pops and preserves all but EAX.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

class Machine;

struct ConventionInfo {
    std::span<const Reg> register_args;
    bool callee_pops = false;
};
const ConventionInfo& info(Convention c);
unsigned stack_arg_count(Convention c, unsigned nargs);

// Reads the arguments of a routine at its entry ([ESP] = return address).
class Args {
public:
    Args(Machine& machine, Convention convention, unsigned count);

    uint32_t u32(unsigned i) const;
    int32_t i32(unsigned i) const { return static_cast<int32_t>(u32(i)); }
    Address ptr(unsigned i) const { return u32(i); }
    std::string cstring(unsigned i, size_t max = 4096) const;
    template <class T>
    T get(unsigned i) const {
        return static_cast<T>(u32(i));
    }

    unsigned count() const { return count_; }
    Convention convention() const { return convention_; }
    Address return_address() const;
    Machine& machine() const { return machine_; }

    // Returns from the routine per its convention: EAX = eax, ESP past the return address (and
    // the stack arguments when the callee pops), EIP = the return address.
    void return_to_caller(uint32_t eax) const;

private:
    Machine& machine_;
    Convention convention_;
    unsigned count_;
    Address esp_;
};

// Caller side: lays out `args` below `stack_top` and sets the argument registers; the return
// address is pushed last. Returns the ESP at entry.
Address write_call_frame(Machine& machine, Convention c, std::span<const uint32_t> args, Address stack_top,
                         Address return_address);
// ESP after the callee returned and the caller did its part of the clean-up, for a balanced call.
inline Address balanced_esp(Address stack_top) { return stack_top; }
// Bytes the caller pops after the return (cdecl only).
uint32_t caller_pops(Convention c, unsigned nargs);

} // namespace refcheck::emu
