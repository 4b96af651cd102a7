// Machine::call: one routine under a convention, an instruction budget and a wall-clock limit.
#include <iterator>
#include <stdexcept>

#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

// A coverage hook (CoverageMode::blocks): its range holds only blocks that were not covered when
// the hooks were last built, all inside the coverage ranges.
void on_cover(uc_engine*, uint64_t address, uint32_t size, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (!impl.trial) impl.coverage.record(static_cast<Address>(address), size);
}

// The block hook without a budget (CoverageMode::executions): every execution recorded.
void on_execution(uc_engine*, uint64_t address, uint32_t size, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (impl.trial) return;
    Address start = static_cast<Address>(address);
    if (impl.in_coverage(start)) impl.coverage.record(start, size);
}

// on_block's rare cases, kept out of its body so that the hot path needs no saved registers: a
// block not yet decoded (or another block in its slot), coverage to record, a trial run, and the
// budget's overrun.
[[gnu::noinline, gnu::cold]] void on_block_slow(uc_engine* uc, Address start, uint32_t size,
                                                Machine::Impl& impl) {
    if (impl.trial) return;
    Machine::Impl::BlockCount* e = &impl.block_counts[Machine::Impl::block_slot(start)];
    if (e->start != start || e->size != size) {
        impl.count_block(start, size);
        e = &impl.block_counts[Machine::Impl::block_slot(start)];
    }
    const uint32_t n = e->count;
    if (impl.coverage_on && e->covered != impl.coverage.generation()) {
        if (impl.in_coverage(start)) impl.coverage.record(start, size);
        // CoverageMode::blocks: recorded once per generation (clear() starts a new one) is enough.
        if (impl.coverage.mode() == CoverageMode::blocks) e->covered = impl.coverage.generation();
    }
    if (impl.executed + n > impl.budget) {
        impl.record_stop(FaultKind::budget_exceeded,
                         "instruction budget of " + with_commas(impl.budget) + " exceeded after " +
                             with_commas(impl.executed) + " instructions",
                         std::nullopt, start);
        uc_emu_stop(uc);
        return;
    }
    impl.executed += n;
}

// The block hook with a budget: coverage of the covered routines' blocks, then the budget. The
// common case (a decoded block, already covered in this generation or coverage off, within the
// budget, no trial) is a slot compare and an add; everything else is on_block_slow.
void on_block(uc_engine* uc, uint64_t address, uint32_t size, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    const auto start = static_cast<Address>(address);
    const Machine::Impl::BlockCount& e = impl.block_counts[Machine::Impl::block_slot(start)];
    const uint64_t after = impl.executed + e.count;
    if (e.start != start || e.size != size || impl.trial || after > impl.budget ||
        (impl.coverage_on && e.covered != impl.coverage.generation())) [[unlikely]] {
        on_block_slow(uc, start, size, impl);
        return;
    }
    impl.executed = after;
}

// on_cover_block's rare case: a block not yet decoded (or another block in its slot), or not yet
// recorded in this coverage generation. Decoded as for the budget, so the slot's count stays right.
[[gnu::noinline, gnu::cold]] void cover_block_slow(Address start, uint32_t size, Machine::Impl& impl) {
    if (impl.trial) return;
    Machine::Impl::BlockCount* e = &impl.block_counts[Machine::Impl::block_slot(start)];
    if (e->start != start || e->size != size) {
        impl.count_block(start, size);
        e = &impl.block_counts[Machine::Impl::block_slot(start)];
    }
    if (impl.in_coverage(start)) impl.coverage.record(start, size);
    e->covered = impl.coverage.generation();
}

// The block hook of CoverageMode::blocks without a budget once the ranged hooks are outgrown: a
// block already recorded in this generation costs a slot compare.
void on_cover_block(uc_engine*, uint64_t address, uint32_t size, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    const auto start = static_cast<Address>(address);
    const Machine::Impl::BlockCount& e = impl.block_counts[Machine::Impl::block_slot(start)];
    if (e.start != start || e.size != size || e.covered != impl.coverage.generation()) [[unlikely]]
        cover_block_slow(start, size, impl);
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
    e = {start, size, count, 0};
    return count;
}

void Machine::Impl::update_block_hook() {
    const bool blocks_mode = coverage_on && coverage.mode() == CoverageMode::blocks;
    // The ranged hooks record coverage while no budget is on and the covered starts fit them.
    bool ranged = blocks_mode && !budget_on && !cover_overflow;
    if (ranged && !cover_hooks_fit()) {
        cover_overflow = true;
        ranged = false;
    }
    const bool want = budget_on || (coverage_on && !ranged);
    void* const callback = budget_on     ? reinterpret_cast<void*>(on_block)
                           : blocks_mode ? reinterpret_cast<void*>(on_cover_block)
                                         : reinterpret_cast<void*>(on_execution);
    bool flushed = false;
    if (want != (block_hook != 0)) {
        if (want) {
            uc_hook_add(uc, &block_hook, UC_HOOK_BLOCK, callback, this, 1, 0);
        } else {
            uc_hook_del(uc, block_hook);
            block_hook = 0;
        }
        flush_all_translations(); // translated blocks carry (or lack) the block-hook call
        flushed = true;
    } else if (want && callback != block_callback) {
        // Another callback over the same range: every block already calls the helper, which looks
        // the hooks up on each run, so no translation changes.
        uc_hook_del(uc, block_hook);
        uc_hook_add(uc, &block_hook, UC_HOOK_BLOCK, callback, this, 1, 0);
    }
    block_callback = want ? callback : nullptr;
    // While the block hook is on it records coverage itself: the ranged hooks would only add calls.
    update_cover_hooks(ranged, flushed);
}

