// The shadow family's shadow_face events: every draw_shadow_face_ call of the original (its mesh
// and face vertices) against the faces the reimplementation draws. Frames alone missed mutants
// of the shadow program (refcheck mutate: a decision plane's branch negated draws the other side's
// faces, which cover the same pixels); compared face by face such a mutant is caught.
#include "cli_support.hpp"
#include "code_site.hpp"

namespace refcheck::cli_test {
namespace {

class ShadowFaceTest : public CliTest {};

ojson small_shadows() {
    ojson j = read_json(shipped_case("shadows"));
    j["selection"]["views"] = ojson::array({j["selection"]["views"][0]});
    j["selection"]["suns"] = ojson::array({j["selection"]["suns"][0]});
    return j;
}

// In sop_plane, the shadow program's decision-plane op, the first sign test (js/jns): the branch
// on the plane's winding that picks which side is drawn first.
CodeSite winding_branch() {
    return find_instruction("sop_plane", [](const emu::Instruction& in) {
        return in.text.starts_with("js ") || in.text.starts_with("jns ");
    });
}

TEST_F(ShadowFaceTest, ShadowProgramBranchNegatedDivergesAtAShadowFace) {
    const CodeSite site = winding_branch();
    ASSERT_EQ(site.bytes.size(), 2u) << site.instruction.text; // a short Jcc
    std::vector<std::uint8_t> negated = site.bytes;
    negated[0] ^= 1;

    const fs::path file = write_case("small-shadows", small_shadows());
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson clean_report = read_json(path("clean/small-shadows.json"));
    EXPECT_GT(clean_report.at("counts").at("by_kind").at("shadow_face").get<int>(), 0);
    EXPECT_EQ(clean_report.at("counts").at("unexplained"), 0);

    const Result run = refcheck("run " + common + " --out patched --patch '" + site.where() + ":" +
                                hex_bytes(site.bytes) + "->" + hex_bytes(negated) + "'");
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("patched/small-shadows.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "shadow_face") << d.dump();
    EXPECT_EQ(d.at("reimpl").at("kind"), "shadow_face") << d.dump();
    // The faces before it matched on both sides.
    EXPECT_EQ(d.at("context").at("original_before"), d.at("context").at("reimpl_before"));
}

} // namespace
} // namespace refcheck::cli_test
