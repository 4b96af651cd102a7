// mobile.move_cross: a move into another sector unlinks the mobile and puts it at the front of the new
// sector's list. Whether a move crossed was the script's word, from the reimplementation's sector_of,
// and labelled both sides' queue entries: an original whose move_mobile_ never relinks (its "same
// sector" branch taken always) left the mobile in its old list, which the camera's 3 x 3 scan still
// reads, so the queue (sorted by distance) was the same and the run was equivalent, claiming
// mobile.move_cross. Now each side says whether the move crossed: the original from the sector its
// mobile struct holds before and after move_mobile_, the reimplementation from its own sector_of.
#include "cli_support.hpp"
#include "code_site.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace refcheck::cli_test {
namespace {

class MobileMoveTest : public CliTest {};

// Two mobiles ahead of the default camera (the map centre, 3000 up, looking along +z), then the first
// moved one sector along x: into the sector next to the camera's, which its scan reads.
ojson move_next_door() {
    constexpr std::int32_t centre = 32 * 65536 + 32768;
    const ojson script = ojson::array({
        {{"add", 1}, {"model", 1}, {"position", {centre, 1000, centre + 20000}}},
        {{"add", 2}, {"model", 1}, {"position", {centre + 70, 1000, centre + 20070}}},
        {{"move", 1}, {"position", {centre + 65536, 1000, centre + 20000}}},
    });
    return {{"schema", "refcheck-case/1"},
            {"family", "mobile"},
            {"description", "a move into the next sector, still in the camera's scan (mobile.move_cross)"},
            {"selection", {{"script", script}}},
            {"compares", {"queue_entry"}},
            {"rules", {"mobile.move_cross"}}};
}

// move_mobile_'s `if (sector == m->sector) return;`: the conditional jump to the function's end
// after the compare with the struct's sector.
CodeSite same_sector_return() {
    const auto code = instructions_of("move_mobile_body");
    std::size_t k = 0;
    while (k + 1 < code.size() &&
           !(code[k].text.starts_with("cmp dword ptr [esi + 0x") && code[k + 1].text.starts_with("je ")))
        ++k;
    if (k + 1 >= code.size())
        throw std::runtime_error("move_mobile_body has no compare of the struct's sector");
    return find_instruction("move_mobile_body",
                            [&](const emu::Instruction& in) { return in.address == code[k + 1].address; });
}

TEST_F(MobileMoveTest, AnOriginalThatNeverRelinksAMoveDiverges) {
    // The same-sector return made unconditional.
    const CodeSite same = same_sector_return();
    ASSERT_EQ(same.bytes.size(), 2u) << same.instruction.text;
    std::vector<std::uint8_t> always = same.bytes;
    always[0] = 0xeb; // jmp rel8
    const std::string args =
        "run " + quote(write_case("next-door", move_next_door())) + " --data " + quote(kSmallData);
    const Result clean = refcheck(args + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    EXPECT_GT(read_json(path("clean/next-door.json")).at("exercised").at("mobile.move_cross").get<int>(), 0);

    const Result mutant =
        refcheck(args + " --out mutant --patch " +
                 quote(same.where() + ":" + hex_bytes(same.bytes) + "->" + hex_bytes(always)));
    ASSERT_EQ(mutant.code, 1) << mutant.out << mutant.err;
    const ojson report = read_json(path("mutant/next-door.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "step 2") << d.dump(2);
    EXPECT_EQ(d.at("original").at("fields").at("op"), "move_inside") << d.dump(2);
    EXPECT_EQ(d.at("reimpl").at("fields").at("op"), "move_across") << d.dump(2);
    EXPECT_EQ(read_json(path("mutant/next-door.json")).at("metrics").at("played_moves_across_sectors"), 0);
}

// Sector list order (mobile.insert_front, move_same): the queue is sorted by distance, then id, so it
// shows which mobiles the scan found, never the order a sector's list holds them in, and the order
// rules were claimed by queue entries alone. A move inside a sector that relinks the mobile at the
// front anyway (the same-sector return made NOPs) left every queue as it was and stayed equivalent.
// The lists a step touches are now compared, front to back.
TEST_F(MobileMoveTest, AMoveInsideASectorThatRelinksItAtTheFrontDiverges) {
    constexpr std::int32_t centre = 32 * 65536 + 32768;
    const ojson script = ojson::array({
        {{"add", 1}, {"model", 1}, {"position", {centre, 1000, centre + 20000}}},
        {{"add", 2}, {"model", 1}, {"position", {centre + 70, 1000, centre + 20070}}},
        {{"add", 3}, {"model", 1}, {"position", {centre + 140, 1000, centre + 20140}}},
        {{"move", 1}, {"position", {centre + 10, 1000, centre + 20010}}},
    });
    const ojson c = {{"schema", "refcheck-case/1"},
                     {"family", "mobile"},
                     {"description", "three mobiles in one sector, the last of its list moved inside it"},
                     {"selection", {{"script", script}}},
                     {"rules", {"mobile.insert_front", "mobile.move_same"}}};
    const CodeSite same = same_sector_return();
    const std::string args = "run " + quote(write_case("inside", c)) + " --data " + quote(kSmallData);
    const Result clean = refcheck(args + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson x = read_json(path("clean/inside.json")).at("exercised");
    EXPECT_GT(x.at("mobile.insert_front").get<int>(), 0) << x;
    EXPECT_GT(x.at("mobile.move_same").get<int>(), 0) << x;

    const Result mutant = refcheck(args + " --out mutant --patch " +
                                   quote(same.where() + ":" + hex_bytes(same.bytes) + "->" +
                                         hex_bytes(std::vector<std::uint8_t>(same.bytes.size(), 0x90))));
    ASSERT_EQ(mutant.code, 1) << mutant.out << mutant.err;
    const ojson report = read_json(path("mutant/inside.json"));
    const ojson d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "step 3") << d.dump(2);
    EXPECT_EQ(d.at("original").at("kind"), "sector_list") << d.dump(2);
    EXPECT_EQ(d.at("original").at("fields").at("ids"), ojson::array({1, 3, 2})) << d.dump(2);
    EXPECT_EQ(d.at("reimpl").at("fields").at("ids"), ojson::array({3, 2, 1})) << d.dump(2);
    EXPECT_EQ(report.at("counts").at("unexplained"), 1) << "the queue is the same: " << report.at("counts");
}

} // namespace
} // namespace refcheck::cli_test
