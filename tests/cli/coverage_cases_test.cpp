// Cases added to kill what the default cases let survive (issue 12): the receiver queries far from
// the origin kill mutants of the receiver test's 64-bit arithmetic that the default centre cannot,
// and the out-of-range warzones kill the palette routine's bound at its rejection event.
#include "cli_support.hpp"

#include <set>

namespace refcheck::cli_test {
namespace {

class CoverageCasesTest : public CliTest {};

// Killed mutants of `routines` over `case_file`, by id.
std::set<std::string> killed(const ojson& mutate) {
    std::set<std::string> out;
    for (const auto& m : mutate.at("mutants"))
        if (m.at("status") == "killed") out.insert(m.at("id").get<std::string>());
    return out;
}

TEST_F(CoverageCasesTest, FarReceiverQueriesKillWhatTheDefaultCentreLetsSurvive) {
    const std::string routines =
        " --routines 'mobile.c:receives' --operators imm_plus_one,imm_minus_one --jobs 2";
    const Result near = refcheck("mutate " + quote(kCasesDir / "receivers.json") + routines + " --out near");
    ASSERT_TRUE(near.code == 0 || near.code == 1) << near.out << near.err;
    const Result far =
        refcheck("mutate " + quote(kCasesDir / "coverage-receivers-far.json") + routines + " --out far");
    ASSERT_TRUE(far.code == 0 || far.code == 1) << far.out << far.err;
    const auto by_near = killed(read_json(path("near/mutate.json")));
    const auto by_far = killed(read_json(path("far/mutate.json")));
    std::size_t only_far = 0;
    for (const auto& id : by_far) only_far += by_near.count(id) ? 0 : 1;
    // The sign extensions (sar 31) of the caster's and the receiver's coordinates: a shift by 30 or
    // 32 changes nothing while they stay below 2^30, as the default centre's do.
    EXPECT_GE(only_far, 2u) << "near killed " << by_near.size() << ", far killed " << by_far.size();
}

TEST_F(CoverageCasesTest, EachReceiverQueryIsAnInputOfItsOwnForMutate) {
    // A query's calls belong to that query (the family announces it before its work), so a mutant
    // of the receiver test runs on the queries that reach it; before, every call of a query was
    // seen before its announcement, the first query's as the case's set-up, and each mutant ran on
    // the first query alone ("before inputs").
    const Result r =
        refcheck("mutate " + quote(kCasesDir / "receivers.json") +
                 " --routines 'mobile.c:receives' --operators add_to_sub,sub_to_add --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    std::size_t many = 0;
    for (const auto& m : j.at("mutants")) {
        EXPECT_NE(m.value("reason", std::string()).rfind("before inputs", 0), 0u) << m.dump();
        many += m.value("reaching_inputs", 0) > 1 ? 1 : 0;
    }
    EXPECT_GE(many, 1u) << j.at("totals").dump();
}

TEST_F(CoverageCasesTest, TheWarzoneBoundMovedByOneIsKilledAtTheRejectionEvent) {
    const Result r = refcheck("mutate " + quote(kCasesDir / "coverage-palette-warzones.json") +
                              " --routines 'initialise_3d_palette_body' --operators imm_plus_one,negate_jcc"
                              " --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t at_rejection = killed_by_divergence(j, [](const ojson& k) {
        return k.at("event").value("original", ojson()) == "rejection" && k.at("input") == "warzone 4";
    });
    EXPECT_GE(at_rejection, 1u) << j.at("totals").dump();
}

// Each bound of scene.params.valid moved up by one accepts the parameter set one past it, which
// the case passes after its frame: the original then samples the terrain and draws where both sides
// must refuse, a divergence at that refused input. The scenes' own valid parameters cannot show it.
TEST_F(CoverageCasesTest, SceneParameterBoundsMovedByOneAreKilledAtTheRefusedSet) {
    const Result r = refcheck("mutate " + quote(kCasesDir / "coverage-scene-refused.json") +
                              " --routines 'draw_scene_body' --operators imm_plus_one --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t at_refused = killed_by_divergence(j, [](const ojson& k) {
        return k.at("input").get<std::string>().rfind("refused parameters ", 0) == 0;
    });
    EXPECT_GE(at_refused, 3u) << j.at("totals").dump();
}

// The generator writes mask 0 only, so the face routine's mask handling (the mask byte shifted into
// the material, the test of the masked types) could be lost without a pixel changing; the edge root
// program-edge-masks draws masked faces whose masks are texels of their texture, over other faces:
// those mutants now change pixels of its frames.
TEST_F(CoverageCasesTest, MaskedFacesWithNonzeroMasksKillTheFaceRoutinesMaskHandling) {
    const Result r =
        refcheck("mutate " + quote(kCasesDir / "frames-edge-masks.json") +
                 " --routines 'faces.c:draw_face_packet' --operators negate_jcc,or_to_and,store_nop"
                 " --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t at_record_47 = killed_by_divergence(j, [](const ojson& k) {
        return k.at("case") == "frames-edge-masks" &&
               k.at("input").get<std::string>().rfind("record 47 ", 0) == 0;
    });
    EXPECT_GE(at_record_47, 3u) << j.at("totals").dump();
}

