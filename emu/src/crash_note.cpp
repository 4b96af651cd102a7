#include "refcheck/emu/crash_note.hpp"

namespace refcheck::emu {

namespace {
CrashNote* g_note = nullptr;
}

void set_crash_note(CrashNote* note) { g_note = note; }
CrashNote* crash_note() { return g_note; }

} // namespace refcheck::emu
