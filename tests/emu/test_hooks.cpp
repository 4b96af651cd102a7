// replace, tap and watch hooks, including hooks added after the code was already translated.
#include "emu_test_support.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::emu {
namespace {

using test::describe;

class Hooks : public ::testing::Test {
protected:
    void SetUp() override { m.load(test::test_image()); }
    Machine m;
};

TEST_F(Hooks, ReplaceAfterTheCodeAlreadyRan) {
    // call_add3(a) = add3_cdecl(a, a, a) + 1 = 6a + 1
    CallResult before = m.call("call_add3", Convention::cdecl, {2});
    ASSERT_TRUE(before.ok()) << describe(before);
    EXPECT_EQ(before.eax, 13u);
    // add3_cdecl is translated already; the hook must still fire (translation cache removed).
    HookId id = m.replace(m.image().require("add3_cdecl"), Convention::cdecl, 3, [](Machine&, const Args& a) {
        return a.u32(0) * 1000 + a.u32(1) * 100 + a.u32(2);
    });
    CallResult replaced = m.call("call_add3", Convention::cdecl, {2});
    ASSERT_TRUE(replaced.ok()) << describe(replaced);
    EXPECT_EQ(replaced.eax, 2203u); // 2*1000 + 2*100 + 2, + 1
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top);
    m.remove_hook(id);
    EXPECT_EQ(m.call("call_add3", Convention::cdecl, {2}).eax, 13u);
}

TEST_F(Hooks, CodeWrittenAfterItRanRunsAsWritten) {
    // A seeded fault written over code that already ran (refcheck mutate patches a booted machine):
    // the write drops the translations there, so the next call runs the new bytes.
    CallResult before = m.call("add3_cdecl", Convention::cdecl, {1, 2, 3});
    ASSERT_TRUE(before.ok()) << describe(before);
    EXPECT_EQ(before.eax, 14u);
    const std::uint8_t mov_eax_42_ret[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
    m.write(m.image().require("add3_cdecl"), mov_eax_42_ret);
    CallResult after = m.call("add3_cdecl", Convention::cdecl, {1, 2, 3});
    ASSERT_TRUE(after.ok()) << describe(after);
    EXPECT_EQ(after.eax, 42u);
}

TEST_F(Hooks, ASealedMachineRunsNothing) {
    // An owner whose hooks hold objects that are gone seals the machine: no call or boot may run
    // into them. The tap counts what would have run; reading memory stays allowed.
    const Address add3 = m.image().require("add3_cdecl");
    int ran = 0;
    m.tap(add3, [&ran](Machine&) { ++ran; });
    ASSERT_TRUE(m.call("call_add3", Convention::cdecl, {1}).ok());
    ASSERT_EQ(ran, 1);
    const std::uint32_t code = m.read_u32(add3);
    EXPECT_FALSE(m.sealed());
    m.seal("the test is over");
    EXPECT_TRUE(m.sealed());
    const std::vector<std::pair<std::string, std::function<void()>>> runs = {
        {"call_add3", [&] { m.call("call_add3", Convention::cdecl, {1}); }},
        {"add3_cdecl",
         [&] {
             m.call(add3, Convention::cdecl, {1, 2, 3});
         }},
    };
    for (const auto& [routine, run] : runs) {
        try {
            run();
            ADD_FAILURE() << "a sealed machine ran " << routine;
        } catch (const std::logic_error& e) {
            EXPECT_EQ(std::string(e.what()),
                      "the machine cannot run " + routine + " any more: the test is over");
        }
    }
    EXPECT_THROW(m.run_entry_until(add3), std::logic_error);
    EXPECT_EQ(ran, 1) << "nothing ran after the seal";
    EXPECT_EQ(m.read_u32(add3), code);
}

TEST_F(Hooks, ReplaceAStdcallRoutinePopsItsArguments) {
    m.replace(m.image().require("add3_stdcall"), Convention::stdcall, 3,
              [](Machine&, const Args& a) { return a.u32(2); });
    CallResult r = m.call("add3_stdcall", Convention::stdcall, {1, 2, 3});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 3u);
}

TEST_F(Hooks, TapObservesThenLetsTheRoutineRun) {
    m.call("call_add3", Convention::cdecl, {1}); // translate first
    std::vector<uint32_t> seen;
    HookId id = m.tap(m.image().require("add3_cdecl"), [&](Machine& mm) {
        Args args(mm, Convention::cdecl, 3);
        seen.push_back(args.u32(0));
        EXPECT_EQ(mm.current_routine(), "call_add3");
    });
    CallResult r = m.call("call_add3", Convention::cdecl, {5});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 31u); // unchanged behaviour
    EXPECT_EQ(seen, std::vector<uint32_t>{5});
    m.remove_hook(id);
    m.call("call_add3", Convention::cdecl, {6});
    EXPECT_EQ(seen.size(), 1u);
}

TEST_F(Hooks, AHookCanStopTheRun) {
    m.tap(m.image().require("add3_cdecl"), [](Machine& mm) { mm.stop(FaultKind::stopped, "seen enough"); });
    CallResult r = m.call("call_add3", Convention::cdecl, {5});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault->kind, FaultKind::stopped);
    EXPECT_EQ(r.fault->message, "seen enough");
    EXPECT_EQ(r.fault->eip, m.image().require("add3_cdecl"));
}

TEST_F(Hooks, AThrowingHookIsAHostErrorNotACrash) {
    m.replace(m.image().require("add3_cdecl"), Convention::cdecl, 3,
              [](Machine&, const Args&) -> uint32_t { throw std::runtime_error("boom"); });
    CallResult r = m.call("call_add3", Convention::cdecl, {5});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault->kind, FaultKind::host_error);
    EXPECT_EQ(r.fault->message, "boom");
}

TEST_F(Hooks, WatchReportsWritesAndReadsInItsRangeOnly) {
    Address buf = test::guest_buffer(m, 256);
    std::vector<MemoryAccess> writes;
    HookId id = m.watch({buf + 16, buf + 20}, Access::write,
                        [&](Machine&, const MemoryAccess& a) { writes.push_back(a); });
    CallResult r = m.call("store_loop", Convention::cdecl, {buf, 64, 2});
    ASSERT_TRUE(r.ok()) << describe(r);
    ASSERT_EQ(writes.size(), 8u); // 4 bytes x 2 passes
    EXPECT_EQ(writes[0].address, buf + 16);
    EXPECT_EQ(writes[0].size, 1u);
    EXPECT_EQ(writes[4].value, m.read_u8(buf + 16)); // the second pass left its value
    EXPECT_TRUE(m.image().is_code(writes[0].eip));
    EXPECT_TRUE(m.symbols().describe(writes[0].eip).starts_with("store_loop+"));
    m.remove_hook(id);

    size_t reads = 0;
    m.watch({buf, buf + 1}, Access::read, [&](Machine&, const MemoryAccess& a) {
        EXPECT_EQ(a.kind, Access::read);
        ++reads;
    });
    ASSERT_TRUE(m.call("load_loop", Convention::cdecl, {buf, 64, 3}).ok());
    EXPECT_EQ(reads, 3u);
}

} // namespace
} // namespace refcheck::emu
