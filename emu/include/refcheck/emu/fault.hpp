// A fault is a result, not a crash: what stopped a call, where, and what the guest was doing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

enum class FaultKind : uint8_t {
    read_unmapped,
    write_unmapped,
    fetch_unmapped,
    read_protected,
    write_protected,
    fetch_protected,
    invalid_instruction,
    division_error,
    breakpoint,
    interrupt, // any other interrupt or exception vector
    halt,      // hlt executed
    budget_exceeded,
    wall_limit,
    unimplemented_import, // an import bound to the trap was called
    process_exit,         // ExitProcess
    stack_imbalance,      // returned with ESP not where the convention puts it
    heap_misuse,          // freed or resized something that is not a live allocation (a double free)
    stopped,              // a host hook called Machine::stop
    host_error,           // a shim or hook threw
};
std::string_view to_string(FaultKind k);

// An access a shim made to guest memory on the guest's behalf that a guest instruction could not
// make: the page is unmapped, or its protection forbids the access (Machine::guest_write and the
// other guest_ accessors). The shim page turns it into a fault of `kind` at `address`, as the same
// access by a guest load or store would give, shown at the guest's call of the import. The heap
// shims raise it too, as a heap_misuse at the block the guest freed or resized but does not own.
class GuestMemoryFault : public EmuError {
public:
    GuestMemoryFault(FaultKind kind, Address address, std::string message)
        : EmuError(std::move(message)), kind_(kind), address_(address) {}
    FaultKind kind() const { return kind_; }
    Address address() const { return address_; }

private:
    FaultKind kind_;
    Address address_;
};

struct StackFrame {
    Address return_address = 0;
    Address stack_slot = 0;        // where on the stack the return address was found
    std::string symbol;            // "name+0x12"
    bool from_frame_chain = false; // confirmed by the EBP chain, not only by the stack scan
};

struct Fault {
    FaultKind kind = FaultKind::host_error;
    std::string message;      // one line, e.g. "read of unmapped memory at 0x00000010"
    std::string routine;      // the routine that was called
    Registers registers;      // at the faulting instruction (EIP = eip)
    Address eip = 0;          // the faulting instruction (exact when eip_exact)
    Address reported_eip = 0; // what Unicorn reported (a block start for data faults)
    bool eip_exact = true;
    std::optional<Address> data_address;  // for memory faults
    std::string attribution;              // heap (or other) attribution of data_address
    std::vector<std::string> disassembly; // a few instructions around eip, "=>" marks it
    std::vector<StackFrame> stack;        // innermost first

    // A multi-line human report: message, registers, disassembly, call stack.
    std::string report() const;
};

} // namespace refcheck::emu
