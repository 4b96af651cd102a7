// The mutants of an image's routines, found with Capstone (detail mode: operands and the offset of
// the immediate in the encoding), one small change of one instruction each.
#include "refcheck/harness/mutate.hpp"

#include <capstone/capstone.h>

#include <cstdio>
#include <stdexcept>

namespace refcheck::harness {

std::string Mutant::id() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "+0x%x", offset());
    return routine + buf + " " + op + ": " + instruction;
}

Patch Mutant::patch() const {
    Patch p;
    p.where = emu::hex(address);
    p.bytes = new_bytes;
    p.expected = old_bytes;
    return p;
}

namespace {

bool legacy_prefix(std::uint8_t b) {
    switch (b) {
        case 0xf0:
        case 0xf2:
        case 0xf3:
        case 0x2e:
        case 0x36:
        case 0x3e:
        case 0x26:
        case 0x64:
        case 0x65:
        case 0x66:
        case 0x67: return true;
        default: return false;
    }
}

bool is_jcc(unsigned id) {
    switch (id) {
        case X86_INS_JAE:
        case X86_INS_JA:
        case X86_INS_JBE:
        case X86_INS_JB:
        case X86_INS_JE:
        case X86_INS_JGE:
        case X86_INS_JG:
        case X86_INS_JLE:
        case X86_INS_JL:
        case X86_INS_JNE:
        case X86_INS_JNO:
        case X86_INS_JNP:
        case X86_INS_JNS:
        case X86_INS_JO:
        case X86_INS_JP:
        case X86_INS_JS: return true;
        default: return false;
    }
}

bool immediate_operator(unsigned id) {
    switch (id) {
        case X86_INS_CMP:
        case X86_INS_ADD:
        case X86_INS_SUB:
        case X86_INS_AND:
        case X86_INS_OR:
        case X86_INS_XOR:
        case X86_INS_TEST:
        case X86_INS_SHL:
        case X86_INS_SAL:
        case X86_INS_SHR:
        case X86_INS_SAR:
        case X86_INS_IMUL: return true;
        default: return false;
    }
}

bool is_store_mov(unsigned id) {
    switch (id) {
        case X86_INS_MOV:
        case X86_INS_MOVSS:
        case X86_INS_MOVSD:
        case X86_INS_MOVQ:
        case X86_INS_MOVD:
        case X86_INS_MOVAPS:
        case X86_INS_MOVUPS:
        case X86_INS_MOVDQA:
        case X86_INS_MOVDQU: return true;
        default: return false;
    }
}

// The destination is ESP or EBP: frame arithmetic, left out.
bool frame_destination(const cs_x86& x) {
    if (x.op_count == 0 || x.operands[0].type != X86_OP_REG) return false;
    const auto r = x.operands[0].reg;
    return r == X86_REG_ESP || r == X86_REG_EBP || r == X86_REG_SP || r == X86_REG_BP;
}

struct Site {
    const RoutineBlocks* routine;
    std::uint32_t address;
    std::string text;
    std::vector<std::uint8_t> bytes;
};

void add(std::vector<Mutant>& out, const Site& s, const char* op, std::vector<std::uint8_t> mutated) {
    if (mutated == s.bytes) return;
    Mutant m;
    m.routine = s.routine->name;
    m.routine_address = s.routine->range.begin;
    m.address = s.address;
    m.op = op;
    m.instruction = s.text;
    m.old_bytes = s.bytes;
    m.new_bytes = std::move(mutated);
    out.push_back(std::move(m));
}

void mutants_of(std::vector<Mutant>& out, const Site& s, const cs_insn& insn) {
    const cs_x86& x = insn.detail->x86;
    const auto& b = s.bytes;
    std::size_t p = 0;
    while (p < b.size() && legacy_prefix(b[p])) ++p;
    if (p >= b.size()) return;
    const unsigned id = insn.id;
    // Conditions: the low bit of the condition code negates it.
    if (is_jcc(id)) {
        std::vector<std::uint8_t> m = b;
        if (b[p] >= 0x70 && b[p] <= 0x7f)
            m[p] ^= 1;
        else if (b[p] == 0x0f && p + 1 < b.size() && b[p + 1] >= 0x80 && b[p + 1] <= 0x8f)
            m[p + 1] ^= 1;
        else
            return;
        add(out, s, "negate_jcc", std::move(m));
        return;
    }
    if (b[p] == 0x0f && p + 1 < b.size()) {
        const std::uint8_t o = b[p + 1];
        if (o >= 0x90 && o <= 0x9f) {
            std::vector<std::uint8_t> m = b;
            m[p + 1] ^= 1;
            add(out, s, "negate_setcc", std::move(m));
            return;
        }
        if (o >= 0x40 && o <= 0x4f) {
            std::vector<std::uint8_t> m = b;
            m[p + 1] ^= 1;
            add(out, s, "negate_cmovcc", std::move(m));
            return;
        }
    }
    const bool frame = frame_destination(x);
    if (immediate_operator(id) && !frame && x.encoding.imm_size > 0 &&
        x.encoding.imm_offset + x.encoding.imm_size <= b.size()) {
        const unsigned at = x.encoding.imm_offset, size = x.encoding.imm_size;
        for (const int delta : {+1, -1}) {
            std::vector<std::uint8_t> m = b;
            std::uint64_t v = 0;
            for (unsigned i = 0; i < size; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
            v += static_cast<std::uint64_t>(static_cast<std::int64_t>(delta));
            for (unsigned i = 0; i < size; ++i) m[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
            add(out, s, delta > 0 ? "imm_plus_one" : "imm_minus_one", std::move(m));
        }
    }
    // ADD <-> SUB, AND <-> OR: the group-1 immediate forms (80/81/83 /r) by their ModRM reg field,
    // the others by opcode (00-05 add, 28-2D sub, 20-25 and, 08-0D or).
    if (!frame && (id == X86_INS_ADD || id == X86_INS_SUB || id == X86_INS_AND || id == X86_INS_OR)) {
        std::vector<std::uint8_t> m = b;
        const std::uint8_t o = b[p];
        const char* op = id == X86_INS_ADD   ? "add_to_sub"
                         : id == X86_INS_SUB ? "sub_to_add"
                         : id == X86_INS_AND ? "and_to_or"
                                             : "or_to_and";
        if ((o == 0x80 || o == 0x81 || o == 0x83) && p + 1 < b.size()) {
            const unsigned reg = (b[p + 1] >> 3) & 7;
            const unsigned swapped = reg == 0 ? 5 : reg == 5 ? 0 : reg == 4 ? 1 : reg == 1 ? 4 : 8;
            if (swapped == 8) return;
            m[p + 1] = static_cast<std::uint8_t>((b[p + 1] & ~0x38) | (swapped << 3));
        } else if (o <= 0x05) {
            m[p] = static_cast<std::uint8_t>(o + 0x28);
        } else if (o >= 0x28 && o <= 0x2d) {
            m[p] = static_cast<std::uint8_t>(o - 0x28);
        } else if (o >= 0x20 && o <= 0x25) {
            m[p] = static_cast<std::uint8_t>(o - 0x18);
        } else if (o >= 0x08 && o <= 0x0d) {
            m[p] = static_cast<std::uint8_t>(o + 0x18);
        } else {
            return;
        }
        add(out, s, op, std::move(m));
    }
    if (is_store_mov(id) && x.op_count >= 1 && x.operands[0].type == X86_OP_MEM)
        add(out, s, "store_nop", std::vector<std::uint8_t>(b.size(), 0x90));
}

} // namespace

std::vector<Mutant> enumerate_mutants(const emu::Machine& machine,
                                      const std::vector<RoutineBlocks>& routines) {
    csh h = 0;
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &h) != CS_ERR_OK)
        throw std::runtime_error("Capstone: cannot open x86-32");
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn* insn = cs_malloc(h);
    std::vector<Mutant> out;
    for (const RoutineBlocks& r : routines) {
        for (const StaticBlock& block : r.blocks) {
            const std::vector<std::uint8_t> code = machine.read_bytes(block.address, block.size);
            const std::uint8_t* p = code.data();
            std::size_t left = code.size();
            std::uint64_t at = block.address;
            while (cs_disasm_iter(h, &p, &left, &at, insn)) {
                std::string text = insn->mnemonic;
                if (insn->op_str[0] != '\0') text += std::string(" ") + insn->op_str;
                Site s{&r, static_cast<std::uint32_t>(insn->address), std::move(text),
                       std::vector<std::uint8_t>(insn->bytes, insn->bytes + insn->size)};
                mutants_of(out, s, *insn);
            }
        }
    }
    cs_free(insn, 1);
    cs_close(&h);
    // Routines come in address order and blocks are sorted, so mutants already are; keep it stable.
    std::stable_sort(out.begin(), out.end(),
                     [](const Mutant& a, const Mutant& b) { return a.address < b.address; });
    return out;
}

} // namespace refcheck::harness
