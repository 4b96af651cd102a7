// Hooks that cost nothing where they are not: replace and tap cover one address each (a code
// hook with begin = end), watches one range, coverage the given routines, the trace the given
// ranges. Unicorn decides at translation time whether a block calls a hook, so adding or removing
// one removes the translations of the range it covers (memory hooks change every block's memory
// path, so they flush everything).
#include <algorithm>

#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

void on_replace(uc_engine* uc, uint64_t address, uint32_t, void* user) {
    auto& rec = *static_cast<HookRecord*>(user);
    Machine::Impl& impl = *rec.impl;
    if (impl.trial) {
        uc_emu_stop(uc);
        return;
    }
    note_eip(address);
    guarded(impl, [&] {
        Args args(impl.self, rec.convention, rec.nargs);
        uint32_t eax = rec.replace(impl.self, args);
        if (!impl.pending.set)
            args.return_to_caller(eax); // writing EIP makes Unicorn continue at the return address
    });
}

void on_tap(uc_engine* uc, uint64_t address, uint32_t, void* user) {
    auto& rec = *static_cast<HookRecord*>(user);
    Machine::Impl& impl = *rec.impl;
    if (impl.trial) {
        uc_emu_stop(uc);
        return;
    }
    note_eip(address);
    guarded(impl, [&] { rec.tap(impl.self); });
}

void on_watch(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t value, void* user) {
    auto& rec = *static_cast<HookRecord*>(user);
    Machine::Impl& impl = *rec.impl;
    if (impl.trial) return;
    MemoryAccess access{type == UC_MEM_WRITE ? Access::write : Access::read, static_cast<Address>(address),
                        static_cast<uint32_t>(size), static_cast<uint64_t>(value), impl.self.reg(Reg::eip)};
    if (access.kind == Access::read) access.value = 0;
    guarded(impl, [&] { rec.watch(impl.self, access); });
}

void on_trace(uc_engine*, uint64_t address, uint32_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (!impl.trial) impl.trace.record(static_cast<Address>(address));
}

void on_stray(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (impl.trial) return;
    Address first = static_cast<Address>(address);
    Address last = first + static_cast<Address>(size) - 1;
    Address hit = 0;
    for (Address a : {first, last}) {
        const Allocation* in = impl.heap.containing(a);
        if ((in == nullptr && impl.heap.in_gap(a)) || (in != nullptr && in->freed)) {
            hit = a;
            break;
        }
    }
    if (hit == 0) return;
    Address eip = impl.self.reg(Reg::eip);
    std::string line = std::string(type == UC_MEM_WRITE ? "stray write" : "stray read") + " of " +
                       std::to_string(size) + " bytes by " + hex(eip) + " <" + impl.symbols.describe(eip) +
                       "> in " + impl.routine + ": " + impl.heap.describe(hit);
    impl.log.write(line);
    impl.strays.push_back(std::move(line));
}

std::vector<Range> merged(std::vector<Range> ranges) {
    std::sort(ranges.begin(), ranges.end(), [](Range a, Range b) { return a.begin < b.begin; });
    std::vector<Range> out;
    for (Range r : ranges) {
        if (r.end <= r.begin) continue;
        if (!out.empty() && r.begin <= out.back().end)
            out.back().end = std::max(out.back().end, r.end);
        else
            out.push_back(r);
    }
    return out;
}

} // namespace

HookId Machine::replace(Address address, Convention c, unsigned nargs, ReplaceFn fn) {
    auto rec = std::make_unique<HookRecord>();
    rec->impl = impl_.get();
    rec->kind = HookKind::replace;
    rec->range = {address, address + 1};
    rec->convention = c;
    rec->nargs = nargs;
    rec->replace = std::move(fn);
    uc_hook h = 0;
    uc_hook_add(impl_->uc, &h, UC_HOOK_CODE, reinterpret_cast<void*>(on_replace), rec.get(), address,
                address);
    rec->handles.push_back(h);
    impl_->remove_cache(rec->range);
    if (Thunk* t = impl_->thunk_at(address)) ++t->replaced;
    HookId id = impl_->next_hook++;
    impl_->hooks.emplace(id, std::move(rec));
    return id;
}

HookId Machine::tap(Address address, TapFn fn) {
    auto rec = std::make_unique<HookRecord>();
    rec->impl = impl_.get();
    rec->kind = HookKind::tap;
    rec->range = {address, address + 1};
    rec->tap = std::move(fn);
    uc_hook h = 0;
    uc_hook_add(impl_->uc, &h, UC_HOOK_CODE, reinterpret_cast<void*>(on_tap), rec.get(), address, address);
    rec->handles.push_back(h);
    impl_->remove_cache(rec->range);
    HookId id = impl_->next_hook++;
    impl_->hooks.emplace(id, std::move(rec));
    return id;
}

