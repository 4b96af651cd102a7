// Helpers shared by the kernel32 shims (internal).
#pragma once

#include "refcheck/emu/machine.hpp"

namespace refcheck::emu::win32 {

inline constexpr uint32_t TRUE_ = 1;
inline constexpr uint32_t FALSE_ = 0;

// Sets the last error and returns `result`.
inline uint32_t fail(Machine& m, uint32_t error, uint32_t result) {
    m.kernel32().last_error = error;
    return result;
}

// msvcrt's errno (the cell _errno() points at, in the system region).
void set_errno(Machine& m, uint32_t e);

} // namespace refcheck::emu::win32
