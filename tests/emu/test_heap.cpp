// The deterministic guest heap: same addresses every run, attribution, guard gaps, allocators.
#include "emu_test_support.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace refcheck::emu {
namespace {

using test::describe;

std::vector<Address> allocate_some(Machine& m) {
    std::vector<Address> out;
    for (uint32_t size : {100u, 4108u, 1u, 64u}) {
        CallResult r = m.call("heap_alloc", Convention::cdecl, {size});
        EXPECT_TRUE(r.ok()) << describe(r);
        out.push_back(r.eax);
    }
    return out;
}

TEST(Heap, SameAllocationsGiveSameAddressesInEveryMachine) {
    Machine a, b;
    a.load(test::test_image());
    b.load(test::test_image(), 0x00800000); // even with the image elsewhere
    std::vector<Address> first = allocate_some(a);
    std::vector<Address> second = allocate_some(b);
    EXPECT_EQ(first, second);
    EXPECT_EQ(first[0], GuestHeap::default_base);
    for (size_t i = 1; i < first.size(); ++i) EXPECT_GE(first[i] - first[i - 1], GuestHeap::guard_gap);
}

TEST(Heap, AttributesAddressesToAllocationsAndRoutines) {
    Machine m;
    m.load(test::test_image());
    std::vector<Address> blocks = allocate_some(m);
    Address texture = blocks[1]; // 4,108 bytes
    EXPECT_EQ(m.heap().describe(texture + 4108 + 16),
              hex(texture + 4108 + 16) + " is 16 bytes past allocation #2 (4,108 bytes, made by heap_alloc)");
    EXPECT_EQ(m.describe(texture + 12),
              hex(texture + 12) + " is at offset 12 in allocation #2 (4,108 bytes, made by heap_alloc)");
    const Allocation* a = m.heap().containing(texture + 100);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->index, 2u);
    EXPECT_EQ(a->routine, "heap_alloc");
}

// A request refused only because earlier blocks hold the region (freed ones are never reused) is
// recorded with its routine, the first one only, and survives a restore of the bookkeeping; a request
// the empty region could not serve either is the request's own size, not recorded.
TEST(Heap, ARequestRefusedOnlyForWantOfReuseIsRecorded) {
    GuestHeap heap([](Address, uint32_t) {});
    heap.place({0x10000000, 0x10010000}); // 64 KiB
    const auto before = heap.state();
    EXPECT_EQ(heap.allocate(0x20000, "too_big", AllocationKind::crt), 0u);
    EXPECT_FALSE(heap.refused_for_space());
    const Address first = heap.allocate(0x9000, "first", AllocationKind::crt);
    ASSERT_NE(first, 0u);
    ASSERT_TRUE(heap.release(first));
    EXPECT_EQ(heap.allocate(0x9000, "second", AllocationKind::crt), 0u);
    ASSERT_TRUE(heap.refused_for_space());
    EXPECT_EQ(heap.refused_for_space()->routine, "second");
    EXPECT_EQ(heap.refused_for_space()->size, 0x9000u);
    EXPECT_EQ(heap.refused_for_space()->in_use, 0x9000u + GuestHeap::guard_gap);
    EXPECT_EQ(heap.allocate(0x9000, "third", AllocationKind::crt), 0u);
    EXPECT_EQ(heap.refused_for_space()->routine, "second");
    heap.set_state(before);
    EXPECT_TRUE(heap.refused_for_space());
}

TEST(Heap, StrayReadsPastAnAllocationDoNotFaultAndCanBeReported) {
    Machine m;
    m.load(test::test_image());
    Address p = m.call("heap_alloc", Convention::cdecl, {64}).eax;
    m.call("heap_alloc", Convention::cdecl, {64});
    // Read 20 bytes past the end: inside the guard gap, mapped, so the run goes on.
    CallResult r = m.call("fill_and_peek", Convention::cdecl, {p, 64, 84});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 0u);
    EXPECT_TRUE(m.heap().in_gap(p + 84));
    EXPECT_TRUE(m.heap_strays().empty());
    m.watch_heap_strays(true);
    r = m.call("fill_and_peek", Convention::cdecl, {p, 64, 84});
    ASSERT_TRUE(r.ok()) << describe(r);
    ASSERT_EQ(m.heap_strays().size(), 1u);
    EXPECT_NE(m.heap_strays()[0].find("stray read of 1 bytes"), std::string::npos) << m.heap_strays()[0];
    EXPECT_NE(m.heap_strays()[0].find("20 bytes past allocation #1 (64 bytes, made by heap_alloc)"),
              std::string::npos)
        << m.heap_strays()[0];
    EXPECT_NE(m.heap_strays()[0].find("fill_and_peek"), std::string::npos);
    m.watch_heap_strays(false);
    m.call("fill_and_peek", Convention::cdecl, {p, 64, 84});
    EXPECT_EQ(m.heap_strays().size(), 1u);
}

