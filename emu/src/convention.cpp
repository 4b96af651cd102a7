#include "refcheck/emu/convention.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "refcheck/emu/machine.hpp"

namespace refcheck::emu {

namespace {
constexpr Reg fastcall_registers[] = {Reg::ecx, Reg::edx};
constexpr Reg watcall_registers[] = {Reg::eax, Reg::edx, Reg::ebx, Reg::ecx};
} // namespace

const ConventionInfo& info(Convention c) {
    static const ConventionInfo cdecl_info{{}, false};
    static const ConventionInfo stdcall_info{{}, true};
    static const ConventionInfo fastcall_info{fastcall_registers, true};
    static const ConventionInfo watcall_info{watcall_registers, true};
    switch (c) {
        case Convention::cdecl: return cdecl_info;
        case Convention::stdcall: return stdcall_info;
        case Convention::fastcall: return fastcall_info;
        case Convention::watcall: return watcall_info;
    }
    return cdecl_info;
}

unsigned stack_arg_count(Convention c, unsigned nargs) {
    unsigned in_registers = static_cast<unsigned>(info(c).register_args.size());
    return nargs > in_registers ? nargs - in_registers : 0;
}

uint32_t caller_pops(Convention c, unsigned nargs) {
    return info(c).callee_pops ? 0 : 4 * stack_arg_count(c, nargs);
}

Args::Args(Machine& machine, Convention convention, unsigned count)
    : machine_(machine), convention_(convention), count_(count), esp_(machine.reg(Reg::esp)) {}

uint32_t Args::u32(unsigned i) const {
    if (i >= count_)
        throw EmuError("argument " + std::to_string(i) + " read, but the routine takes " +
                       std::to_string(count_));
    auto regs = info(convention_).register_args;
    if (i < regs.size()) return machine_.reg(regs[i]);
    return machine_.read_u32(esp_ + 4 + 4 * static_cast<uint32_t>(i - regs.size()));
}

std::string Args::cstring(unsigned i, size_t max) const { return machine_.read_cstring(u32(i), max); }

Address Args::return_address() const { return machine_.read_u32(esp_); }

void Args::return_to_caller(uint32_t eax) const {
    Address ret = return_address();
    uint32_t popped = info(convention_).callee_pops ? 4 * stack_arg_count(convention_, count_) : 0;
    machine_.set_reg(Reg::eax, eax);
    machine_.set_reg(Reg::esp, esp_ + 4 + popped);
    machine_.set_reg(Reg::eip, ret);
}

Address write_call_frame(Machine& machine, Convention c, std::span<const uint32_t> args, Address stack_top,
                         Address return_address) {
    auto regs = info(c).register_args;
    size_t in_registers = std::min(args.size(), regs.size());
    for (size_t i = 0; i < in_registers; ++i) machine.set_reg(regs[i], args[i]);
    size_t on_stack = args.size() - in_registers;
    Address esp = stack_top - static_cast<Address>(4 * (on_stack + 1));
    // [esp] = return address, then the stack arguments left to right (pushed right to left).
    std::array<uint32_t, 17> small{};
    std::vector<uint32_t> large;
    uint32_t* frame = small.data();
    if (on_stack + 1 > small.size()) {
        large.resize(on_stack + 1);
        frame = large.data();
    }
    frame[0] = return_address;
    for (size_t i = 0; i < on_stack; ++i) frame[i + 1] = args[in_registers + i];
    machine.write(esp, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(frame), 4 * (on_stack + 1)));
    machine.set_reg(Reg::esp, esp);
    return esp;
}

} // namespace refcheck::emu
