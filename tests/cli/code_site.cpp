#include "code_site.hpp"

#include "cli_support.hpp"

#include "refcheck/emu/machine.hpp"

#include <cstdio>
#include <stdexcept>

namespace refcheck::cli_test {

std::string CodeSite::where() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "+0x%x", instruction.address - start);
    return function + buf;
}

CodeSite find_instruction(const std::string& function,
                          const std::function<bool(const emu::Instruction&)>& match) {
    emu::Machine machine;
    const emu::Image& image = machine.load(kImage);
    const auto start = image.address_of(function);
    if (!start) throw std::runtime_error("standin.exe has no symbol " + function);
    emu::Address end = image.range().end; // the function ends where the next symbol starts
    for (const auto& [name, address] : image.symbols)
        if (address > *start && address < end) end = address;
    const auto code = machine.read_bytes(*start, end - *start);
    for (const auto& in : emu::Disassembler().decode(code, *start))
        if (match(in)) {
            const auto at = code.begin() + (in.address - *start);
            return {function, *start, in, std::vector<std::uint8_t>(at, at + in.size)};
        }
    throw std::runtime_error("no such instruction in " + function);
}

std::vector<emu::Instruction> instructions_of(const std::string& function) {
    emu::Machine machine;
    const emu::Image& image = machine.load(kImage);
    const auto start = image.address_of(function);
    if (!start) throw std::runtime_error("standin.exe has no symbol " + function);
    emu::Address end = image.range().end;
    for (const auto& [name, address] : image.symbols)
        if (address > *start && address < end) end = address;
    return emu::Disassembler().decode(machine.read_bytes(*start, end - *start), *start);
}

std::string hex_bytes(const std::vector<std::uint8_t>& bytes) {
    std::string out;
    char buf[3];
    for (const std::uint8_t b : bytes) {
        std::snprintf(buf, sizeof buf, "%02x", b);
        out += buf;
    }
    return out;
}

} // namespace refcheck::cli_test