TEST(Heap, FreeAndReallocKeepAttribution) {
    Machine m;
    m.load(test::test_image());
    Address p = m.call("heap_alloc", Convention::cdecl, {10}).eax;
    m.write_u32(p, 0xdeadbeef);
    Address out = test::guest_buffer(m, 4);
    CallResult r = m.call("heap_grow", Convention::cdecl, {p, 300, out});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 300u);
    Address q = m.read_u32(out);
    EXPECT_NE(q, p);
    EXPECT_EQ(m.read_u32(q), 0xdeadbeefu); // contents moved
    EXPECT_NE(m.heap().describe(p).find("freed"), std::string::npos);
    EXPECT_EQ(m.call("heap_free", Convention::cdecl, {q}).eax, 1u);
    // A double free stops the call at the guest's HeapFree: what a Windows heap does next is unknown.
    const CallResult twice = m.call("heap_free", Convention::cdecl, {q});
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.fault->kind, FaultKind::heap_misuse);
    EXPECT_EQ(twice.fault->data_address, std::optional<Address>(q));
    EXPECT_NE(
        twice.fault->message.find("HeapFree(" + hex(q) + ") of something that is not a live allocation"),
        std::string::npos)
        << twice.fault->message;
    EXPECT_NE(twice.fault->attribution.find("freed"), std::string::npos) << twice.fault->attribution;
    ASSERT_FALSE(twice.fault->disassembly.empty());
    const std::string call_line =
        *std::find_if(twice.fault->disassembly.begin(), twice.fault->disassembly.end(),
                      [](const std::string& l) { return l.starts_with("=>"); });
    EXPECT_NE(call_line.find("<heap_free+"), std::string::npos) << "shown at the guest's call: " << call_line;
    EXPECT_EQ(m.call("heap_free", Convention::cdecl, {0}).eax, 1u) << "HeapFree of NULL stays legal";
}

// The memory shims trust no guest size: VirtualAlloc of 0xfffff001 bytes fails (its page rounding
// wrapped to a 0-byte "success"), and memcpy, memmove and memset work in blocks (a memcpy of
// 0xf0000000 bytes allocated 4 GB on the host before it faulted) with memmove's overlap semantics.
TEST(Heap, MemoryShimsTrustNoGuestSize) {
    Machine m;
    m.load(test::test_image());
    const auto virtual_alloc = m.import_thunk("kernel32.dll", "VirtualAlloc");
    const auto memcpy = m.import_thunk("msvcrt.dll", "memcpy");
    const auto memset = m.import_thunk("msvcrt.dll", "memset");
    ASSERT_TRUE(virtual_alloc && memcpy && memset) << "the test image imports them";
    EXPECT_EQ(m.call(*virtual_alloc, Convention::stdcall, {0, 0xfffff001u, 0x1000, 4}).eax, 0u);
    // 200,000 bytes overlapping forwards and backwards by 1,000: three blocks and a part.
    const std::uint32_t n = 200000;
    const Address buf = test::guest_buffer(m, n + 1000);
    std::vector<std::uint8_t> pattern(n);
    for (std::uint32_t i = 0; i < n; ++i) pattern[i] = static_cast<std::uint8_t>(i * 7 + i / 256);
    m.write(buf, pattern);
    ASSERT_TRUE(m.call(*memcpy, Convention::cdecl, {buf + 1000, buf, n}).ok());
    EXPECT_TRUE(m.read_bytes(buf + 1000, n) == pattern) << "a copy forwards over its own source";
    ASSERT_TRUE(m.call(*memcpy, Convention::cdecl, {buf, buf + 1000, n}).ok());
    EXPECT_TRUE(m.read_bytes(buf, n) == pattern) << "a copy backwards over its own source";
    ASSERT_TRUE(m.call(*memset, Convention::cdecl, {buf, 0x5a, n}).ok());
    EXPECT_TRUE(m.read_bytes(buf, n) == std::vector<std::uint8_t>(n, 0x5a));
    // A huge length faults at the first unmapped block, as the guest's own loop would.
    const CallResult huge = m.call(*memcpy, Convention::cdecl, {buf, buf, 0xf0000000u});
    EXPECT_TRUE(huge.fault) << describe(huge);
}

