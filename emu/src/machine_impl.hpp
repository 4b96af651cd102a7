// Internal state of a Machine (not installed with the public headers).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "refcheck/emu/crash_note.hpp"
#include "refcheck/emu/disasm.hpp"
#include "refcheck/emu/machine.hpp"
#include "watchdog.hpp"

namespace refcheck::emu {

// What stopped a run, as recorded by a callback before uc_emu_start returned.
struct PendingStop {
    bool set = false;
    FaultKind kind = FaultKind::host_error;
    std::string message;
    std::optional<Address> data_address;
    std::optional<Address> eip; // exact EIP when the callback knows it
};

enum class HookKind : uint8_t { replace, tap, watch };

struct HookRecord {
    Machine::Impl* impl = nullptr;
    HookKind kind = HookKind::tap;
    Range range;
    std::vector<uc_hook> handles;
    Convention convention = Convention::cdecl;
    unsigned nargs = 0;
    ReplaceFn replace;
    TapFn tap;
    WatchFn watch;
};

struct Thunk {
    std::string dll;
    std::string function;
    const win32::Shim* shim = nullptr; // null: the trap
    unsigned replaced = 0;             // replace() hooks on the thunk: neither shim nor trap runs
};

struct Machine::Impl {
    explicit Impl(Machine& self, MachineOptions options);
    ~Impl();

    Machine& self;
    uc_engine* uc = nullptr;
    MachineOptions options;

    // Guest memory is host memory the machine owns, handed to Unicorn with uc_mem_map_ptr, so that
    // the harness's reads of guest memory (a face's packet, vertices, the witness's tables: a
    // dozen reads per face) are a memcpy rather than a trip through Unicorn's address space.
    // Writes still go through uc_mem_write, which invalidates code translated from what changed.
    struct HostRegion {
        uint64_t begin = 0, end = 0; // guest range [begin, end)
        uint8_t* host = nullptr;     // mmap'ed, zero-filled like uc_mem_map's
    };
    std::vector<HostRegion> host_regions; // by begin
    mutable size_t last_region = 0;       // the region the last read found
    uc_err map(uint64_t begin, size_t size, uint32_t prot);
    void unmap(uint64_t begin, size_t size);
    // Host bytes of guest [a, a + n) when they lie in one region; null otherwise.
    const uint8_t* host(uint64_t a, size_t n) const {
        if (last_region < host_regions.size()) {
            const HostRegion& r = host_regions[last_region];
            if (a >= r.begin && a + n <= r.end) return r.host + (a - r.begin);
        }
        return host_slow(a, n);
    }
    const uint8_t* host_slow(uint64_t a, size_t n) const;
    // The pages' protections as Unicorn holds them (uc_mem_regions, sorted by begin), for the shims'
    // accesses on the guest's behalf; read again after a map, unmap or protect (protect()).
    mutable std::vector<uc_mem_region> protections;
    mutable bool protections_stale = true;
    void protect(uint64_t begin, size_t size, uint32_t prot);
    // The first address of [a, a + n) a guest access needing `perm` (UC_PROT_READ or UC_PROT_WRITE)
    // may not make, with the fault that access gives (read_/write_unmapped or _protected).
    std::optional<std::pair<Address, FaultKind>> refusal(uint64_t a, uint64_t n, uint32_t perm) const;
    Log log;
    SymbolTable symbols;
    GuestHeap heap;
    std::optional<DataRoot> data_root;
    win32::Kernel32State kernel32;
    win32::MsvcrtState msvcrt;
    Range stack{Machine::stack_base, Machine::stack_top};
    // Where a call's frame goes (Machine::call_stack_top): 0 for the stack's end; after a boot
    // (run_entry_until), below the start-up's frames.
    Address call_top = 0;
    Coverage coverage;
    Trace trace;
    Disassembler disassembler;
    std::optional<Image> image;

    // shim page
    std::vector<Thunk> thunks;
    uc_hook shim_hook = 0;
    Thunk* thunk_at(Address a) // the thunk starting exactly at `a`, if any
    {
        if (a < shim_base || a % thunk_size != 0 || (a - shim_base) / thunk_size >= thunks.size())
            return nullptr;
        return &thunks[(a - shim_base) / thunk_size];
    }

    // the run
    bool running = false;
    std::optional<std::string> sealed; // why no call may run any more (seal())
    std::string routine = "(none)";
    PendingStop pending;
    uc_hook invalid_hook = 0;
    uc_hook interrupt_hook = 0;
    std::unique_ptr<Watchdog> watchdog; // declared after uc: destroyed (joined) before uc_close

    // One block hook over all code, installed while a block-hook budget is on (on_block: adds up
    // the budget and records coverage, one call per block for both), while coverage counts
    // executions (on_execution without a budget), or while CoverageMode::blocks has outgrown the
    // ranged hooks below (on_cover_block without a budget: records each block once a generation).
    uc_hook block_hook = 0;
    void* block_callback = nullptr; // on_block, on_execution or on_cover_block
    bool budget_on = false, coverage_on = false;
    // CoverageMode::blocks without a budget had more covered starts than the ranged hooks can leave
    // out: from then on (until coverage is enabled again) the one block hook records coverage.
    bool cover_overflow = false;
    std::vector<Range> coverage_ranges; // merged, sorted: blocks recorded for coverage
    bool in_coverage(Address a) const {
        auto it = std::upper_bound(coverage_ranges.begin(), coverage_ranges.end(), a,
                                   [](Address x, const Range& r) { return x < r.begin; });
        return it != coverage_ranges.begin() && (it - 1)->contains(a);
    }
    // Adds or removes the block hook and the coverage hooks as the budget and coverage need them.
    void update_block_hook();

