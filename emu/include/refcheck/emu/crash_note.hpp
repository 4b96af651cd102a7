// A note of where the guest was, kept for whoever must explain a crash of the host process (a
// Unicorn fault, an abort) after the fact: a parent process reading shared memory, say. The machine
// writes it only at boundaries it already stops at — the start and end of Machine::call and its
// replace, tap and shim-page hooks — so keeping it costs no per-instruction hook. Process-wide, one
// note for all machines of the process (a process runs one call at a time when it keeps one).
#pragma once

#include <cstdint>

namespace refcheck::emu {

struct CrashNote {
    volatile std::uint32_t eip = 0;   // the last guest EIP known (a call's entry, a hook's address, a return)
    volatile std::uint32_t known = 0; // 1 once eip was written
    volatile std::uint32_t in_call = 0; // 1 while Machine::call runs the guest
    char routine[96] = {};              // the routine Machine::call runs (NUL-terminated, cut)
};

// Where the machines of this process keep their note (null: nowhere, the default). The memory must
// outlive every machine that runs while it is set.
void set_crash_note(CrashNote* note);
CrashNote* crash_note();

} // namespace refcheck::emu
