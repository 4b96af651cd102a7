// Capstone disassembly of guest code.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

struct Instruction {
    Address address = 0;
    uint8_t size = 0;
    std::string text; // "mov ecx, dword ptr [0x10]"
};

class Disassembler {
public:
    Disassembler();
    ~Disassembler();
    Disassembler(const Disassembler&) = delete;
    Disassembler& operator=(const Disassembler&) = delete;

    // Decodes up to max_count instructions of `code` placed at `address`, stopping at the first
    // byte that does not decode.
    std::vector<Instruction> decode(std::span<const uint8_t> code, Address address,
                                    size_t max_count = SIZE_MAX) const;

private:
    size_t handle_ = 0;
};

} // namespace refcheck::emu
