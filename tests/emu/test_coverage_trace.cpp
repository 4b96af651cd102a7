// Coverage per routine, the drcov export, and the instruction trace ring.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

Routine routine(const Machine& m, const char* name, uint32_t size) {
    Address a = m.image().require(name);
    return {name, {a, a + size}};
}

TEST(Coverage, CountsBlocksPerRoutineAndWritesDrcov) {
    Machine m;
    m.load(test::test_image());
    m.enable_coverage(
        {routine(m, "call_add3", 0x20), routine(m, "add3_cdecl", 0x20), routine(m, "load_loop", 0x80)});
    Address buf = test::guest_buffer(m, 16);
    ASSERT_TRUE(m.call("call_add3", Convention::cdecl, {1}).ok());
    ASSERT_TRUE(m.call("load_loop", Convention::cdecl, {buf, 16, 2}).ok());
    auto per = m.coverage().blocks_per_routine();
    ASSERT_EQ(per.size(), 3u);
    EXPECT_GE(per[0].second, 1u);
    EXPECT_GE(per[1].second, 1u);
    EXPECT_GE(per[2].second, 3u); // entry, loop body, exit at least
    // No block outside the given ranges was recorded (another routine of the image, heap or shim code).
    const std::vector<std::pair<std::string, std::uint32_t>> ranges = {
        {"call_add3", 0x20}, {"add3_cdecl", 0x20}, {"load_loop", 0x80}};
    for (const auto& [address, hits] : m.coverage().blocks()) {
        bool inside = false;
        for (const auto& [name, size] : ranges) {
            const Address start = m.image().require(name);
            inside = inside || (address >= start && address < start + size);
        }
        EXPECT_TRUE(inside) << hex(address);
    }

    std::ostringstream out;
    m.coverage().write_drcov(out, m.image());
    std::string drcov = out.str();
    std::istringstream in(drcov);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "DRCOV VERSION: 2");
    std::getline(in, line);
    EXPECT_TRUE(line.starts_with("DRCOV FLAVOR: "));
    std::getline(in, line);
    EXPECT_EQ(line, "Module Table: version 2, count 1");
    std::getline(in, line);
    EXPECT_EQ(line, "Columns: id, base, end, entry, checksum, timestamp, path");
    std::getline(in, line);
    EXPECT_TRUE(line.starts_with(" 0, 0x00400000, 0x")) << line;
    EXPECT_TRUE(line.ends_with("emu_test_image.exe")) << line;
    std::getline(in, line);
    size_t count = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "BB Table: %zu bbs", &count), 1) << line;
    EXPECT_EQ(count, m.coverage().blocks().size());
    EXPECT_GT(count, 0u);
    size_t table_at = static_cast<size_t>(in.tellg());
    ASSERT_EQ(drcov.size() - table_at, count * 8);
    // The first entry: start offset (u32), size (u16), module id (u16).
    uint32_t start;
    uint16_t size, module;
    std::memcpy(&start, drcov.data() + table_at, 4);
    std::memcpy(&size, drcov.data() + table_at + 4, 2);
    std::memcpy(&module, drcov.data() + table_at + 6, 2);
    EXPECT_EQ(m.image().base + start, m.coverage().blocks().begin()->first);
    EXPECT_GT(size, 0u);
    EXPECT_EQ(module, 0u);
}

TEST(Coverage, RoutinesFromTheImageSymbols) {
    Machine m;
    m.load(test::test_image());
    std::vector<Routine> all = routines_of(m.image());
    auto add3 = std::find_if(all.begin(), all.end(), [](const Routine& r) { return r.name == "add3_cdecl"; });
    ASSERT_NE(add3, all.end());
    EXPECT_EQ(add3->range.begin, m.image().require("add3_cdecl"));
    EXPECT_GT(add3->range.size(), 8u);
    EXPECT_LT(add3->range.size(), 64u);
    for (size_t i = 1; i < all.size(); ++i) EXPECT_LE(all[i - 1].range.end, all[i].range.begin);
    m.enable_coverage(all);
    ASSERT_TRUE(m.call("call_add3", Convention::cdecl, {1}).ok());
    size_t covered = 0;
    for (const auto& [name, blocks] : m.coverage().blocks_per_routine()) covered += blocks > 0;
    EXPECT_EQ(covered, 2u); // call_add3 and add3_cdecl
}

// The table behind record(): one slot per byte of the covered span, hits counted per block start,
// nothing recorded outside the span, clear() forgets everything. (CoverageMode::blocks reports
// hits as 1: tests/emu/test_coverage_modes.cpp.)
TEST(Coverage, FlatTableRecordsBlocksInsideTheSpanOnly) {
    Coverage c;
    c.set_routines({{"b", {0x2000, 0x2040}}, {"a", {0x1000, 0x1010}}}, CoverageMode::executions);
    EXPECT_EQ(c.span().begin, 0x1000u);
    EXPECT_EQ(c.span().end, 0x2040u);
    c.record(0x1004, 6);
    c.record(0x1004, 6);
    c.record(0x203f, 1);
    c.record(0x0fff, 3); // before the span
    c.record(0x2040, 3); // at its end
    const auto blocks = c.blocks();
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks.at(0x1004).hits, 2u);
    EXPECT_EQ(blocks.at(0x1004).size, 6u);
    EXPECT_EQ(blocks.at(0x203f).hits, 1u);
    EXPECT_EQ(c.executed_blocks(), 2u);
    auto per = c.blocks_per_routine();
    ASSERT_EQ(per.size(), 2u);
    EXPECT_EQ(per[0], (std::pair<std::string, size_t>{"b", 1}));
    EXPECT_EQ(per[1], (std::pair<std::string, size_t>{"a", 1}));
    c.clear();
    EXPECT_TRUE(c.blocks().empty());
}

TEST(Trace, RingBufferOfExecutedInstructions) {
    Machine m;
    m.load(test::test_image());
    m.enable_trace(8);
    CallResult r = m.call("add3_cdecl", Convention::cdecl, {1, 2, 3});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_GT(m.trace().total(), 3u);
    std::vector<Address> last = m.trace().last(100);
    ASSERT_EQ(last.size(), std::min<size_t>(8, m.trace().total()));
    EXPECT_EQ(last.front() >= m.image().require("add3_cdecl"), true);
    std::vector<std::string> text = m.disassemble_trace(2);
    ASSERT_EQ(text.size(), 2u);
    EXPECT_NE(text.back().find("<add3_cdecl+"), std::string::npos) << text.back();
    EXPECT_NE(text.back().find("ret"), std::string::npos) << text.back();
    m.disable_trace();
    uint64_t total = m.trace().total();
    m.call("add3_cdecl", Convention::cdecl, {1, 2, 3});
    EXPECT_EQ(m.trace().total(), total);
}

TEST(Trace, RingKeepsOnlyTheLastEntries) {
    Trace t;
    t.reset(3);
    for (Address a : {1u, 2u, 3u, 4u, 5u}) t.record(a);
    EXPECT_EQ(t.last(10), (std::vector<Address>{3, 4, 5}));
    EXPECT_EQ(t.last(2), (std::vector<Address>{4, 5}));
}

} // namespace
} // namespace refcheck::emu
