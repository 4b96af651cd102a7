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

// The shims copy and fill guest memory in blocks: a guest length is never a host allocation (a
// memcpy of 0xf0000000 bytes took 4 GB of host memory before its fault, MultiByteToWideChar of
// 0x7fffffff bytes 2.1 GB), and the first block the guest may not access faults, partway, as the
// guest's own loop would. Both access guest memory on the guest's behalf (Machine::guest_write).
inline constexpr uint32_t kShimBlock = 1u << 16;
void copy_guest(Machine& m, Address dst, Address src, uint32_t n); // overlap copies as memmove does
void fill_guest(Machine& m, Address dst, uint8_t byte, uint32_t n);

// Freeing or resizing a heap block that is not live (a double free, a pointer into a block or one
// never allocated) corrupts a Windows heap in ways this model cannot follow: what the original does
// next is unknown, so the call stops with a heap_misuse fault at the guest's call of `function`.
// VirtualFree is not among its users: the kernel checks its regions and fails cleanly.
[[noreturn]] void heap_misuse(Machine& m, Address at, const char* function);

// MAX_PATH: a path argument whose NUL is not within these many bytes fails as Windows fails it.
inline constexpr size_t max_path = 260;

// A guest path argument: its characters when its NUL lies within MAX_PATH, nullopt otherwise (never
// a truncated path). `shown` is what a record or log line names: the path, or its first MAX_PATH - 1
// characters and "...".
std::optional<std::string> guest_path(Machine& m, Address a, std::string& shown);

// A guest string shown in a log line only: its characters, or its first `max` characters and a note
// that it goes on (the shim reads no further).
std::string guest_text(Machine& m, Address a, size_t max);

} // namespace refcheck::emu::win32