    // CoverageMode::blocks without the block hook: UC_HOOK_BLOCK hooks (on_cover) over the coverage
    // ranges minus the start addresses of covered blocks, so a covered block is translated without
    // a hook call. Unicorn compiles the call into a block only if a hook's range holds the block's
    // first address; every address not yet a covered block's start stays inside a hook's range.
    // At most max_cover_hooks hooks: Unicorn walks all of them on each hooked block, so with more
    // covered starts than they can leave out, the hooks give way to the one block hook
    // (cover_overflow), whose covered blocks cost a slot compare.
    static constexpr size_t max_cover_hooks = 64;
    std::vector<uc_hook> cover_hooks;
    bool cover_installed = false;
    uint64_t cover_generation = 0;       // Coverage::generation() the hooks were built for
    std::vector<Address> covered_starts; // sorted: every block recorded since that generation
    std::vector<Address> cover_excluded; // sorted: the covered starts the hooks leave out
    uint64_t cover_rebuilds = 0;         // hook sets built (for tests)
    uint64_t cover_retranslated = 0;     // translations dropped for a rebuild, since the last count
    // Rebuilds the coverage hooks if blocks were covered (or coverage cleared) since the last
    // build; `want`: whether they should exist at all; `flushed`: every translation already dropped.
    void update_cover_hooks(bool want, bool flushed);
    // Whether every covered start (with those first recorded since the last build) can be left out
    // of at most max_cover_hooks hooks.
    bool cover_hooks_fit() const;
    void add_cover_hook(Range r);
    uint64_t budget = 0;
    uint64_t executed = 0;
    // Instructions per translated block, direct-mapped by start address (decoded once with Capstone).
    struct BlockCount {
        Address start = 0;
        uint32_t size = 0;
        uint32_t count = 0;
        uint64_t covered = 0; // Coverage::generation() the block was recorded in (blocks mode; 0: none)
    };
    static constexpr size_t block_cache_size = 4096;
    std::vector<BlockCount> block_counts = std::vector<BlockCount>(block_cache_size);

    // hooks
    std::map<HookId, std::unique_ptr<HookRecord>> hooks;
    HookId next_hook = 1;
    std::vector<uc_hook> trace_hooks;
    std::vector<Range> trace_ranges;
    uc_hook stray_hook = 0;
    std::vector<std::string> strays;

    // exact-EIP search after a data fault
    bool trial = false;
    PendingStop trial_stop;
    uint32_t trial_steps = 0;
    std::vector<std::pair<Address, std::vector<uint8_t>>> undo;

    void record_stop(FaultKind kind, std::string message, std::optional<Address> data = std::nullopt,
                     std::optional<Address> eip = std::nullopt);
    void remove_cache(Range r);
    void flush_all_translations();
    // Translation buffer space (machine.cpp): reclaimed between runs after this many flushes of all.
    static constexpr uint32_t reclaim_after = 32;
    uint32_t invalidations = 0;
    // A memory watch came or went since the last reclaim (the flush it needs is followed by a
    // reclaim before the next run, whatever the count: see reclaim_translations).
    bool watch_flushed = false;
    void flush_for_watch() {
        flush_all_translations();
        watch_flushed = true;
    }
    uint64_t reclaims = 0;
    void reclaim_translations();
    static size_t block_slot(Address start) { return (start ^ (start >> 12)) % block_cache_size; }
    uint32_t count_block(Address start, uint32_t size); // decodes and caches (the slow path)
    void set_budget_hook(bool on);

    // machine_load.cpp
    void map_image(const std::filesystem::path& path, std::optional<Address> base);
    void place_around(Range image); // the stack and heap around the image (machine_layout.cpp)
    // machine_system.cpp: GDT, FS, TEB, PEB, runtime code and process data
    void map_system();
    void update_system();      // TEB stack fields, PEB image base (after the layout)
    void reset_thread_state(); // per call: fs:[0] = end of the SEH chain
    // machine_fault.cpp
    Fault make_fault(const PendingStop& stop, Address reported_eip);
    std::optional<std::pair<Address, Registers>> locate_data_fault(const PendingStop& stop, Address block);
    std::vector<StackFrame> call_stack(const Registers& regs) const;
    std::vector<std::string> disassembly_around(Address eip, Address hint_start) const;
};

// The address of the call instruction that returns to `ret`, if one is recognisable.
std::optional<Address> find_call_site(const Machine& m, Address ret);

// Unicorn callbacks never let a C++ exception cross into C: they turn it into a host_error stop.
template <class F>
void guarded(Machine::Impl& impl, F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        impl.record_stop(FaultKind::host_error, e.what());
        uc_emu_stop(impl.uc);
    } catch (...) {
        impl.record_stop(FaultKind::host_error, "a hook threw an exception that is not a std::exception");
        uc_emu_stop(impl.uc);
    }
}

// The crash note (crash_note.hpp), when the process keeps one: written at hook and call boundaries only.
inline void note_eip(uint64_t address) {
    if (CrashNote* n = crash_note()) {
        n->eip = static_cast<uint32_t>(address);
        n->known = 1;
    }
}

} // namespace refcheck::emu
