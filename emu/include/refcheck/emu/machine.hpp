// The x86-32 machine: one Unicorn engine, one PE32 image, the Win32 shims, the guest heap, the
// data root, hooks, coverage and the instruction trace. Knows nothing about 3D models.
//
// Guest address space (the layout is computed from the loaded image: heap and stack go around it):
//   0x00000000-0x0000ffff  unmapped (null-pointer accesses fault)
//   image                  at its preferred base or where asked (load's `base`), anywhere in the
//                          32-bit space that is not the null page or the system region
//   stack                  1 MiB, grows down; below it one unmapped page. 0x00200000-0x002fffff
//                          unless the image lies there (stack_base/stack_top are that default);
//                          then the first free 1 MiB-aligned slot from 0x00100000 up. stack().
//   guest heap             0x10000000-0x2fffffff (GuestHeap, mapped as it grows) unless the image
//                          or the stack lies there; then the largest free gap (1 MiB-aligned, at
//                          most 512 MiB). heap().region().
//   0x7ffd0000-0x7ffdffff  the system region: GDT, runtime code (msvcrt's _initterm loop),
//                          process data (argv, errno, FILE objects), TEB at 0x7ffde000 (FS's
//                          base: fs:[0] ExceptionList, fs:[0x18] Self, fs:[0x30] PEB) and PEB
//                          at 0x7ffdf000 (ImageBaseAddress, ProcessHeap)
//   0x7ffe0000-0x7ffeffff  shim page: one 8-byte thunk per import, the call sentinel at the end
//
// Cost model: the default call path installs no per-instruction and no per-block hook. The shim
// page has one ranged code hook that fires only when guest code executes there; replace/tap hooks
// cover one address each; coverage and trace hooks exist only while enabled, and coverage's
// (CoverageMode::blocks) only over block starts not yet covered: a covered block runs without a
// hook call from the call after the one that covered it, until more blocks are covered than 64
// ranged hooks can leave out; then one block hook, for which a covered block is a slot compare
// (docs/architecture.md, emu/ coverage). Memory watches are
// the exception: while any watch (or watch_heap_strays) is installed, Unicorn takes its slow path
// for every guest memory access (about 10x on memory-bound code) — a Unicorn property.
#pragma once

#include <unicorn/unicorn.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refcheck/emu/convention.hpp"
#include "refcheck/emu/coverage.hpp"
#include "refcheck/emu/data_root.hpp"
#include "refcheck/emu/fault.hpp"
#include "refcheck/emu/heap.hpp"
#include "refcheck/emu/image.hpp"
#include "refcheck/emu/log.hpp"
#include "refcheck/emu/symbols.hpp"
#include "refcheck/emu/trace.hpp"
#include "refcheck/emu/types.hpp"
#include "refcheck/emu/win32.hpp"

namespace refcheck::emu {

struct MachineOptions {
    std::filesystem::path data_root; // empty: every file open is refused
    std::string mount = "C:\\";      // the Windows folder the data root appears as
    bool writable_data_root = false; // allow CreateFileA for writing inside the root
};

// How an instruction budget is enforced (only when CallLimits::instruction_budget != 0).
//  block_hook:    a UC_HOOK_BLOCK over all code adds each block's instruction count (decoded
//                 once per block with Capstone, cached); the run stops at the first block that
//                 would exceed the budget. Installed for budgeted calls (adding or removing it
//                 flushes the translation cache once). While it is on it also records coverage
//                 (one call per block for both; the ranged coverage hooks are removed meanwhile).
//                 CoverageMode::executions uses the same hook without a budget. The default.
//  unicorn_count: uc_emu_start's own `count`, which installs a per-instruction code hook inside
//                 Unicorn: exact to the instruction, much slower (see emu_bench).
enum class BudgetMethod : uint8_t { block_hook, unicorn_count };

struct CallLimits {
    uint64_t instruction_budget = 0; // 0: unlimited, and no hook at all
    uint32_t wall_ms = 10000;        // 0: none. Enforced by one watchdog thread per machine
                                     // (not uc_emu_start's timeout, which starts a thread per call)
    BudgetMethod budget_method = BudgetMethod::block_hook;
};

struct CallResult {
    std::optional<Fault> fault;
    uint32_t eax = 0;
    uint32_t edx = 0;
    std::optional<uint64_t> instructions; // known when a budget was counted
    bool ok() const { return !fault.has_value(); }
    uint64_t edx_eax() const { return (uint64_t{edx} << 32) | eax; }
};

using HookId = uint32_t;
// A replacement: reads its arguments, returns EAX; the machine returns to the caller per the
// convention. It may call Machine::stop to end the run instead.
using ReplaceFn = std::function<uint32_t(Machine&, const Args&)>;
using TapFn = std::function<void(Machine&)>;

struct MemoryAccess {
    Access kind = Access::read;
    Address address = 0;
    uint32_t size = 0;
    uint64_t value = 0; // the value written (writes only)
    Address eip = 0;    // the accessing instruction
};
using WatchFn = std::function<void(Machine&, const MemoryAccess&)>;

// A copy of a machine's guest state (Machine::snapshot): every mapped byte, the CPU's registers
// (general, segment, flags, FPU and SSE, through uc_context_save), the heap's bookkeeping, and
// kernel32's and msvcrt's state (handles and their file offsets, search handles, last error, the
// deterministic clocks, exit callbacks). Not in it, on purpose: what the host keeps about the
// run (hooks, coverage, the trace, the log, the data root's access list, instruction totals).
class Snapshot {
public:
    Snapshot(Snapshot&&) noexcept;
    Snapshot& operator=(Snapshot&&) noexcept;
    ~Snapshot();
    size_t bytes() const; // guest bytes held

