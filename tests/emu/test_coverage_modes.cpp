// CoverageMode::blocks (hooks only the block starts not yet covered, rebuilt after each call that
// covered new blocks) against CoverageMode::executions (every execution hooked): the same calls
// give the same blocks, drcov bytes and per-routine figures; a block first run by a later call is
// covered; a covered block stops costing a hook call; clear() brings the hooks back; the
// instruction budget still stops a looping routine and counts the same with coverage on.
#include <sstream>

#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

struct Step {
    const char* routine;
    std::vector<uint32_t> args;
    CallLimits limits{0, 0};
};

// The routines of the image that the steps touch (exact ranges from the symbols).
std::vector<Routine> routines_named(const Machine& m, std::initializer_list<const char*> names) {
    std::vector<Routine> out;
    for (const Routine& r : routines_of(m.image()))
        for (const char* n : names)
            if (r.name == n) out.push_back(r);
    return out;
}

struct Observed {
    std::map<Address, uint32_t> sizes; // block start -> size
    std::string drcov;
    std::vector<std::pair<std::string, size_t>> per_routine;
};

Observed observe(Machine& m) {
    Observed o;
    for (const auto& [a, b] : m.coverage().blocks()) o.sizes[a] = b.size;
    std::ostringstream out;
    m.coverage().write_drcov(out, m.image());
    o.drcov = out.str();
    o.per_routine = m.coverage().blocks_per_routine();
    return o;
}

class CoverageModes : public ::testing::Test {
protected:
    void SetUp() override {
        for (Machine* m : {&blocks, &executions}) m->load(test::test_image());
        all = routines_of(blocks.image());
        buf_b = test::guest_buffer(blocks, 64);
        buf_e = test::guest_buffer(executions, 64);
        ASSERT_EQ(buf_b, buf_e);
    }
    // Runs each step on both machines, comparing after every call.
    void run_both(const std::vector<Step>& steps) {
        for (const Step& s : steps) {
            CallResult rb = blocks.call(s.routine, Convention::cdecl, s.args, s.limits);
            CallResult re = executions.call(s.routine, Convention::cdecl, s.args, s.limits);
            ASSERT_EQ(rb.ok(), re.ok()) << s.routine << ": " << describe(rb) << " / " << describe(re);
            ASSERT_EQ(rb.eax, re.eax) << s.routine;
            ASSERT_EQ(rb.instructions, re.instructions) << s.routine;
            Observed ob = observe(blocks), oe = observe(executions);
            ASSERT_EQ(ob.sizes, oe.sizes) << "after " << s.routine;
            ASSERT_EQ(ob.drcov, oe.drcov) << "after " << s.routine;
            ASSERT_EQ(ob.per_routine, oe.per_routine) << "after " << s.routine;
        }
    }
    Machine blocks, executions;
    std::vector<Routine> all;
    Address buf_b = 0, buf_e = 0;
};

// Every routine covered, calls that reach new blocks on later calls, with and without a budget
// (the budget's own block hook records coverage then, and the coverage hooks come back after).
TEST_F(CoverageModes, SameBlocksDrcovAndFiguresAsEveryExecution) {
    blocks.enable_coverage(all);
    executions.enable_coverage(all, CoverageMode::executions);
    const uint32_t buf = buf_b;
    run_both({{"cover_branch", {0}},
              {"cover_branch", {0}},
              {"cover_loop", {5, 0}},
              {"cover_branch", {7}},
              {"load_loop", {buf, 16, 2}},
              {"call_add3", {1}, {100000, 0}},
              {"cover_loop", {3, 7}, {100000, 0}},
              {"store_loop", {buf, 32, 3}},
              {"load_loop", {buf, 64, 1}, {100000, 0}},
              {"call_add3", {2}},
              {"mul64_cdecl", {3, 4}}});
    EXPECT_GT(blocks.coverage().executed_blocks(), 10u);
}

// A branch taken only on the second call: the first call's rebuild must leave its block hooked.
TEST_F(CoverageModes, BranchTakenOnlyOnTheSecondCallIsCovered) {
    std::vector<Routine> only = routines_named(blocks, {"cover_branch"});
    ASSERT_EQ(only.size(), 1u);
    blocks.enable_coverage(only);
    executions.enable_coverage(only, CoverageMode::executions);
    run_both({{"cover_branch", {0}}});
    const size_t first = blocks.coverage().executed_blocks();
    EXPECT_GE(first, 1u);
    run_both({{"cover_branch", {0}}, {"cover_branch", {7}}});
    EXPECT_GT(blocks.coverage().executed_blocks(), first); // the x == 7 block
    run_both({{"cover_branch", {0}}, {"cover_branch", {7}}});
}

// A block that did not run is not counted: only x == 7 runs the branch's block.
TEST_F(CoverageModes, BlockThatDidNotRunIsNotCounted) {
    std::vector<Routine> only = routines_named(blocks, {"cover_branch"});
    blocks.enable_coverage(only);
    executions.enable_coverage(only, CoverageMode::executions);
    run_both({{"cover_branch", {7}}});
    const std::map<Address, uint32_t> with_branch = observe(blocks).sizes;
    blocks.enable_coverage(only);
    executions.enable_coverage(only, CoverageMode::executions);
    run_both({{"cover_branch", {0}}, {"cover_branch", {1}}});
    const std::map<Address, uint32_t> without = observe(blocks).sizes;
    // x == 7 falls through from the entry block into the branch's code: a block x == 0 never starts.
    std::vector<Address> only_with;
    for (const auto& [a, size] : with_branch)
        if (!without.count(a)) only_with.push_back(a);
    ASSERT_FALSE(only_with.empty());
    for (Address b : only_with)
        for (const auto& [a, size] : without)
            EXPECT_FALSE(b >= a && b < a + size) << hex(b) << " in " << hex(a);
}

