// Machine::snapshot and Machine::restore: after a restore, nothing the calls since left is there.
#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

// Every mapped guest byte, by region (the machine's own view through read_bytes).
std::vector<std::vector<uint8_t>> all_memory(Machine& m, const std::vector<Range>& regions) {
    std::vector<std::vector<uint8_t>> out;
    for (const Range& r : regions) out.push_back(m.read_bytes(r.begin, r.end - r.begin));
    return out;
}

TEST(Snapshot, RestorePutsBackStackGlobalsHeapAndRegisters) {
    Machine m;
    m.load(test::test_image());
    const Address kept = m.call("heap_alloc", Convention::cdecl, {64}).eax; // before: stays
    const std::vector<Range> regions = {m.stack(), m.heap().mapped(), m.image().range()};
    const Snapshot s = m.snapshot();
    const auto memory = all_memory(m, regions);
    const Registers registers = m.registers();
    const size_t allocations = m.heap().allocations().size();

    // What later calls leave: stack bytes, a global array, heap contents, allocations, the heap
    // grown by more chunks than it had, registers.
    ASSERT_TRUE(m.call("stack_scribble", Convention::cdecl, {7}).ok());
    EXPECT_EQ(m.call("bss_probe", Convention::cdecl, {}).eax, 0u); // .bss zero, then dirtied
    const Address first = m.call("heap_alloc", Convention::cdecl, {100}).eax;
    m.write_u32(kept, 0x12345678);
    const CallResult big = m.call("heap_alloc", Convention::cdecl, {3 * GuestHeap::chunk});
    ASSERT_TRUE(big.ok() && big.eax) << describe(big);
    ASSERT_NE(all_memory(m, regions), memory); // the comparison below can fail
    EXPECT_NE(m.registers().eax, registers.eax);

    const RestoreStats stats = m.restore(s);
    EXPECT_GT(stats.pages_written, 0u);
    EXPECT_EQ(stats.regions_unmapped, 1u); // the chunks the big allocation mapped
    EXPECT_EQ(all_memory(m, regions), memory);
    EXPECT_EQ(m.registers().eax, registers.eax);
    EXPECT_EQ(m.registers().esp, registers.esp);
    EXPECT_EQ(m.heap().allocations().size(), allocations);
    EXPECT_FALSE(m.is_mapped(big.eax + 2 * GuestHeap::chunk));
    // The calls after the restore see what the calls after the snapshot saw.
    EXPECT_EQ(m.call("bss_probe", Convention::cdecl, {}).eax, 0u);
    EXPECT_EQ(m.call("heap_alloc", Convention::cdecl, {100}).eax, first);
    EXPECT_EQ(m.call("heap_alloc", Convention::cdecl, {3 * GuestHeap::chunk}).eax, big.eax);
    // A second restore from the same snapshot.
    m.restore(s);
    EXPECT_EQ(all_memory(m, regions), memory);
    EXPECT_EQ(m.restore(s).pages_written, 0u); // nothing differs: nothing written
}

TEST(Snapshot, RestoreClosesFilesOpenedSinceAndRewindsTheOthers) {
    test::ScratchDir dir{"snapshot"};
    dir.put("3DDATA/DATA.BIN", "abcdef");
    Machine m(MachineOptions{dir.path(), "C:\\", false});
    m.load(test::test_image());
    const Address path = test::guest_string(m, "C:\\3DDATA\\DATA.BIN");
    const uint32_t open = m.call("open_for_reading", Convention::cdecl, {path}).eax;
    ASSERT_LT(static_cast<int32_t>(open), 0x10000) << "open_for_reading: " << static_cast<int32_t>(open);
    ASSERT_GT(static_cast<int32_t>(open), 0);
    EXPECT_EQ(m.call("next_byte", Convention::cdecl, {open}).eax, uint32_t{'a'});
    const uint32_t ticks = m.kernel32().tick_count;
    const Snapshot s = m.snapshot();
    EXPECT_EQ(m.call("next_byte", Convention::cdecl, {open}).eax, uint32_t{'b'});
    EXPECT_EQ(m.call("next_byte", Convention::cdecl, {open}).eax, uint32_t{'c'});
    const uint32_t later = m.call("open_for_reading", Convention::cdecl, {path}).eax;
    ASSERT_GT(static_cast<int32_t>(later), 0);
    m.kernel32().tick_count += 160;
    ASSERT_EQ(m.kernel32().files.size(), 2u);

    const RestoreStats stats = m.restore(s);
    EXPECT_EQ(stats.files_closed, 1u);
    EXPECT_EQ(m.kernel32().files.size(), 1u);
    EXPECT_EQ(m.kernel32().tick_count, ticks);
    EXPECT_EQ(m.call("next_byte", Convention::cdecl, {open}).eax, uint32_t{'b'}); // rewound
    // The handle opened since is gone; opening again gives it once more.
    EXPECT_EQ(m.call("open_for_reading", Convention::cdecl, {path}).eax, later);
}

TEST(Snapshot, RefusesWhenAFileOfTheSnapshotWasClosedAndChangesNothing) {
    test::ScratchDir dir{"snapshot-closed"};
    dir.put("3DDATA/DATA.BIN", "abcdef");
    Machine m(MachineOptions{dir.path(), "C:\\", false});
    m.load(test::test_image());
    const uint32_t open =
        m.call("open_for_reading", Convention::cdecl, {test::guest_string(m, "C:\\3DDATA\\DATA.BIN")}).eax;
    const Snapshot s = m.snapshot();
    ASSERT_TRUE(m.call("bss_probe", Convention::cdecl, {}).ok());
    const auto bss_after = m.call("bss_probe", Convention::cdecl, {}).eax;
    ::close(m.kernel32().files.at(open).fd); // as CloseHandle leaves it
    m.kernel32().files.erase(open);
    try {
        m.restore(s);
        FAIL() << "restore went ahead with a file of the snapshot closed";
    } catch (const EmuError& e) {
        EXPECT_NE(std::string(e.what()).find("was closed since the snapshot"), std::string::npos) << e.what();
    }
    EXPECT_EQ(m.call("bss_probe", Convention::cdecl, {}).eax, bss_after); // memory untouched
}

// Code written since the snapshot (a patch) goes back with the restore, and so do its translations:
// the calls after the restore run the snapshot's code, not the translated patch.
TEST(Snapshot, RestoredCodeRunsAsRestoredNotAsTranslatedBefore) {
    Machine m;
    m.load(test::test_image());
    const Address add3 = *m.image().address_of("add3_cdecl");
    ASSERT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 6u);
    const Snapshot s = m.snapshot();
    const std::vector<uint8_t> answer = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3}; // mov eax, 42; ret
    m.write(add3, answer);
    ASSERT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 42u); // translated as patched
    EXPECT_GT(m.restore(s).pages_written, 0u);
    EXPECT_NE(m.read_bytes(add3, answer.size()), answer);
    EXPECT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 6u);
}

} // namespace
} // namespace refcheck::emu