    struct Data;

private:
    friend class Machine;
    explicit Snapshot(std::unique_ptr<Data> d);
    std::unique_ptr<Data> d_;
};

// What a restore did (for tests and benchmarks).
struct RestoreStats {
    uint64_t pages_written = 0;    // 4 KiB pages that differed from the snapshot and were put back
    uint64_t regions_unmapped = 0; // regions mapped after the snapshot (heap growth), unmapped
    uint64_t files_closed = 0;     // guest files opened after the snapshot, closed
};

class Machine {
public:
    // Where the stack is when the image leaves it free (the stand-in, the test image); stack()
    // says where it is for the loaded image.
    static constexpr Address stack_base = 0x00200000;
    static constexpr Address stack_top = 0x00300000;
    static constexpr uint32_t stack_size = stack_top - stack_base;
    static constexpr Address system_base = 0x7ffd0000;
    static constexpr Address teb_address = 0x7ffde000;
    static constexpr Address peb_address = 0x7ffdf000;
    static constexpr Address shim_base = 0x7ffe0000;
    static constexpr uint32_t shim_size = 0x10000;
    static constexpr uint32_t thunk_size = 8;
    static constexpr Address sentinel = shim_base + shim_size - 16; // return address of call()

    explicit Machine(MachineOptions options = {});
    ~Machine();
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;

    // Loads a PE32 (once per machine). `base`: load there instead of the preferred base
    // (relocations applied). Throws EmuError for a bad file.
    const Image& load(const std::filesystem::path& pe, std::optional<Address> base = std::nullopt);
    const Image& image() const;
    // The stack as placed around the loaded image ([begin, end)).
    Range stack() const;
    // Where a call()'s frame is written below (its ESP, on return, is back there): the stack's end,
    // or after a successful run_entry_until the boot's ESP where it stopped (16-byte aligned), so
    // that the calls after a boot leave the start-up's frames as it left them (a runtime may keep
    // its thread data there: Open Watcom's stack bound and errno).
    Address call_stack_top() const;
    // The shim-page thunk an import of the image is bound to ("msvcrt.dll", "malloc"; DLL name
    // case-insensitive). replace() on it replaces the import: the shim or the trap no longer runs.
    std::optional<Address> import_thunk(std::string_view dll, std::string_view function) const;

    // Calls one routine: arguments set per the convention, return to `sentinel`, run under the
    // limits. Never throws for guest misbehaviour: the fault is in the result and the machine is
    // ready for the next call.
    CallResult call(Address address, Convention c, std::span<const uint32_t> args, CallLimits limits = {});
    CallResult call(Address address, Convention c, std::initializer_list<uint32_t> args,
                    CallLimits limits = {}) {
        return call(address, c, std::span<const uint32_t>(args.begin(), args.size()), limits);
    }
    // By export or symbol name of the image (throws EmuError if unknown).
    CallResult call(std::string_view routine, Convention c, std::initializer_list<uint32_t> args,
                    CallLimits limits = {});
    CallResult call(std::string_view routine, Convention c, std::span<const uint32_t> args,
                    CallLimits limits = {});
    // Boot mode: runs the image's entry point (its C runtime's start-up, called with no arguments)
    // until EIP reaches `until`, the routine the runtime hands over to (main, WinMain), and stops
    // there before that routine's first instruction. What start-up did stays for the calls that
    // follow: its heap, __getmainargs' argc/argv, the initialisers _initterm ran, its globals.
    // Reaching `until` is success (no fault); a return, exit() or any fault before it is the
    // result's fault (a return is `stopped`, saying `until` was never reached).
    CallResult run_entry_until(Address until, CallLimits limits = {});
    // After seal(why), call() and run_entry_until() throw std::logic_error naming the routine and
    // `why`, running nothing: for an owner whose hooks hold objects that are gone (a finished case).
    // Reading memory and registers stays allowed. Sealing is for good: nothing unseals.
    void seal(std::string why);
    bool sealed() const;
    // The routine named by the running (or last) call(): symbol name, or its address in hex.
    const std::string& current_routine() const;
    // From a hook or shim: ends the current run with a fault of this kind.
    void stop(FaultKind kind, std::string message);

    // Hooks. Each covers exactly its address or range (translation cache removed there).
    HookId replace(Address address, Convention c, unsigned nargs, ReplaceFn fn);
    HookId tap(Address address, TapFn fn);
    HookId watch(Range range, Access access, WatchFn fn);
    void remove_hook(HookId id);

