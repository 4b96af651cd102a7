// Issue 19: Unicorn 2.1.1 crashes the host process (SIGSEGV or SIGBUS inside cpu_exec, e.g. in
// tb_set_jmp_target) when its translation buffer fills up during a run. Each located fault flushes
// every translation twice (machine_fault.cpp), and removed translations keep their buffer space, so
// a routine that faults on every call fills the 64 MiB buffer after some tens of thousands of calls
// of even this small test routine (about 63,500 on the machine that found it). The machine reclaims
// the space between runs (Machine::Impl::reclaim_translations); without that, this test's child
// process dies by a signal instead of exiting 0.
#include "emu_test_support.hpp"

#include <cstdio>
#include <cstdlib>

namespace refcheck::emu {
namespace {

void fault_many_times(int calls) {
    Machine m;
    m.load(test::test_image());
    for (int i = 0; i < calls; ++i) {
        CallResult r = m.call("fault_write_readonly", Convention::cdecl, {1});
        if (r.ok() || !r.fault || r.fault->kind != FaultKind::write_protected || !r.fault->eip_exact)
            std::exit(2); // every call must still be the same exact fault
    }
    CallResult after = m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}); // 6, as in test_faults.cpp
    if (!(after.ok() && after.eax == 6))
        std::fprintf(stderr, "after: %s\n", after.fault ? after.fault->report().c_str() : "no fault");
    std::exit(after.ok() && after.eax == 6 ? 0 : 3);
}

TEST(TranslationBuffer, ManyLocatedFaultsDoNotCrashUnicorn) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // Half as many again as the calls that filled the buffer: the child must end normally.
    EXPECT_EXIT(fault_many_times(100000), ::testing::ExitedWithCode(0), "");
}

// A memory watch's flush is reclaimed before the next run (its slow-path translations made the runs
// after it slow and erratic); the other invalidations wait for 32 (a reclaim costs about 1 ms, and a
// located fault flushes twice).
TEST(TranslationBuffer, AWatchThatCameAndWentIsReclaimedBeforeTheNextRun) {
    Machine m;
    m.load(test::test_image());
    ASSERT_TRUE(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).ok());
    const uint64_t before = m.translation_reclaims();

    const CallResult fault = m.call("fault_write_readonly", Convention::cdecl, {1});
    ASSERT_TRUE(fault.fault && fault.fault->eip_exact); // located: two flushes of everything
    ASSERT_TRUE(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).ok());
    EXPECT_EQ(m.translation_reclaims(), before); // not yet: 2 of 32

    const Address buf = test::guest_buffer(m, 16);
    const HookId watch = m.watch({buf, buf + 4}, Access::write, [](Machine&, const MemoryAccess&) {});
    EXPECT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 6u);
    EXPECT_EQ(m.translation_reclaims(), before + 1); // the watch's flush
    m.remove_hook(watch);
    EXPECT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 6u);
    EXPECT_EQ(m.translation_reclaims(), before + 2); // and its removal's
    EXPECT_EQ(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax, 6u);
    EXPECT_EQ(m.translation_reclaims(), before + 2); // nothing flushed since
}

} // namespace
} // namespace refcheck::emu
