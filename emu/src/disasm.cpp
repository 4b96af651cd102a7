#include "refcheck/emu/disasm.hpp"

#include <capstone/capstone.h>

namespace refcheck::emu {

Disassembler::Disassembler() {
    csh h = 0;
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &h) != CS_ERR_OK)
        throw EmuError("Capstone: cannot open an x86-32 disassembler");
    handle_ = h;
}

Disassembler::~Disassembler() {
    csh h = handle_;
    cs_close(&h);
}

std::vector<Instruction> Disassembler::decode(std::span<const uint8_t> code, Address address,
                                              size_t max_count) const {
    std::vector<Instruction> out;
    cs_insn* insn = cs_malloc(handle_);
    const uint8_t* p = code.data();
    size_t left = code.size();
    uint64_t at = address;
    while (out.size() < max_count && cs_disasm_iter(handle_, &p, &left, &at, insn)) {
        std::string text = insn->mnemonic;
        if (insn->op_str[0] != '\0') text += std::string(" ") + insn->op_str;
        out.push_back(
            {static_cast<Address>(insn->address), static_cast<uint8_t>(insn->size), std::move(text)});
    }
    cs_free(insn, 1);
    return out;
}

} // namespace refcheck::emu