// The probing views put a vertex exactly where a bound of the projection decides: the screen
// clamp's bound moved by one lets sx = 32768 through, and the probe at (8152, 0, 64) (view 2) is
// where the original clamps it to 32767; the near plane's first test moved by one marks the vertex
// at depth 64 (view 0) behind, or the one at 63 (view 1) in front. The default views, angles at whole
// radii, never land on these values: the clamp's mutant survives the same records seen from two
// such views, on the same small archives.
TEST_F(CoverageCasesTest, ProbingViewsKillTheProjectionBoundsAtTheViewThatSitsOnThem) {
    const std::string args = " --data " + quote(kSmallData) +
                             " --routines 'transform.c:transform_s16' --operators imm_plus_one,imm_minus_one"
                             " --jobs 2 --equivalents " +
                             quote(kCasesDir / "mutants" / "equivalent.json");
    const Result r =
        refcheck("mutate " + quote(kCasesDir / "coverage-probe-boundaries.json") + args + " --out p");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("p/mutate.json"));
    auto find = [&](const std::string& op, const std::string& text) -> const ojson* {
        for (const auto& m : j.at("mutants"))
            if (m.at("operator") == op && m.at("instruction") == text && m.at("status") == "killed")
                return &m;
        return nullptr;
    };
    auto view_of = [](const ojson& m) {
        const std::string input = m.at("killed_by").at("input");
        const std::size_t at = input.find(" view ");
        return at == std::string::npos ? -1 : std::stoi(input.substr(at + 6));
    };
    const ojson* clamp = find("imm_plus_one", "cmp esi, 0x7fff");
    ASSERT_NE(clamp, nullptr) << "the sx clamp's bound + 1 survived the probes";
    EXPECT_EQ(clamp->at("killed_by").at("how"), "divergence");
    EXPECT_EQ(clamp->at("killed_by").at("event").at("original"), "face_draw") << clamp->dump();
    EXPECT_EQ(view_of(*clamp), 2) << clamp->dump();
    const ojson* near_plus = find("imm_plus_one", "cmp eax, 0x3f");
    ASSERT_NE(near_plus, nullptr);
    EXPECT_EQ(view_of(*near_plus), 0) << near_plus->dump();
    const ojson* near_minus = find("imm_minus_one", "cmp eax, 0x3f");
    ASSERT_NE(near_minus, nullptr);
    EXPECT_EQ(view_of(*near_minus), 1) << near_minus->dump();

    // The same records at the default kind of views: these bounds are not where any vertex lands.
    ojson plain = read_json(kCasesDir / "coverage-probe-boundaries.json");
    plain["selection"]["views"] = {{{"yaw", 30}, {"pitch", 20}, {"distance", 1}},
                                   {{"yaw", 200}, {"pitch", -10}, {"distance", 2}}};
    const Result d = refcheck("mutate " + quote(write_case("plain-views", plain)) + args + " --out d");
    ASSERT_TRUE(d.code == 0 || d.code == 1) << d.out << d.err;
    const ojson plain_report = read_json(path("d/mutate.json"));
    std::size_t seen = 0;
    for (const auto& m : plain_report.at("mutants")) {
        if (m.at("instruction") != "cmp esi, 0x7fff" || m.at("operator") != "imm_plus_one") continue;
        ++seen;
        EXPECT_NE(m.at("status"), "killed") << m.dump();
    }
    EXPECT_EQ(seen, 1u);
}

} // namespace
} // namespace refcheck::cli_test