    // Guest memory from the host (EmuError if unmapped).
    uint8_t read_u8(Address a) const;
    uint16_t read_u16(Address a) const;
    uint32_t read_u32(Address a) const;
    void read(Address a, std::span<uint8_t> out) const;
    std::vector<uint8_t> read_bytes(Address a, size_t n) const;
    std::string read_cstring(Address a, size_t max = 4096) const;
    // A write over code (an executable section, the shim page) drops the translations there, so
    // patched code runs as written even after it was translated.
    void write(Address a, std::span<const uint8_t> bytes);
    void write_u8(Address a, uint8_t v);
    void write_u16(Address a, uint16_t v);
    void write_u32(Address a, uint32_t v);
    bool is_mapped(Address a) const;

    // Guest memory on the guest's behalf (the shims): as a guest load or store would, these honour
    // the pages' protection. An access to an unmapped page, or to one whose protection forbids it,
    // throws GuestMemoryFault naming the first address refused, before a byte moves. read/write above
    // are the host's own (loading, setting up a call, the harness) and ignore protection.
    void guest_read(Address a, std::span<uint8_t> out) const;
    std::vector<uint8_t> guest_read_bytes(Address a, size_t n) const;
    uint32_t guest_read_u32(Address a) const;
    void guest_write(Address a, std::span<const uint8_t> bytes);
    void guest_write_u16(Address a, uint16_t v);
    void guest_write_u32(Address a, uint32_t v);
    // The guest's NUL-terminated string at `a` when its terminator lies within `max` bytes (the NUL
    // counted); nullopt when it does not (nothing past those `max` bytes is read). Reads stop at the
    // terminator: a string ending just before an unmapped page reads.
    std::optional<std::string> guest_cstring(Address a, size_t max) const;
    // The first address of [a, a + n) that a guest access of `kind` (read or write) may not make,
    // if any.
    std::optional<Address> guest_refuses(Address a, uint64_t n, Access kind) const;

    uint32_t reg(Reg r) const;
    void set_reg(Reg r, uint32_t v);
    Registers registers() const;

    // The guest's state now (not during a call: EmuError). restore() puts it back, so that what
    // one call leaves (stack bytes, globals, heap contents and allocations, registers, open
    // files) cannot reach the calls after the restore: each starts from the same bytes. Pages are
    // compared with the snapshot and only those that differ are written (through Unicorn, so
    // code translated from them is dropped); regions mapped since are unmapped; files opened since
    // are closed and the others are put back at their offsets. EmuError, with the machine
    // unchanged, when a region or file of the snapshot is gone (a file closed since cannot be
    // reopened as it was).
    Snapshot snapshot() const;
    RestoreStats restore(const Snapshot& s);

    // In a child after fork(): gives it its own offsets in the files the guest has open (a forked
    // child otherwise shares each host file description, and its position, with its parent), and
    // its own watchdog thread (fork copies only the calling thread: the parent's watchdog object
    // is left untouched, its condition variable waiting on a thread the child lacks).
    void after_fork();

    GuestHeap& heap();
    DataRoot* data_root(); // null when the machine has none
    win32::Kernel32State& kernel32();
    win32::MsvcrtState& msvcrt();
    SymbolTable& symbols();
    const SymbolTable& symbols() const;
    Log& log();

    // Where an address is: heap attribution, image section + symbol, stack, shim page, unmapped.
    std::string describe(Address a) const;
    std::vector<std::string> disassemble(Address a, size_t count) const;

    // Coverage of the blocks in the given routines' ranges only. CoverageMode::blocks (the default)
    // records which blocks ran: only block starts not yet covered are hooked, and the hooks are
    // rebuilt after each call() that covered new blocks (or at the next call after
    // Coverage::clear()), so a covered block runs without a hook call from the next call on
    // (within the call that covered it, it stays hooked). Once more blocks are covered than the
    // ranged hooks can leave out (64 hooks), one block hook over all code records instead: a block
    // already recorded since the last Coverage::clear() costs a slot compare there, not a walk of
    // the hooks. CoverageMode::executions hooks every block and counts each execution. Under a
    // block-hook budget both record from the budget's hook (one call per block for both).
    void enable_coverage(std::vector<Routine> routines, CoverageMode mode = CoverageMode::blocks);
    void disable_coverage();
    Coverage& coverage();
    const Coverage& coverage() const;

    // Trace: a code hook over `ranges` (default: the image's executable sections) feeding a ring.
    void enable_trace(size_t capacity, std::vector<Range> ranges = {});
    void disable_trace();
    const Trace& trace() const;
    std::vector<std::string> disassemble_trace(size_t n) const;

    // Reports every guest access into a heap guard gap or a freed allocation (to the log and
    // heap_strays()). Costs the slow memory path for every access while on.
    void watch_heap_strays(bool on);
    const std::vector<std::string>& heap_strays() const;

    uc_engine* engine();

    // How often Unicorn's translation buffer was reset between runs (uc_ctl_flush_tb): after 32
    // invalidations of everything, or before the first run after a memory watch came or went.
    uint64_t translation_reclaims() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace refcheck::emu
