// emu_bench: guest MIPS of the test image's store-heavy and load-heavy loops (tests/emu/guest/
// bench.c) under emu/, with and without the default hooks, beside the same C compiled natively;
// plus the cost of the instruction-budget mechanisms, of block coverage, of a per-instruction code
// hook and of a memory watch, and the fixed cost of one call(). Prints a table; exits 0.
//
//   emu_bench [image.exe] [--quick]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "refcheck/emu/machine.hpp"

extern "C" int store_loop(unsigned char* buf, int n, int reps);
extern "C" int load_loop(const unsigned char* buf, int n, int reps);

namespace {

using namespace refcheck::emu;
using Clock = std::chrono::steady_clock;

constexpr int buffer_size = 4096;

double seconds_of(const std::function<void()>& f, int tries = 3) {
    double best = 1e30;
    for (int i = 0; i < tries; ++i) {
        auto t0 = Clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

struct Loop {
    const char* routine;
    int (*native)(unsigned char*, int, int);
};

int native_load(unsigned char* b, int n, int r) { return load_loop(b, n, r); }

const Loop loops[] = {{"store_loop", store_loop}, {"load_loop", native_load}};

// Guest instructions of one call, counted exactly once with the block-hook budget (every
// executed block's instructions are decoded once with Capstone and added up).
uint64_t count_instructions(Machine& m, const char* routine, Address buf, int reps) {
    CallResult r = m.call(routine, Convention::cdecl, {buf, buffer_size, static_cast<uint32_t>(reps)},
                          CallLimits{~0ull >> 1, 0});
    if (!r.ok() || !r.instructions) {
        std::fprintf(stderr, "emu_bench: counting %s failed: %s\n", routine,
                     r.fault ? r.fault->report().c_str() : "");
        std::exit(2);
    }
    return *r.instructions;
}

double guest_mips(Machine& m, const char* routine, Address buf, int reps, uint64_t instructions,
                  CallLimits limits) {
    double s = seconds_of([&] {
        CallResult r =
            m.call(routine, Convention::cdecl, {buf, buffer_size, static_cast<uint32_t>(reps)}, limits);
        if (!r.ok()) {
            std::fprintf(stderr, "emu_bench: %s failed: %s\n", routine, r.fault->report().c_str());
            std::exit(2);
        }
    });
    return static_cast<double>(instructions) / s / 1e6;
}

void no_code(uc_engine*, uint64_t, uint32_t, void*) {}

// The same routine on a bare Unicorn engine holding a copy of the image: no hooks at all.
double raw_unicorn_mips(Machine& m, const char* routine, int reps, uint64_t instructions) {
    const Image& image = m.image();
    uc_engine* uc = nullptr;
    uc_open(UC_ARCH_X86, UC_MODE_32, &uc);
    std::vector<uint8_t> bytes = m.read_bytes(image.base, image.size);
    uc_mem_map(uc, image.base, image.size, UC_PROT_ALL);
    uc_mem_write(uc, image.base, bytes.data(), bytes.size());
    uc_mem_map(uc, Machine::stack_base, Machine::stack_top - Machine::stack_base, UC_PROT_ALL);
    uc_mem_map(uc, GuestHeap::default_base, 0x100000, UC_PROT_ALL);
    uint32_t sentinel = Machine::stack_base; // any address that is never executed
    uint32_t frame[4] = {sentinel, GuestHeap::default_base, buffer_size, static_cast<uint32_t>(reps)};
    Address entry = image.require(routine);
    double s = seconds_of([&] {
        uint32_t esp = Machine::stack_top - sizeof frame;
        uc_mem_write(uc, esp, frame, sizeof frame);
        uc_reg_write(uc, UC_X86_REG_ESP, &esp);
        uc_emu_start(uc, entry, sentinel, 0, 0);
    });
    uc_close(uc);
    return static_cast<double>(instructions) / s / 1e6;
}

double native_mips(const Loop& loop, uint64_t guest_instructions_per_rep) {
    static unsigned char buf[buffer_size];
    int reps = 20000;
    volatile int sink = 0;
    double s = seconds_of([&] { sink = sink + loop.native(buf, buffer_size, reps); });
    return static_cast<double>(guest_instructions_per_rep) * reps / s / 1e6;
}

struct Row {
    std::string name;
    double mips[2];
};

void print_table(const std::vector<Row>& rows, const char* note) {
    double native[2] = {rows[0].mips[0], rows[0].mips[1]};
    double reference[2] = {rows[3].mips[0], rows[3].mips[1]};
    std::printf("\n%-52s %12s %9s %9s %12s %9s %9s\n", "configuration", "store MIPS", "/native", "/default",
                "load MIPS", "/native", "/default");
    for (const Row& r : rows)
        std::printf("%-52s %12.1f %8.1fx %8.2fx %12.1f %8.1fx %8.2fx\n", r.name.c_str(), r.mips[0],
                    native[0] / r.mips[0], reference[0] / r.mips[0], r.mips[1], native[1] / r.mips[1],
                    reference[1] / r.mips[1]);
    std::printf("%s", note);
}

void call_overhead(Machine& m) {
    Address add3 = m.image().require("add3_cdecl");
    const int n = 20000;
    double plain = seconds_of([&] {
        for (int i = 0; i < n; ++i) m.call(add3, Convention::cdecl, {1, 2, 3}, CallLimits{0, 0});
    });
    double timed = seconds_of([&] {
        for (int i = 0; i < n / 10; ++i) m.call(add3, Convention::cdecl, {1, 2, 3}, CallLimits{0, 10000});
    });
    double budgeted = seconds_of([&] {
        for (int i = 0; i < n; ++i) m.call(add3, Convention::cdecl, {1, 2, 3}, CallLimits{1000000, 0});
    });
    std::printf("\nfixed cost of one call() of a 4-instruction routine:\n");
    std::printf("  no wall limit, no budget             %8.2f us\n", plain / n * 1e6);
    std::printf("  + instruction budget (block hook)    %8.2f us\n", budgeted / n * 1e6);
    std::printf("  + wall-clock limit (watchdog)        %8.2f us\n", timed / (n / 10.0) * 1e6);
}

} // namespace

int main(int argc, char** argv) {
    std::string image_path = EMU_TEST_IMAGE;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else
            image_path = argv[i];
    }
    const int reps = quick ? 200 : 1000;   // fast configurations: ~4-40 M guest instructions a call
    const int slow_reps = quick ? 10 : 50; // per-instruction hooks and memory watches
    unsigned major = 0, minor = 0;
    uc_version(&major, &minor);
    std::printf("emu_bench: Unicorn library %u.%u (headers %d.%d.%d), image %s\n", major, minor,
                UC_VERSION_MAJOR, UC_VERSION_MINOR, UC_VERSION_PATCH, image_path.c_str());

    Machine m;
    m.load(image_path);
    Address buf = m.heap().allocate(buffer_size, "emu_bench", AllocationKind::heap);
    CallLimits none{0, 0};

    uint64_t count[2], count_slow[2], per_rep[2];
    for (int i = 0; i < 2; ++i) {
        count[i] = count_instructions(m, loops[i].routine, buf, reps);
        count_slow[i] = count_instructions(m, loops[i].routine, buf, slow_reps);
        per_rep[i] = (count[i] - count_slow[i]) / static_cast<uint64_t>(reps - slow_reps);
    }
    std::printf("guest instructions per call (one counted run each): store_loop %s, load_loop %s "
                "(%llu and %llu per %d-byte pass)\n",
                with_commas(count[0]).c_str(), with_commas(count[1]).c_str(), (unsigned long long)per_rep[0],
                (unsigned long long)per_rep[1], buffer_size);

    std::vector<Row> rows;
    auto row = [&](std::string name, const std::function<double(int)>& f) {
        rows.push_back({std::move(name), {f(0), f(1)}});
    };
    row("native (same C, host gcc -O2 -fno-tree-vectorize)",
        [&](int i) { return native_mips(loops[i], per_rep[i]); });
    row("bare Unicorn engine, no hooks at all",
        [&](int i) { return raw_unicorn_mips(m, loops[i].routine, reps, count[i]); });
    row("machine: built-in hooks only (shim page, faults)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, reps, count[i], none); });
    HookId r1 = m.replace(m.image().require("mul64_cdecl"), Convention::cdecl, 2,
                          [](Machine&, const Args&) { return 0u; });
    HookId r2 = m.tap(m.image().require("add3_stdcall"), [](Machine&) {});
    row("machine + default hooks (replace+tap elsewhere)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, reps, count[i], none); });
    row("  + instruction budget, block hook (default method)", [&](int i) {
        return guest_mips(m, loops[i].routine, buf, reps, count[i],
                          CallLimits{~0ull >> 1, 0, BudgetMethod::block_hook});
    });
    row("  + instruction budget, Unicorn count (info)", [&](int i) {
        return guest_mips(m, loops[i].routine, buf, slow_reps, count_slow[i],
                          CallLimits{~0ull >> 1, 0, BudgetMethod::unicorn_count});
    });
    row("  + wall-clock limit 10 s (watchdog thread)", [&](int i) {
        return guest_mips(m, loops[i].routine, buf, reps, count[i], CallLimits{0, 10000});
    });
    m.enable_coverage(routines_of(m.image()), CoverageMode::executions);
    row("  + coverage, every execution (mode executions)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, reps, count[i], none); });
    m.enable_coverage(routines_of(m.image()));
    row("  + coverage, each block once (mode blocks, default)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, reps, count[i], none); });
    row("  + coverage, each block once, first call only", [&](int i) {
        double s = seconds_of([&] {
            m.enable_coverage(routines_of(m.image()));
            CallResult r = m.call(loops[i].routine, Convention::cdecl,
                                  {buf, buffer_size, static_cast<uint32_t>(reps)}, none);
            if (!r.ok()) std::exit(2);
        });
        return static_cast<double>(count[i]) / s / 1e6;
    });
    row("  + coverage (each block once) + budget", [&](int i) {
        return guest_mips(m, loops[i].routine, buf, reps, count[i],
                          CallLimits{~0ull >> 1, 0, BudgetMethod::block_hook});
    });
    m.disable_coverage();
    uc_hook every = 0;
    uc_hook_add(m.engine(), &every, UC_HOOK_CODE, reinterpret_cast<void*>(no_code), nullptr, 1, 0);
    for (const ImageSection& s : m.image().sections)
        if (s.executable) uc_ctl_remove_cache(m.engine(), uint64_t{s.range.begin}, uint64_t{s.range.end});
    row("  + per-instruction code hook (info)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, slow_reps, count_slow[i], none); });
    uc_hook_del(m.engine(), every);
    for (const ImageSection& s : m.image().sections)
        if (s.executable) uc_ctl_remove_cache(m.engine(), uint64_t{s.range.begin}, uint64_t{s.range.end});
    HookId w = m.watch({Machine::stack_base, Machine::stack_base + 4}, Access::read_write,
                       [](Machine&, const MemoryAccess&) {});
    row("  + one 4-byte memory watch elsewhere (info)",
        [&](int i) { return guest_mips(m, loops[i].routine, buf, slow_reps, count_slow[i], none); });
    m.remove_hook(w);
    m.remove_hook(r1);
    m.remove_hook(r2);

    print_table(
        rows,
        "\n/native: times slower than the native code; /default: times slower than 'machine + default "
        "hooks'.\n"
        "MIPS = guest instructions (counted once as above; native runs are credited with the same count per\n"
        "pass) / best of 3 wall-clock times. The instruction budget is enforced with a UC_HOOK_BLOCK that "
        "adds\n"
        "each block's cached instruction count, installed only for budgeted calls; Unicorn's own `count`\n"
        "installs a per-instruction hook and flushes the whole translation cache when it is switched off.\n"
        "Memory watches force Unicorn's slow memory path for every access while installed. Coverage records\n"
        "blocks in a flat table indexed by their offset in the covered span (constant time): 'every\n"
        "execution' hooks every block; 'each block once' hooks only blocks not yet covered, rebuilding its\n"
        "hooks after a call that covered new blocks (the first call pays like 'every execution' for the\n"
        "blocks it covers); under a budget, coverage is recorded by the budget's own block hook.\n");
    call_overhead(m);
    return 0;
}