// A guest length is never a host allocation: strncpy's padding and MultiByteToWideChar's input, of
// 0x7fffffff bytes each, took 2 GB of host memory before their fault. They work in blocks and fault
// where the guest's memory ends, the host's peak memory barely moving.
TEST(Heap, HugeGuestLengthsFaultWithoutAHostAllocation) {
    Machine m;
    m.load(test::test_image());
    const auto strncpy = m.import_thunk("msvcrt.dll", "strncpy");
    const auto widen = m.import_thunk("kernel32.dll", "MultiByteToWideChar");
    ASSERT_TRUE(strncpy && widen) << "the test image imports them";
    const Address source = test::guest_string(m, "ab"), out = test::guest_buffer(m, 16);
    auto peak_kib = [] {
        rusage u{};
        ::getrusage(RUSAGE_SELF, &u);
        return u.ru_maxrss;
    };
    const long before = peak_kib();
    const CallResult copy = m.call(*strncpy, Convention::cdecl, {out, source, 0x7fffffffu});
    ASSERT_TRUE(copy.fault) << describe(copy);
    EXPECT_EQ(copy.fault->kind, FaultKind::write_unmapped) << describe(copy);
    ASSERT_TRUE(copy.fault->data_address);
    EXPECT_GT(*copy.fault->data_address, out);
    EXPECT_FALSE(m.is_mapped(*copy.fault->data_address)); // the end of the guest's memory
    EXPECT_TRUE(m.is_mapped(*copy.fault->data_address - 1));
    EXPECT_EQ(m.read_cstring(out), "ab");
    const CallResult wide =
        m.call(*widen, Convention::stdcall, {0, 0, source, 0x7fffffffu, out, 0x7fffffffu});
    ASSERT_TRUE(wide.fault) << describe(wide);
    EXPECT_EQ(wide.fault->kind, FaultKind::read_unmapped) << describe(wide);
    ASSERT_TRUE(wide.fault->data_address);
    EXPECT_FALSE(m.is_mapped(*wide.fault->data_address));
    EXPECT_LT(peak_kib() - before, 64L << 10) << "the host's peak memory grew with a guest length (KiB)";
}

TEST(Heap, GlobalLocalAndVirtualAllocators) {
    Machine m;
    m.load(test::test_image());
    CallResult r = m.call("other_allocators", Convention::cdecl, {});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 106u); // 1 + 2 + 3, +100 for a page-aligned VirtualAlloc
    const auto& all = m.heap().allocations();
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].kind, AllocationKind::global);
    EXPECT_EQ(all[1].kind, AllocationKind::local);
    EXPECT_EQ(all[2].kind, AllocationKind::virtual_memory);
    for (const Allocation& a : all) {
        EXPECT_TRUE(a.freed);
        EXPECT_EQ(a.routine, "other_allocators");
    }
}

TEST(Win32, LastErrorTimeAndDebugOutput) {
    Machine m;
    m.load(test::test_image());
    EXPECT_EQ(m.call("last_error_roundtrip", Convention::cdecl, {42}).eax, 42u);
    Address ticks = test::guest_buffer(m, 4), counter = test::guest_buffer(m, 8),
            freq = test::guest_buffer(m, 8);
    ASSERT_TRUE(m.call("time_probe", Convention::cdecl, {ticks, counter, freq}).ok());
    EXPECT_EQ(m.read_u32(ticks), 1000u); // deterministic
    EXPECT_EQ(m.read_u32(counter), 1000000u);
    EXPECT_EQ(m.read_u32(freq), 1000000u);
    ASSERT_TRUE(m.call("time_probe", Convention::cdecl, {ticks, counter, freq}).ok());
    EXPECT_EQ(m.read_u32(ticks), 1016u);
    EXPECT_EQ(m.read_u32(counter), 1001000u);
    std::vector<std::string> sink;
    m.log().set_sink([&](std::string_view line) { sink.emplace_back(line); });
    ASSERT_TRUE(m.call("say", Convention::cdecl, {test::guest_string(m, "hello")}).ok());
    EXPECT_EQ(sink, std::vector<std::string>{"OutputDebugStringA: hello"});
}

} // namespace
} // namespace refcheck::emu
