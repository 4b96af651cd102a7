// One routine of any PE32 image called under emu/, for exploring an original before writing a
// case: its return value and registers, the files it touched in the data root, the calls it made
// to imports (recorded by one tap per import thunk), the basic blocks it executed out of those it
// has (and of the routines it calls directly) and, on a fault, the full fault report.
#pragma once

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/report.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// A usage problem: a bad image, an unknown routine, a bad argument or convention (exit code 2).
struct CallError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CallRequest {
    std::filesystem::path image;
    std::string routine;           // a name of the profile, an export or symbol, or 0xADDRESS
    std::vector<std::string> args; // see parse_call_argument
    // cdecl, stdcall, fastcall, watcall; empty: the profile's for a routine it names, else watcall.
    std::string convention;
    // A profile of the image (refcheck's profile JSON, e.g. from `profile import`): its routines by
    // name (a stripped retail image has no symbols), their conventions, and its "boot". A profile
    // tied to another image (its "image_sha256") is refused.
    std::optional<std::filesystem::path> profile;
    // Run the image's entry point (its C runtime's start-up) until it first reaches this routine (a
    // name as `routine`, or 0xADDRESS), then make the call: the runtime's heap, stdio and
    // initialisers as start-up made them. Empty: the profile's "boot" unless no_boot, else none.
    std::string boot_until;
    bool no_boot = false;
    std::optional<std::filesystem::path> data; // data root; none: every file open is refused
    std::uint64_t budget = 0;                  // instruction budget, 0 = none
    std::uint32_t wall_ms = 20000;
    std::optional<std::uint32_t> base; // load the image there (relocated) instead of its preferred base
    std::vector<std::string> reads;    // WHERE:LEN shown as hex after the call (see parse_memory_read)
    std::vector<std::string> strings;  // WHERE shown as a NUL-terminated string after the call
};

// Memory shown after the call. WHERE is ARGn (the n-th argument's value, e.g. a buffer the
// call filled), EAX (the return value) or an address (0x hex or decimal).
struct MemoryRead {
    std::string spec; // as given
    std::uint32_t address = 0;
    std::vector<std::uint8_t> bytes; // for a string: its characters, without the terminator
    bool string = false;
    std::string error; // "not mapped at ..." when the memory could not be read
};

struct ImportCall {
    std::string function;            // "KERNEL32.dll!CreateFileA"
    std::vector<std::uint32_t> args; // as many as the shim takes (none for an unshimmed import)
    std::string text;                // the string argument of CreateFileA/FindFirstFileA/OutputDebugStringA
    std::uint32_t result = 0;        // EAX after the shim
    bool shimmed = true;             // false: the call stopped the run (unimplemented import)
    std::string returns_to;          // "routine+0x1c"
};

// The start-up run before the call (CallRequest::boot_until or the profile's boot).
struct BootOutcome {
    std::string until;         // the routine named
    std::uint32_t address = 0; // where the start-up stopped, or should have
    emu::CallResult result;    // a fault when it did not get there (the call was then not made)
};

struct CallOutcome {
    std::optional<BootOutcome> boot;
    bool called = true;  // false: the boot failed, so the routine never ran (result is the boot's)
    std::string routine; // "name" or the address given
    std::uint32_t address = 0;
    emu::Convention convention = emu::Convention::watcall;
    std::vector<std::uint32_t> args; // as passed (string arguments as their guest addresses)
    // Where each argument went when the profile's entry for the routine places them ("args" with
    // registers: "eax", "stack", ...); empty when they went in the convention's order.
    std::vector<std::string> placement;
    emu::CallResult result;
    emu::Registers registers; // after the return, or at the faulting instruction
    std::vector<emu::FileAccess> files;
    std::vector<std::string> file_sha256; // per file, of a read-only open; empty for the others
    std::string file_problems;            // a file the guest read that changed since it opened it
    std::vector<ImportCall> imports;
    std::vector<std::string> log;  // the machine's log lines
    ojson coverage;                // coverage_json of the routine and those it reaches
    std::uint32_t image_base = 0;  // where the image was loaded
    std::vector<MemoryRead> reads; // --read and --string, in the order given (reads first)
};

// "123", "-5", "0x1f", "i32:-5" (signed 32-bit), "u32:4000000000" or "u32:0xffffffff" -> the
// 32-bit value. Pointer arguments are placed in the guest heap by call_routine, which passes their
// address: "str:TEXT" (a NUL-terminated copy of TEXT), "buf:N" (N zero bytes), "hex:0011FF" (those
// bytes), "file:PATH" (the bytes of a host file, read by refcheck, not by the guest). Throws
// CallError for anything else.
std::uint32_t parse_call_argument(std::string_view text);

// Loads the image, mounts the data root, enables coverage, calls the routine. Guest faults are in
// the outcome, never thrown; usage problems throw CallError.
CallOutcome call_routine(const CallRequest& request);

// The outcome for people: return value, registers, files, import calls, coverage, fault report.
std::string call_report(const CallOutcome& outcome);

} // namespace refcheck::harness
