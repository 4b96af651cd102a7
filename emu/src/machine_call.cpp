// Machine::call: one routine under a convention, an instruction budget and a wall-clock limit.
#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

// The block hook: coverage of the covered routines' blocks, then the instruction budget.
void on_block(uc_engine* uc, uint64_t address, uint32_t size, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (impl.trial) return;
    Address start = static_cast<Address>(address);
    if (impl.coverage_on && impl.in_coverage(start)) impl.coverage.record(start, size);
    if (!impl.budget_on) return;
    const Machine::Impl::BlockCount& e = impl.block_counts[Machine::Impl::block_slot(start)];
    uint32_t n = e.start == start && e.size == size ? e.count : impl.count_block(start, size);
    if (impl.executed + n > impl.budget) {
        impl.record_stop(FaultKind::budget_exceeded,
                         "instruction budget of " + with_commas(impl.budget) + " exceeded after " +
                             with_commas(impl.executed) + " instructions",
                         std::nullopt, static_cast<Address>(address));
        uc_emu_stop(uc);
        return;
    }
    impl.executed += n;
}

// Registers every call starts from: arguments aside, nothing leaks from the previous call.
void reset_registers(uc_engine* uc) {
    static const int ids[] = {UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
                              UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP, UC_X86_REG_EFLAGS};
    static const uint32_t values[] = {0, 0, 0, 0, 0, 0, 0, 0x202};
    static void* const ptrs[] = {const_cast<uint32_t*>(&values[0]), const_cast<uint32_t*>(&values[1]),
                                 const_cast<uint32_t*>(&values[2]), const_cast<uint32_t*>(&values[3]),
                                 const_cast<uint32_t*>(&values[4]), const_cast<uint32_t*>(&values[5]),
                                 const_cast<uint32_t*>(&values[6]), const_cast<uint32_t*>(&values[7])};
    uc_reg_write_batch(uc, const_cast<int*>(ids), const_cast<void* const*>(ptrs), 8);
}

} // namespace

uint32_t Machine::Impl::count_block(Address start, uint32_t size) {
    BlockCount& e = block_counts[block_slot(start)];
    uint8_t code[4096];
    uint32_t count = 1;
    if (size <= sizeof code && uc_mem_read(uc, start, code, size) == UC_ERR_OK)
        count = std::max<uint32_t>(1, static_cast<uint32_t>(disassembler.decode({code, size}, start).size()));
    e = {start, size, count};
    return count;
}

void Machine::Impl::update_block_hook() {
    const bool want = budget_on || coverage_on;
    if (want == (block_hook != 0)) return;
    if (want) {
        uc_hook_add(uc, &block_hook, UC_HOOK_BLOCK, reinterpret_cast<void*>(on_block), this, 1, 0);
    } else {
        uc_hook_del(uc, block_hook);
        block_hook = 0;
    }
    flush_all_translations(); // translated blocks carry (or lack) the block-hook call
}

void Machine::Impl::set_budget_hook(bool on) {
    budget_on = on;
    update_block_hook();
}

CallResult Machine::call(std::string_view routine, Convention c, std::initializer_list<uint32_t> args,
                         CallLimits limits) {
    return call(image().require(routine), c, std::span<const uint32_t>(args.begin(), args.size()), limits);
}

CallResult Machine::call(std::string_view routine, Convention c, std::span<const uint32_t> args,
                         CallLimits limits) {
    return call(image().require(routine), c, args, limits);
}

