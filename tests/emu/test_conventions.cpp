// Calling conventions: arguments, results and stack clean-up (checked via ESP) for each.
#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

class Conventions : public ::testing::Test {
protected:
    void SetUp() override { m.load(test::test_image()); }
    Machine m;
};

TEST_F(Conventions, Cdecl) {
    CallResult r = m.call("add3_cdecl", Convention::cdecl, {1, 10, 100});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 1u + 20 + 300);
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top); // the caller popped its 12 bytes
}

TEST_F(Conventions, Stdcall) {
    CallResult r = m.call("add3_stdcall", Convention::stdcall, {1, 10, 100});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 321u);
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top); // the callee popped (ret 12)
}

TEST_F(Conventions, Fastcall) {
    CallResult r = m.call("add4_fastcall", Convention::fastcall, {1, 10, 100, 1000});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 1u + 20 + 300 + 4000);
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top);
}

TEST_F(Conventions, WatcallPassesEaxEdxEbxEcxThenTheStackAndPreservesAllButEax) {
    CallResult r = m.call("sum6_watcall", Convention::watcall, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 1u + 4 + 9 + 16 + 25 + 36);
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top); // ret 8
    EXPECT_EQ(m.reg(Reg::edx), 2u);
    EXPECT_EQ(m.reg(Reg::ebx), 3u);
    EXPECT_EQ(m.reg(Reg::ecx), 4u);
    EXPECT_EQ(m.reg(Reg::esi), 0u); // the thunk scribbles on ESI/EDI and restores them
    EXPECT_EQ(m.reg(Reg::edi), 0u);
}

TEST_F(Conventions, SixtyFourBitResultInEdxEax) {
    CallResult r = m.call("mul64_cdecl", Convention::cdecl, {0x10000000, 0x100});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.edx_eax(), 0x1000000000ull);
}

TEST_F(Conventions, WrongConventionIsAStackImbalance) {
    // A cdecl routine called as stdcall leaves its 12 bytes on the stack.
    CallResult r = m.call("add3_cdecl", Convention::stdcall, {1, 2, 3});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault->kind, FaultKind::stack_imbalance);
    EXPECT_NE(r.fault->message.find("-12 bytes off"), std::string::npos) << r.fault->message;
    // The machine is usable afterwards.
    EXPECT_TRUE(m.call("add3_cdecl", Convention::cdecl, {1, 2, 3}).ok());
}

TEST_F(Conventions, ArgsReadEveryConventionAtRoutineEntry) {
    // A replacement sees the arguments the guest passed, whatever the convention.
    std::vector<uint32_t> seen;
    m.replace(m.image().require("sum6_watcall"), Convention::watcall, 6, [&](Machine&, const Args& a) {
        for (unsigned i = 0; i < a.count(); ++i) seen.push_back(a.u32(i));
        return 77u;
    });
    CallResult r = m.call("sum6_watcall", Convention::watcall, {11, 22, 33, 44, 55, 66});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 77u);
    EXPECT_EQ(seen, (std::vector<uint32_t>{11, 22, 33, 44, 55, 66}));
    EXPECT_EQ(m.reg(Reg::esp), Machine::stack_top); // the replacement popped like the callee
}

TEST(ConventionInfo, StackArgumentCounts) {
    EXPECT_EQ(stack_arg_count(Convention::cdecl, 3), 3u);
    EXPECT_EQ(stack_arg_count(Convention::fastcall, 3), 1u);
    EXPECT_EQ(stack_arg_count(Convention::watcall, 3), 0u);
    EXPECT_EQ(stack_arg_count(Convention::watcall, 6), 2u);
    EXPECT_EQ(caller_pops(Convention::cdecl, 2), 8u);
    EXPECT_EQ(caller_pops(Convention::watcall, 6), 0u);
}

} // namespace
} // namespace refcheck::emu
