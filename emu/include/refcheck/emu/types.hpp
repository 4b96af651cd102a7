// Basic vocabulary of the x86-32 machine: addresses, ranges, registers, the one error type.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace refcheck::emu {

using Address = uint32_t;

// The single failure path of emu/ for bad input (a missing file, a bad image, an unmapped host
// read). Guest misbehaviour is never an exception: it is a Fault inside a CallResult.
class EmuError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A half-open guest address range [begin, end).
struct Range {
    Address begin = 0;
    Address end = 0;
    bool contains(Address a) const { return a >= begin && a < end; }
    uint32_t size() const { return end - begin; }
};

enum class Reg : uint8_t { eax, ebx, ecx, edx, esi, edi, ebp, esp, eip, eflags };

struct Registers {
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, esp = 0, eip = 0, eflags = 0;
    uint32_t get(Reg r) const;
    std::string to_string() const; // "eax=00000001 ebx=... eip=... eflags=..."
};

enum class Convention : uint8_t { cdecl, stdcall, fastcall, watcall };
std::string_view to_string(Convention c);

// Memory access kinds for watches (bit flags).
enum class Access : uint8_t { read = 1, write = 2, read_write = 3 };
inline bool has(Access set, Access bit) {
    return (static_cast<unsigned>(set) & static_cast<unsigned>(bit)) != 0;
}

// "0x00401000"
std::string hex(uint32_t value);
// "4,108"
std::string with_commas(uint64_t value);

} // namespace refcheck::emu
