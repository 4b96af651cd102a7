// Bytes of the stand-in to patch for a seeded fault, found the way a person would find them: the
// function's COFF symbol, then Capstone's disassembly of the function (up to the next symbol),
// then the instruction a predicate picks. No offset is hard-coded, so a rebuilt stand-in still
// patches the right instruction (or the test says the instruction is gone).
#pragma once

#include "refcheck/emu/disasm.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace refcheck::cli_test {

struct CodeSite {
    std::string function;
    emu::Address start = 0;          // the function's address
    emu::Instruction instruction;    // the instruction picked
    std::vector<std::uint8_t> bytes; // its bytes
    // "function+0xOFFSET": what `refcheck run --patch` takes before the colon.
    std::string where() const;
};

// The first instruction of `function` (a symbol of the stand-in) `match` accepts; throws
// std::runtime_error naming the function when there is none.
CodeSite find_instruction(const std::string& function,
                          const std::function<bool(const emu::Instruction&)>& match);

// Every instruction of `function` (a symbol of the stand-in), up to the next symbol.
std::vector<emu::Instruction> instructions_of(const std::string& function);

// In `function`, the store of a loop counter to a stack slot before the function's last backward
// conditional branch (the slot read back by a later `mov` before that branch): made a no-op, the
// loop never ends. Throws std::runtime_error naming what is missing.
emu::Instruction loop_counter_store(const std::string& function);

// Hex of bytes, as `--patch` takes them ("9090").
std::string hex_bytes(const std::vector<std::uint8_t>& bytes);

} // namespace refcheck::cli_test
