#include "code_site.hpp"

#include <optional>
#include <stdexcept>

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

emu::Instruction loop_counter_store(const std::string& function) {
    const auto code = instructions_of(function);
    auto target_of = [](const emu::Instruction& in) -> std::optional<std::uint32_t> {
        const auto space = in.text.find(' ');
        if (in.text[0] != 'j' || in.text.rfind("jmp", 0) == 0 || space == std::string::npos)
            return std::nullopt;
        try {
            return static_cast<std::uint32_t>(std::stoul(in.text.substr(space + 1), nullptr, 16));
        } catch (const std::exception&) {
            return std::nullopt;
        }
    };
    std::optional<std::size_t> back_edge;
    for (std::size_t i = 0; i < code.size(); ++i)
        if (const auto t = target_of(code[i]); t && *t < code[i].address) back_edge = i;
    if (!back_edge) throw std::runtime_error(function + " has no backward conditional branch");
    std::optional<std::size_t> store;
    for (std::size_t i = 0; i < *back_edge; ++i) {
        const std::string& t = code[i].text;
        if (t.rfind("mov dword ptr [ebp - ", 0) != 0) continue;
        const std::string slot = t.substr(4, t.find(']') - 3); // "dword ptr [ebp - 0x34]"
        for (std::size_t k = i + 1; k < *back_edge; ++k)
            if (code[k].text.rfind("mov ", 0) == 0 && code[k].text.ends_with(", " + slot)) store = i;
    }
    if (!store) throw std::runtime_error("no loop counter of " + function + " stored before its back-edge");
    return code[*store];
}

} // namespace refcheck::cli_test
