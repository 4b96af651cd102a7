#include "refcheck/emu/types.hpp"

#include <cstdio>

namespace refcheck::emu {

uint32_t Registers::get(Reg r) const {
    switch (r) {
        case Reg::eax: return eax;
        case Reg::ebx: return ebx;
        case Reg::ecx: return ecx;
        case Reg::edx: return edx;
        case Reg::esi: return esi;
        case Reg::edi: return edi;
        case Reg::ebp: return ebp;
        case Reg::esp: return esp;
        case Reg::eip: return eip;
        case Reg::eflags: return eflags;
    }
    return 0;
}

std::string Registers::to_string() const {
    char buf[200];
    std::snprintf(
        buf, sizeof buf,
        "eax=%08x ebx=%08x ecx=%08x edx=%08x esi=%08x edi=%08x ebp=%08x esp=%08x eip=%08x eflags=%08x", eax,
        ebx, ecx, edx, esi, edi, ebp, esp, eip, eflags);
    return buf;
}

std::string_view to_string(Convention c) {
    switch (c) {
        case Convention::cdecl: return "cdecl";
        case Convention::stdcall: return "stdcall";
        case Convention::fastcall: return "fastcall";
        case Convention::watcall: return "watcall";
    }
    return "?";
}

std::string hex(uint32_t value) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", value);
    return buf;
}

std::string with_commas(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace refcheck::emu