// The point of the mode: once the hooks are rebuilt, a covered block runs without a hook call
// (it is recorded no more), while a block still uncovered is recorded when it first runs.
TEST_F(CoverageModes, CoveredBlocksLeaveTheHooks) {
    std::vector<Routine> two = routines_named(blocks, {"cover_branch", "cover_loop"});
    ASSERT_EQ(two.size(), 2u);
    blocks.enable_coverage(two);
    ASSERT_TRUE(blocks.call("cover_loop", Convention::cdecl, {50, 0}).ok());
    const Address entry = blocks.image().require("cover_branch");
    const uint32_t hot = blocks.coverage().recorded(entry);
    EXPECT_EQ(hot, 51u); // hooked for the whole first call: 50 + 1 runs
    ASSERT_TRUE(blocks.call("cover_loop", Convention::cdecl, {50, 0}).ok());
    ASSERT_TRUE(blocks.call("cover_branch", Convention::cdecl, {0}).ok());
    EXPECT_EQ(blocks.coverage().recorded(entry), hot) << "a covered block is still hooked";
    EXPECT_EQ(blocks.coverage().blocks().at(entry).hits, 1u); // blocks mode: ran, not how often
}

// More covered starts than the ranged hooks can leave out (the machine keeps at most 64 hooks): the
// one block hook takes over, nothing is lost or added across the switch, and a block already
// recorded is not recorded again (it costs a slot compare, not a walk of 64 hooks per run).
TEST_F(CoverageModes, MoreCoveredBlocksThanHooks) {
    std::vector<Routine> only = routines_named(blocks, {"cover_many"});
    ASSERT_EQ(only.size(), 1u);
    blocks.enable_coverage(only);
    executions.enable_coverage(only, CoverageMode::executions);
    std::vector<Step> steps;
    for (uint32_t x : {0u, 0xffffffffu, 0x5555u, 0u, 0xaaaa0000u, 0x12345678u, 0xffffffffu, 0x0f0f0f0fu})
        steps.push_back({"cover_many", {x}});
    run_both(steps);
    EXPECT_GT(blocks.coverage().executed_blocks(), 150u);
    const auto recorded = [&] {
        uint64_t n = 0;
        for (const auto& [a, b] : blocks.coverage().blocks()) n += blocks.coverage().recorded(a);
        return n;
    };
    run_both(steps); // every covered block runs once more, under the block hook
    const uint64_t settled = recorded();
    run_both(steps);
    EXPECT_EQ(recorded(), settled) << "covered blocks were recorded again: still hooked";
    blocks.coverage().clear();
    executions.coverage().clear();
    run_both(steps); // a clear brings every block back, under the same hook
    EXPECT_GT(blocks.coverage().executed_blocks(), 150u);
}

// clear() (refcheck mutate's per-input coverage) forgets the blocks: the next call records them
// again, although they had left the hooks.
TEST_F(CoverageModes, ClearBringsCoveredBlocksBack) {
    blocks.enable_coverage(all);
    executions.enable_coverage(all, CoverageMode::executions);
    run_both({{"cover_loop", {4, 7}}, {"cover_loop", {4, 7}}});
    const Observed before = observe(blocks);
    for (int input = 0; input < 3; ++input) {
        blocks.coverage().clear();
        executions.coverage().clear();
        EXPECT_EQ(blocks.coverage().executed_blocks(), 0u);
        run_both({{"cover_loop", {2, 7}}});
        EXPECT_EQ(observe(blocks).sizes, before.sizes) << "input " << input;
        run_both({{"cover_branch", {0}}});
    }
}

// The budget stops a routine that never returns, with coverage on in either mode, and coverage
// goes on afterwards; the count of a routine that returns is the same with coverage on or off.
TEST_F(CoverageModes, BudgetStopsLoopingRoutineWithCoverageOn) {
    CallResult plain = blocks.call("cover_loop", Convention::cdecl, {10, 7}, CallLimits{1000000, 0});
    ASSERT_TRUE(plain.ok()) << describe(plain);
    ASSERT_TRUE(plain.instructions);
    blocks.enable_coverage(all);
    executions.enable_coverage(all, CoverageMode::executions);
    run_both({{"cover_branch", {0}}}); // hooks rebuilt before the budgeted calls
    for (Machine* m : {&blocks, &executions}) {
        // The wall-clock limit is only a backstop: a lost budget fails the test instead of hanging it.
        CallResult r = m->call("spin_forever", Convention::cdecl, {}, CallLimits{100000, 5000});
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.fault->kind, FaultKind::budget_exceeded) << describe(r);
        ASSERT_TRUE(r.instructions);
        EXPECT_LE(*r.instructions, 100000u);
        EXPECT_GT(*r.instructions, 99000u);
        CallResult counted = m->call("cover_loop", Convention::cdecl, {10, 7}, CallLimits{1000000, 0});
        ASSERT_TRUE(counted.ok()) << describe(counted);
        EXPECT_EQ(counted.instructions, plain.instructions);
        CallResult tight =
            m->call("cover_loop", Convention::cdecl, {10, 7}, CallLimits{*plain.instructions - 1, 0});
        ASSERT_FALSE(tight.ok());
        EXPECT_EQ(tight.fault->kind, FaultKind::budget_exceeded);
    }
    EXPECT_EQ(observe(blocks).sizes, observe(executions).sizes);
    run_both({{"cover_loop", {3, 0}}, {"load_loop", {buf_b, 16, 1}}});
}

} // namespace
} // namespace refcheck::emu