HookId Machine::watch(Range range, Access access, WatchFn fn) {
    if (range.end <= range.begin) throw EmuError("watch over an empty range");
    auto rec = std::make_unique<HookRecord>();
    rec->impl = impl_.get();
    rec->kind = HookKind::watch;
    rec->range = range;
    rec->watch = std::move(fn);
    for (auto [bit, type] :
         {std::pair{Access::read, UC_HOOK_MEM_READ}, std::pair{Access::write, UC_HOOK_MEM_WRITE}}) {
        if (!has(access, bit)) continue;
        uc_hook h = 0;
        uc_hook_add(impl_->uc, &h, type, reinterpret_cast<void*>(on_watch), rec.get(), range.begin,
                    range.end - 1);
        rec->handles.push_back(h);
    }
    impl_->flush_for_watch();
    HookId id = impl_->next_hook++;
    impl_->hooks.emplace(id, std::move(rec));
    return id;
}

void Machine::remove_hook(HookId id) {
    auto it = impl_->hooks.find(id);
    if (it == impl_->hooks.end()) throw EmuError("no hook #" + std::to_string(id));
    for (uc_hook h : it->second->handles) uc_hook_del(impl_->uc, h);
    if (it->second->kind == HookKind::replace)
        if (Thunk* t = impl_->thunk_at(it->second->range.begin)) --t->replaced;
    if (it->second->kind == HookKind::watch)
        impl_->flush_for_watch();
    else
        impl_->remove_cache(it->second->range);
    impl_->hooks.erase(it);
}

void Machine::enable_coverage(std::vector<Routine> routines, CoverageMode mode) {
    disable_coverage();
    std::vector<Range> ranges;
    ranges.reserve(routines.size());
    for (const Routine& r : routines) ranges.push_back(r.range);
    impl_->coverage.set_routines(std::move(routines), mode);
    impl_->coverage.clear();
    impl_->coverage_ranges = merged(ranges);
    impl_->coverage_on = true;
    impl_->cover_overflow = false; // the ranged hooks first, while the covered starts fit them
    impl_->update_block_hook();    // the hooks (machine_call.cpp) that record the covered ranges' blocks
}

void Machine::disable_coverage() {
    impl_->coverage_on = false;
    impl_->cover_overflow = false;
    impl_->coverage_ranges.clear();
    impl_->update_block_hook();
}

void Machine::enable_trace(size_t capacity, std::vector<Range> ranges) {
    disable_trace();
    if (ranges.empty() && impl_->image)
        for (const ImageSection& s : impl_->image->sections)
            if (s.executable) ranges.push_back(s.range);
    impl_->trace.reset(capacity);
    impl_->trace_ranges = merged(ranges);
    for (Range r : impl_->trace_ranges) {
        uc_hook h = 0;
        uc_hook_add(impl_->uc, &h, UC_HOOK_CODE, reinterpret_cast<void*>(on_trace), impl_.get(), r.begin,
                    r.end - 1);
        impl_->trace_hooks.push_back(h);
        impl_->remove_cache(r);
    }
}

void Machine::disable_trace() {
    for (uc_hook h : impl_->trace_hooks) uc_hook_del(impl_->uc, h);
    for (Range r : impl_->trace_ranges) impl_->remove_cache(r);
    impl_->trace_hooks.clear();
    impl_->trace_ranges.clear();
}

std::vector<std::string> Machine::disassemble_trace(size_t n) const {
    std::vector<std::string> out;
    for (Address a : impl_->trace.last(n)) {
        std::vector<std::string> one = disassemble(a, 1);
        out.push_back(one.empty() ? hex(a) + ": (not decodable)" : one.front());
    }
    return out;
}

void Machine::watch_heap_strays(bool on) {
    if (on == (impl_->stray_hook != 0)) return;
    if (on)
        uc_hook_add(impl_->uc, &impl_->stray_hook, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE,
                    reinterpret_cast<void*>(on_stray), impl_.get(), impl_->heap.region().begin,
                    impl_->heap.region().end - 1);
    else {
        uc_hook_del(impl_->uc, impl_->stray_hook);
        impl_->stray_hook = 0;
    }
    impl_->flush_for_watch();
}

} // namespace refcheck::emu
