// mobile.capacity: the drawing queue holds 256 entries. An original that kept 257 (the mutant
// `cmp ebx, 0xff` made 0x100 in build_mobile_queue_body, which docs/mutants/survivors.md lists as
// surviving) returned 257, and the harness read only the first 256 ids. With 257 mobiles in the
// camera's sector, the first added (so scanned last: add_mobile_ puts a mobile at the front of its
// sector's list) and the nearest (so drawn last), the mutant's first 256 ids are the correct queue:
// the queue compared equal, and the run was equivalent. Now a count past 256 is an entry of its own,
// which the correct original (the control) never makes.
#include "cli_support.hpp"
#include "code_site.hpp"

#include <gtest/gtest.h>

#include <string>

namespace refcheck::cli_test {
namespace {

class MobileCapacityTest : public CliTest {};

// 257 additions in the sector of the default camera (the map centre, 3000 up, looking along +z),
// 20,000 ahead, each farther than the one before.
ojson crowded_sector() {
    ojson script = ojson::array();
    constexpr std::int32_t centre = 32 * 65536 + 32768;
    for (int i = 0; i < 257; ++i)
        script.push_back(
            {{"add", i + 1}, {"model", 1}, {"position", {centre + 8 * i, 1000, centre + 20000 + 16 * i}}});
    return {{"schema", "refcheck-case/1"},
            {"family", "mobile"},
            {"description", "257 mobiles in one sector, the first added the nearest (mobile.capacity)"},
            {"selection", {{"script", script}}},
            {"compares", {"queue_entry"}},
            {"rules", ojson::array()}};
}

TEST_F(MobileCapacityTest, AnOriginalThatQueuesPastTheCapacityDiverges) {
    const CodeSite cap = find_instruction(
        "build_mobile_queue_body", [](const emu::Instruction& in) { return in.text == "cmp ebx, 0xff"; });
    ASSERT_EQ(hex_bytes(cap.bytes), "81fbff000000") << cap.instruction.text;
    const std::string args =
        "run " + quote(write_case("crowded", crowded_sector())) + " --data " + quote(kSmallData);
    const Result clean = refcheck(args + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err; // the control: 256 entries on both sides

    const Result mutant =
        refcheck(args + " --out mutant --patch '" + cap.where() + ":81fbff000000->81fb00010000'");
    ASSERT_EQ(mutant.code, 1) << mutant.out << mutant.err;
    const ojson report = read_json(path("mutant/crowded.json"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "step 256") << d.dump(2); // the 257th addition: the first with 257 kept
    EXPECT_EQ(report.at("counts").at("unexplained"), 1) << report.at("counts").dump();
    EXPECT_EQ(report.at("counts").at("missing_in_reimpl"), 1) << report.at("counts").dump();
    EXPECT_NE(d.dump().find("\"index\""), std::string::npos) << d.dump(2);
}

} // namespace
} // namespace refcheck::cli_test