CallResult Machine::call(Address address, Convention c, std::span<const uint32_t> args, CallLimits limits) {
    Impl& m = *impl_;
    if (m.running) throw EmuError("Machine::call while another call is running");
    if (const std::string* name = m.symbols.name_at(address))
        m.routine = *name;
    else
        m.routine = hex(address);
    m.pending.set = false;
    bool block_budget = limits.instruction_budget != 0 && limits.budget_method == BudgetMethod::block_hook;
    uint64_t count = limits.instruction_budget != 0 && limits.budget_method == BudgetMethod::unicorn_count
                         ? limits.instruction_budget
                         : 0;
    m.set_budget_hook(block_budget);
    m.reclaim_translations(); // between runs only: never while a translated block executes
    m.budget = limits.instruction_budget;
    m.executed = 0;
    reset_registers(m.uc);
    m.reset_thread_state();
    write_call_frame(*this, c, args, m.stack.end, sentinel);

    CrashNote* note = crash_note();
    if (note) {
        size_t n = std::min(m.routine.size(), sizeof note->routine - 1);
        for (size_t i = 0; i < n; ++i) note->routine[i] = m.routine[i];
        note->routine[n] = '\0';
        note->in_call = 1;
        note_eip(address);
    }
    if (limits.wall_ms != 0) m.watchdog->arm(limits.wall_ms);
    m.running = true;
    uc_err err = uc_emu_start(m.uc, address, sentinel, 0, count);
    m.running = false;
    if (note) {
        note->in_call = 0;
        if (Address stopped = reg(Reg::eip); stopped != sentinel)
            note_eip(stopped); // where a stopped run stopped (a return leaves the last hook's EIP)
    }
    bool timed_out = limits.wall_ms != 0 && m.watchdog->disarm();

    CallResult result;
    if (block_budget) result.instructions = m.executed;
    Address eip = reg(Reg::eip);
    if (!m.pending.set && err != UC_ERR_OK) {
        if (err == UC_ERR_INSN_INVALID)
            m.record_stop(FaultKind::invalid_instruction, "invalid instruction", std::nullopt, eip);
        else
            m.record_stop(FaultKind::host_error, std::string("Unicorn: ") + uc_strerror(err));
    }
    if (!m.pending.set && eip != sentinel) {
        if (timed_out)
            m.record_stop(FaultKind::wall_limit,
                          "wall-clock limit of " + with_commas(limits.wall_ms) + " ms reached", std::nullopt,
                          eip);
        else if (count != 0)
            m.record_stop(FaultKind::budget_exceeded,
                          "instruction budget of " + with_commas(count) + " exceeded (Unicorn count)",
                          std::nullopt, eip);
        else if (is_mapped(eip - 1) && read_u8(eip - 1) == 0xf4)
            m.record_stop(FaultKind::halt, "hlt executed", std::nullopt, eip - 1);
        else
            m.record_stop(FaultKind::host_error, "the run stopped at " + hex(eip) + " for no known reason",
                          std::nullopt, eip);
    }
    if (!m.pending.set) {
        Address esp = reg(Reg::esp);
        uint32_t pops = caller_pops(c, static_cast<unsigned>(args.size()));
        set_reg(Reg::esp, esp + pops); // the caller's part of the clean-up
        if (esp + pops != m.stack.end) {
            int32_t off = static_cast<int32_t>(esp + pops - m.stack.end);
            m.record_stop(FaultKind::stack_imbalance,
                          "ESP is " + std::to_string(off) + " bytes off after the return: a " +
                              std::string(to_string(c)) + " routine with " + std::to_string(args.size()) +
                              " arguments should " +
                              (info(c).callee_pops
                                   ? "pop " + std::to_string(4 * stack_arg_count(c, args.size())) + " bytes"
                                   : "leave its arguments to the caller"),
                          std::nullopt, eip);
        }
    }
    result.eax = reg(Reg::eax);
    result.edx = reg(Reg::edx);
    if (m.pending.set) result.fault = m.make_fault(m.pending, eip);
    return result;
}

CallResult Machine::run_entry_until(Address until, CallLimits limits) {
    Impl& m = *impl_;
    const Address entry = image().entry;
    const std::string target = m.symbols.name_at(until) ? *m.symbols.name_at(until) : hex(until);
    bool reached = false;
    const HookId h = tap(until, [&reached, &target](Machine& machine) {
        reached = true;
        machine.stop(FaultKind::stopped, "boot reached " + target);
    });
    CallResult r = call(entry, Convention::cdecl, {}, limits);
    remove_hook(h);
    if (reached && r.fault && r.fault->kind == FaultKind::stopped) {
        r.fault.reset();
    } else if (!r.fault) {
        m.record_stop(FaultKind::stopped,
                      "the entry point " + hex(entry) + " returned without reaching " + target);
        r.fault = m.make_fault(m.pending, reg(Reg::eip));
    }
    return r;
}

} // namespace refcheck::emu