bool Machine::Impl::cover_hooks_fit() const {
    // Each left-out start splits a range in two: room for max_cover_hooks hooks in all. The fresh
    // starts are new to this generation's covered starts (a clear forgets those).
    const size_t room =
        max_cover_hooks > coverage_ranges.size() ? max_cover_hooks - coverage_ranges.size() : 0;
    const bool cleared = coverage.generation() != cover_generation;
    return (cleared ? 0 : covered_starts.size()) + coverage.fresh_count() <= room;
}

void Machine::Impl::update_cover_hooks(bool want, bool flushed) {
    auto drop_hooks = [&] {
        for (uc_hook h : cover_hooks) uc_hook_del(uc, h);
        cover_hooks.clear();
    };
    if (!want) {
        if (!cover_installed) return;
        drop_hooks();
        cover_installed = false;
        cover_excluded.clear();
        if (!flushed) flush_all_translations(); // no block keeps a call to a removed hook
        return;
    }
    const bool cleared = coverage.generation() != cover_generation;
    std::vector<Address> fresh = coverage.take_fresh();
    if (cover_installed && !cleared && fresh.empty()) return;
    if (cleared) {
        covered_starts.clear();
        cover_generation = coverage.generation();
    }
    std::sort(fresh.begin(), fresh.end());
    const size_t before = covered_starts.size();
    covered_starts.insert(covered_starts.end(), fresh.begin(), fresh.end());
    std::inplace_merge(covered_starts.begin(), covered_starts.begin() + static_cast<std::ptrdiff_t>(before),
                       covered_starts.end());
    covered_starts.erase(std::unique(covered_starts.begin(), covered_starts.end()), covered_starts.end());

    // Every covered start is left out (cover_hooks_fit: they fit in max_cover_hooks hooks).
    std::vector<Address> excluded = covered_starts;
    if (cover_installed && !cleared && excluded == cover_excluded) return;

    // Translations to drop: a start newly left out still carries the hook call (only a cost); after
    // a clear, a start left out before lacks it and must be translated with it again (correctness).
    if (!flushed && cover_installed) {
        auto drop = [&](Address a) {
            remove_cache({a, a + 1});
            ++cover_retranslated;
        };
        std::vector<Address> changed;
        std::set_difference(excluded.begin(), excluded.end(), cover_excluded.begin(), cover_excluded.end(),
                            std::back_inserter(changed));
        if (cleared)
            std::set_difference(cover_excluded.begin(), cover_excluded.end(), excluded.begin(),
                                excluded.end(), std::back_inserter(changed));
        for (Address a : changed) drop(a);
        // Removed translations keep their space until a full flush (reclaim_translations): count
        // a batch of them as one invalidation of everything.
        if (cover_retranslated >= 512) {
            cover_retranslated = 0;
            ++invalidations;
        }
    }
    drop_hooks();
    for (Range r : coverage_ranges) {
        Address from = r.begin;
        auto it = std::lower_bound(excluded.begin(), excluded.end(), r.begin);
        for (; it != excluded.end() && *it < r.end; ++it) {
            if (from < *it) add_cover_hook({from, *it});
            from = *it + 1;
        }
        if (from < r.end) add_cover_hook({from, r.end});
    }
    if (!flushed && !cover_installed) flush_all_translations(); // blocks translated without the hooks
    cover_excluded = std::move(excluded);
    cover_installed = true;
    ++cover_rebuilds;
}

void Machine::Impl::add_cover_hook(Range r) {
    uc_hook h = 0;
    uc_hook_add(uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(on_cover), this, r.begin, r.end - 1);
    cover_hooks.push_back(h);
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

void Machine::seal(std::string why) { impl_->sealed = std::move(why); }

bool Machine::sealed() const { return impl_->sealed.has_value(); }

// Not EmuError: a sealed machine asked to run is the caller's mistake, not the guest's or the host's.
static void refuse_if_sealed(const Machine::Impl& m, Address address) {
    if (!m.sealed) return;
    const std::string* name = m.symbols.name_at(address);
    throw std::logic_error("the machine cannot run " + (name ? *name : hex(address)) +
                           " any more: " + *m.sealed);
}

CallResult Machine::call(Address address, Convention c, std::span<const uint32_t> args, CallLimits limits) {
    Impl& m = *impl_;
    refuse_if_sealed(m, address);
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
    const Address top = call_stack_top();
    write_call_frame(*this, c, args, top, sentinel);

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
    if (m.coverage_on) m.update_block_hook(); // blocks covered by this run leave the hooks' ranges
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
        if (esp + pops != top) {
            int32_t off = static_cast<int32_t>(esp + pops - top);
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
    refuse_if_sealed(m, entry); // before the tap below is installed
    const std::string target = m.symbols.name_at(until) ? *m.symbols.name_at(until) : hex(until);
    bool reached = false;
    Address stopped_at = 0; // ESP at `until`: the start-up's frames are above it
    const HookId h = tap(until, [&reached, &stopped_at, &target](Machine& machine) {
        reached = true;
        stopped_at = machine.reg(Reg::esp);
        machine.stop(FaultKind::stopped, "boot reached " + target);
    });
    m.call_top = 0; // a boot starts at the stack's end
    CallResult r = call(entry, Convention::cdecl, {}, limits);
    remove_hook(h);
    if (reached && r.fault && r.fault->kind == FaultKind::stopped) {
        r.fault.reset();
        m.call_top = stopped_at & ~Address{15};
    } else if (!r.fault) {
        m.record_stop(FaultKind::stopped,
                      "the entry point " + hex(entry) + " returned without reaching " + target);
        r.fault = m.make_fault(m.pending, reg(Reg::eip));
    }
    return r;
}

} // namespace refcheck::emu
