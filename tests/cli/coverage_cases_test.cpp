// Cases added to kill what the default cases let survive (issue 12): the receiver queries far from
// the origin kill mutants of the receiver test's 64-bit arithmetic that the default centre cannot,
// and the out-of-range warzones kill the palette routine's bound at its rejection event.
#include "cli_support.hpp"
#include "code_site.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

namespace refcheck::cli_test {
namespace {

std::set<std::string> killed(const ojson& mutate);
std::string first_killer(const std::map<std::string, std::string>& by, const std::string& prefix);

class CoverageCasesTest : public CliTest {
protected:
    // The mutants `mutate ARGS` kills over `added` but not over `plain`, and how many each killed.
    struct OnlyBy {
        std::size_t only = 0, plain = 0, added = 0;
    };
    OnlyBy killed_only_by(const fs::path& plain, const fs::path& added, const std::string& args) {
        const Result a = refcheck("mutate " + quote(plain) + args + " --out plain");
        EXPECT_TRUE(a.code == 0 || a.code == 1) << a.out << a.err;
        const Result b = refcheck("mutate " + quote(added) + args + " --out added");
        EXPECT_TRUE(b.code == 0 || b.code == 1) << b.out << b.err;
        const auto by_plain = killed(read_json(path("plain/mutate.json")));
        const auto by_added = killed(read_json(path("added/mutate.json")));
        OnlyBy r{0, by_plain.size(), by_added.size()};
        for (const auto& id : by_added) r.only += by_plain.count(id) ? 0 : 1;
        return r;
    }
    // The case that killed each killed mutant of `mutate ARGS` over `cases`, by id.
    std::map<std::string, std::string> killers(const std::string& cases, const std::string& args,
                                               const std::string& out) {
        const Result r = refcheck("mutate " + cases + args + " --out " + out);
        EXPECT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
        std::map<std::string, std::string> by;
        const ojson report = read_json(path(out + "/mutate.json"));
        for (const auto& m : report.at("mutants"))
            if (m.at("status") == "killed") by[m.at("id").get<std::string>()] = m.at("killed_by").at("case");
        return by;
    }
};

// The case that killed the first mutant whose id starts with `prefix`, or "(survived)".
std::string first_killer(const std::map<std::string, std::string>& by, const std::string& prefix) {
    const auto it = by.lower_bound(prefix);
    return it != by.end() && it->first.rfind(prefix, 0) == 0 ? it->second : std::string("(survived)");
}

// Killed mutants of `routines` over `case_file`, by id.
std::set<std::string> killed(const ojson& mutate) {
    std::set<std::string> out;
    for (const auto& m : mutate.at("mutants"))
        if (m.at("status") == "killed") out.insert(m.at("id").get<std::string>());
    return out;
}

TEST_F(CoverageCasesTest, FarReceiverQueriesKillWhatTheDefaultCentreLetsSurvive) {
    const OnlyBy r = killed_only_by(kCasesDir / "receivers.json", kCasesDir / "coverage-receivers-far.json",
                                    " --routines 'mobile.c:receives' --operators imm_plus_one,imm_minus_one"
                                    " --jobs 2");
    // The sign extensions (sar 31) of the caster's and the receiver's coordinates: a shift by 30 or
    // 32 changes nothing while they stay below 2^30, as the default centre's do.
    EXPECT_GE(r.only, 2u) << "near killed " << r.plain << ", far killed " << r.added;
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

// The mutants of `report` that were killed, with their instruction text.
std::vector<const ojson*> killed_with(const ojson& report, const std::string& op, const std::string& text) {
    std::vector<const ojson*> out;
    for (const auto& m : report.at("mutants"))
        if (m.at("operator") == op && m.at("instruction") == text && m.at("status") == "killed")
            out.push_back(&m);
    return out;
}

// abi.null: each public routine called with a null pointer argument. The same cases without
// "null_arguments" pass only valid pointers: the guards' null branches never run, and a mutant that
// lets a null through (a test negated, an "or" of two null tests made an "and") survives them; with
// the null calls the original then reads through the null pointer, or draws where both sides must
// not, and the mutant is killed.
TEST_F(CoverageCasesTest, NullArgumentsKillTheGuardsThatOnlyANullPointerReaches) {
    const std::vector<std::string> names = {
        "coverage-null-arguments-program", "coverage-null-arguments-shadow",
        "coverage-null-arguments-receiver", "coverage-null-arguments-scene"};
    std::string with, without;
    std::vector<fs::path> valid; // the cases without "null_arguments"
    for (const auto& n : names) {
        with += " " + quote(kCasesDir / (n + ".json"));
        ojson c = read_json(kCasesDir / (n + ".json"));
        c["selection"].erase("null_arguments");
        ojson compares = ojson::array(); // without the null calls nothing is refused
        for (const auto& k : c.at("compares"))
            if (k != "rejection") compares.push_back(k);
        c["compares"] = compares;
        valid.push_back(write_case(n + "-valid", c));
        without += " " + quote(valid.back());
    }
    const std::string args = " --routines '^(draw_3d_object_body|draw_3d_object_shadow_body|"
                             "shadow_plane_height_body|draw_scene_body|construct_3d_object_body)$'"
                             " --operators negate_jcc,or_to_and --jobs 2";
    const Result r = refcheck("mutate" + with + args + " --out with");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const Result v = refcheck("mutate" + without + args + " --out without");
    ASSERT_TRUE(v.code == 0 || v.code == 1) << v.out << v.err;
    const ojson j = read_json(path("with/mutate.json"));
    const auto by_with = killed(j);
    const auto by_without = killed(read_json(path("without/mutate.json")));
    std::map<std::string, std::size_t> only_with; // per routine
    for (const auto& m : j.at("mutants"))
        if (by_with.count(m.at("id")) && !by_without.count(m.at("id"))) ++only_with[m.at("routine")];
    // draw_scene_'s "or" of its null tests made an "and"; construct_3d_object_'s null position and
    // rotation (with valid ones the defaults are never taken).
    EXPECT_GE(only_with["draw_scene_body"], 1u) << j.at("totals").dump();
    EXPECT_GE(only_with["construct_3d_object_body"], 1u) << j.at("totals").dump();

    // A guard that is a single test and jump: negating it stops valid calls too (killed either way),
    // so the fault only the null calls show is the guard removed. Each patch turns one "je" to the
    // null branch into two nops (the bytes it replaces named, so a moved stand-in fails with exit 2):
    // draw_3d_object_'s camera test, draw_3d_object_shadow_'s camera test, shadow_plane_height_'s
    // caster test. With the null calls each case is no longer equivalent; without them it still is.
    const std::string guards = " --patch '0x403213:7413->9090' --patch '0x405417:7437->9090'"
                               " --patch '0x40611b:741c->9090'";
    for (std::size_t k = 0; k < 3; ++k) {
        const Result n = refcheck("run " + quote(kCasesDir / (names[k] + ".json")) + guards + " --out n" +
                                  std::to_string(k));
        EXPECT_NE(n.code, 0) << names[k] << "\n" << n.out << n.err;
        EXPECT_NE(n.code, 2) << names[k] << "\n" << n.out << n.err;
        const Result p = refcheck("run " + quote(valid[k]) + guards + " --out p" + std::to_string(k));
        EXPECT_EQ(p.code, 0) << names[k] << "\n" << p.out << p.err;
    }
}

// A null argument's rejection is what each side drew, not a constant: an original whose shadow
// draw, given a null pointer, writes a pixel of its framebuffer and returns (no face drawn, nothing
// faulted) drew where abi.null says nothing is drawn. The patch turns draw_3d_object_shadow_'s null
// branch (draw_status = DRAW_NO_MODEL, which is not compared) into a store of colour 7 at the
// framebuffer's first pixel, padded with nops (both addresses the profile's). With the rejection a
// constant 0 on both sides the case stayed equivalent; now the original's rejection counts the pixel.
TEST_F(CoverageCasesTest, AnOriginalThatDrawsUnderANullArgumentDivergesAtTheRejection) {
    const std::map<std::string, std::uint32_t> at = {{"draw_status", profile_data_address("draw_status")},
                                                     {"framebuffer", profile_data_address("framebuffer")}};
    char store[64];
    std::snprintf(store, sizeof store, "mov dword ptr [0x%x], 0x20", at.at("draw_status"));
    const CodeSite site = find_instruction("draw_3d_object_shadow_body",
                                           [&](const emu::Instruction& i) { return i.text == store; });
    std::vector<std::uint8_t> pixel = {0xc6, 0x05};
    for (int k = 0; k < 4; ++k) pixel.push_back(static_cast<std::uint8_t>(at.at("framebuffer") >> (8 * k)));
    pixel.push_back(7);
    ASSERT_LE(pixel.size(), site.bytes.size()) << store;
    pixel.resize(site.bytes.size(), 0x90);
    const std::string patch =
        " --patch '" + site.where() + ":" + hex_bytes(site.bytes) + "->" + hex_bytes(pixel) + "'";
    const Result r =
        refcheck("run " + quote(kCasesDir / "coverage-null-arguments-shadow.json") + patch + " --out drawn");
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("drawn/coverage-null-arguments-shadow.json"));
    const ojson& first = report.at("first_unexplained");
    EXPECT_EQ(first.at("input"), "record 1 null instance") << first.dump();
    EXPECT_NE(first.dump().find("rejection"), std::string::npos) << first.dump();
    EXPECT_EQ(report.at("counts").at("unexplained"), 3) << report.at("counts").dump(); // one per null
}

// The default queue limits (64 .. 0x300000) keep every mobile of the 3 x 3 scan and every mobile has
// a record, so passes_filters' far drop and its no-record radius never ran; queue limits of one
// sector and unmodelled arrivals run both, and kill mutants the default mobiles let live.
TEST_F(CoverageCasesTest, QueueLimitsAndUnmodelledMobilesKillWhatTheDefaultQueueLetsLive) {
    const OnlyBy r = killed_only_by(kCasesDir / "mobiles.json", kCasesDir / "coverage-mobiles-limits.json",
                                    " --routines 'mobile.c:passes_filters' --jobs 2");
    EXPECT_GE(r.only, 2u) << "plain killed " << r.plain << ", limits killed " << r.added;
}

// More mobiles pass the filters than the queue holds (coverage-mobiles-capacity: 120 behind the
// camera, which the depth filter drops, then 300 ahead): which 256 are kept is the scan's order and
// where the filters run, and the queue's capacity bound moved by one dies, which the default mobiles
// (never a full queue) let live. The case's full queues are what claim mobile.scan_order and
// mobile.filter_first: the default mobiles' queues, sorted by distance then id, could not show either
// and claimed both. A mutant's inputs are all of the case's (--inputs-per-mutant 0): the first full
// queue is its 376th step, past the first inputs a capped run of a state-carrying case plays.
TEST_F(CoverageCasesTest, ACrowdedScanKillsTheQueuesCapacityMutantsAndClaimsTheScanOrder) {
    const OnlyBy r =
        killed_only_by(kCasesDir / "mobiles.json", kCasesDir / "coverage-mobiles-capacity.json",
                       " --routines 'build_mobile_queue_body$' --operators imm_plus_one,imm_minus_one "
                       "--inputs-per-mutant 0 --jobs 2");
    EXPECT_GE(r.only, 2u) << "plain killed " << r.plain << ", crowded killed " << r.added;
    // Each rule's ledger status: the default mobiles, claiming them too, alone prove none (their
    // claims are not exercised); with the crowded scan, each is Proven.
    const auto status = [&](const std::string& cases, const std::string& out, const std::string& rule) {
        const Result run = refcheck("run " + cases + " --out " + out);
        EXPECT_EQ(run.code, 0) << run.out << run.err;
        const ojson index = read_json(path(out + "/run.json"));
        for (const auto& row : index.at("ledger").at("rules"))
            if (row.at("id") == rule) return row.at("status").get<std::string>();
        return std::string("no row");
    };
    ojson claiming = read_json(kCasesDir / "mobiles.json");
    for (const char* rule : {"mobile.scan_order", "mobile.filter_first", "mobile.capacity"})
        claiming.at("rules").push_back(rule);
    const std::string plain = quote(write_case("mobiles", claiming));
    const std::string both = plain + " " + quote(kCasesDir / "coverage-mobiles-capacity.json");
    for (const char* rule : {"mobile.scan_order", "mobile.filter_first", "mobile.capacity"}) {
        EXPECT_NE(status(plain, "plain-run", rule), "Proven") << rule;
        EXPECT_EQ(status(both, "both-run", rule), "Proven") << rule;
    }
}

// shadow.program: the shadow interpreter's state switches (ops 4 and 5 in shadow mode) take the
// animation state, and every shadow case but the small edge ones drew state 0, under which op 5's
// shift and mask and op 4's bit test could be anything: an original ignoring them stayed equivalent
// over every shadow case, shadows.json Proving the rule. coverage-shadow-states draws the same
// models under states whose bits take each way; shadows.json no longer claims the rule.
TEST_F(CoverageCasesTest, AnimationStatesShowTheShadowInterpretersStateSwitches) {
    std::vector<std::pair<std::string, std::string>> patches; // what each breaks, the --patch
    const auto patch = [&](const CodeSite& site, std::vector<std::uint8_t> bytes, const std::string& what) {
        patches.emplace_back(what, site.where() + ":" + hex_bytes(bytes));
    };
    const CodeSite mask =
        find_instruction("sop_select", [](const emu::Instruction& in) { return in.text == "and ecx, eax"; });
    patch(mask, {0x89, 0xc1}, "op 5 ignores its mask"); // mov ecx, eax
    const CodeSite shift =
        find_instruction("sop_select", [](const emu::Instruction& in) { return in.text == "shr eax, cl"; });
    patch(shift, {0x90, 0x90}, "op 5 ignores its shift");
    const CodeSite test = find_instruction(
        "sop_choose", [](const emu::Instruction& in) { return in.text == "and eax, dword ptr [edx + 1]"; });
    const emu::Address after = test.instruction.address + test.instruction.size;
    const CodeSite branch =
        find_instruction("sop_choose", [&](const emu::Instruction& in) { return in.address == after; });
    ASSERT_EQ(branch.bytes.at(0), 0x74) << branch.instruction.text;
    std::vector<std::uint8_t> always = branch.bytes;
    always[0] = 0xeb; // jmp: the bit's test always says clear
    patch(branch, always, "op 4 always takes its clear branch");
    const std::string cases =
        quote(kCasesDir / "shadows.json") + " " + quote(kCasesDir / "coverage-shadow-states.json");
    for (std::size_t k = 0; k < patches.size(); ++k) {
        const auto& [what, where] = patches[k];
        const std::string out = "o" + std::to_string(k);
        const Result r = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out " + out +
                                  " --patch " + quote(where));
        EXPECT_EQ(r.code, 1) << what << r.out << r.err;
        EXPECT_EQ(read_json(path(out + "/shadows.json")).at("status"), "equivalent")
            << what << ": state 0 hides it";
        EXPECT_EQ(read_json(path(out + "/coverage-shadow-states.json")).at("status"), "divergent") << what;
    }
    const ojson claims = read_json(kCasesDir / "shadows.json").at("rules");
    EXPECT_EQ(std::count(claims.begin(), claims.end(), "shadow.program"), 0);
}

// shadow.project: the plane a shadow falls on is shadow_params.plane_height (h), and a sun pointing
// up draws nothing. The shadow family wrote terrain_height equal to plane_height, so a draw
// projecting onto terrain_height stayed equivalent over every shadow case; and no case could have
// a sun with y >= 0 (the case format refused one), so an original drawing under it did too. The
// ground now lies below the plane, and coverage-shadow-close has a sun pointing up.
TEST_F(CoverageCasesTest, ShadowsFallOnThePlaneHeightAndAnUpwardSunDrawsNothing) {
    const std::map<std::string, std::uint32_t> at = {
        {"plane_height", profile_offset("shadow_params", "plane_height")},
        {"terrain_height", profile_offset("shadow_params", "terrain_height")}};
    char plane[16];
    std::snprintf(plane, sizeof plane, "+ 0x%x]", at.at("plane_height"));
    const CodeSite read_plane = find_instruction("shadow_vertex", [&](const emu::Instruction& in) {
        return in.text.starts_with("mov ") && in.text.ends_with(plane);
    });
    std::vector<std::uint8_t> terrain = read_plane.bytes;
    ASSERT_EQ(terrain.back(), at.at("plane_height")) << read_plane.instruction.text;
    terrain.back() = static_cast<std::uint8_t>(at.at("terrain_height"));
    const CodeSite guard = find_instruction(
        "draw_3d_object_shadow_body", [](const emu::Instruction& in) { return in.text.starts_with("jns "); });
    const struct {
        std::string what, patch, divergent;
    } faults[] = {{"projects onto terrain_height", read_plane.where() + ":" + hex_bytes(terrain), "shadows"},
                  {"draws under a sun pointing up", guard.where() + ":9090", "coverage-shadow-close"}};
    const std::string cases =
        quote(kCasesDir / "shadows.json") + " " + quote(kCasesDir / "coverage-shadow-close.json");
    ASSERT_EQ(refcheck("run " + cases + " --data " + quote(kSmallData) + " --out clean").code, 0);
    for (std::size_t k = 0; k < std::size(faults); ++k) {
        const std::string out = "o" + std::to_string(k);
        const Result r = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out " + out +
                                  " --patch " + quote(faults[k].patch));
        EXPECT_EQ(r.code, 1) << faults[k].what << r.out << r.err;
        EXPECT_EQ(read_json(path(out + "/" + faults[k].divergent + ".json")).at("status"), "divergent")
            << faults[k].what;
    }
}

// The mobile script's cameras are Q14, so no rotation entry reaches 2^30 and the depth's sum never
// needs its high word: a camera with 1.0 = 2^31 - 1 (and a far limit a scan can pass) makes the sign
// words of the rotation and the 64-bit depth decide which mobiles are kept.
TEST_F(CoverageCasesTest, AQ31CameraKillsTheDepthFiltersSignWordMutants) {
    const OnlyBy r = killed_only_by(kCasesDir / "coverage-mobiles-limits.json",
                                    kCasesDir / "coverage-mobiles-camera-one.json",
                                    " --routines 'mobile.c:passes_filters' --jobs 2");
    EXPECT_GE(r.only, 4u) << "limits killed " << r.plain << ", camera_one killed " << r.added;
}

// Pure yaws at y = 0 zero the receiver test's cross terms (Qr[1][0], P.y), and every receiver of
// the default script receives: pitched and rolled receivers off the ground, and decoys that cast
// but do not receive, kill mutants of mobile.c:receives the default queries let live.
TEST_F(CoverageCasesTest, TiltedReceiversAndDecoysKillWhatPureYawsLetLive) {
    const OnlyBy r =
        killed_only_by(kCasesDir / "receivers.json", kCasesDir / "coverage-receivers-tilted.json",
                       " --routines 'mobile.c:receives' --jobs 2");
    EXPECT_GE(r.only, 7u) << "plain killed " << r.plain << ", tilted killed " << r.added;
}

// A receiver query costs the original a few hundred instructions: a case of 400 of them runs every
// reaching input of a mutant (whole_cheap_cases) unless --inputs-per-mutant is given. The receiver
// test's survivors had run on 32 queries per case; on all of them more die.
TEST_F(CoverageCasesTest, CheapCasesRunEveryReachingInputUnlessACapIsGiven) {
    const std::string args = " --routines 'mobile.c:receives' --jobs 2";
    const Result all = refcheck("mutate " + quote(kCasesDir / "receivers.json") + args + " --out all");
    ASSERT_TRUE(all.code == 0 || all.code == 1) << all.out << all.err;
    const Result capped = refcheck("mutate " + quote(kCasesDir / "receivers.json") + args +
                                   " --inputs-per-mutant 32 --out capped");
    ASSERT_TRUE(capped.code == 0 || capped.code == 1) << capped.out << capped.err;
    const ojson a = read_json(path("all/mutate.json")), c = read_json(path("capped/mutate.json"));
    EXPECT_EQ(a.at("options").at("whole_cheap_cases"), true);
    EXPECT_EQ(c.at("options").at("whole_cheap_cases"), false);
    std::size_t beyond_cap = 0, capped_survivors = 0;
    for (const auto& m : a.at("mutants")) {
        if (m.at("status") != "survived") continue;
        EXPECT_FALSE(m.value("inputs_capped", false)) << m.dump();
        EXPECT_EQ(m.value("inputs_run", 0), m.value("reaching_inputs", 0)) << m.dump();
        beyond_cap += m.value("inputs_run", 0) > 32 ? 1 : 0;
    }
    for (const auto& m : c.at("mutants")) capped_survivors += m.value("inputs_capped", false) ? 1 : 0;
    EXPECT_GE(beyond_cap, 1u) << a.at("totals").dump();
    EXPECT_GE(capped_survivors, 1u) << c.at("totals").dump();
    const auto by_all = killed(a), by_capped = killed(c);
    for (const auto& id : by_capped) EXPECT_TRUE(by_all.count(id)) << id;
    EXPECT_GT(by_all.size(), by_capped.size()) << a.at("totals").dump() << c.at("totals").dump();
}

// light.gouraud: the flat normal count is stored by setup_normals and read only when
// gouraud_enabled is 0; the case that clears the global kills the mutants that drop that store.
TEST_F(CoverageCasesTest, GouraudOffKillsTheFlatCountsStore) {
    const Result r = refcheck("mutate " + quote(kCasesDir / "program-gouraud-off.json") +
                              " --routines 'program.c:setup_normals' --operators store_nop --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const auto zero = killed_with(j, "store_nop", "mov dword ptr [ecx + 0x5c], 0");
    const auto count = killed_with(j, "store_nop", "mov dword ptr [ecx + 0x5c], eax");
    EXPECT_GE(zero.size() + count.size(), 1u) << j.at("totals").dump();
}

// scene.sampler.standin: with the stand-in's own sampler running on a filled terrain_map, its
// sector index's mask and shifts moved by one read another sector: a terrain_sample event differs.
TEST_F(CoverageCasesTest, TheStandInsOwnSamplerIsComparedAndItsIndexMutantsKilled) {
    const Result r = refcheck("mutate " + quote(kCasesDir / "coverage-scene-terrain-map.json") +
                              " --routines '^sample_terrain_height_body$'"
                              " --operators imm_plus_one,imm_minus_one,and_to_or --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t at_sample = killed_by_divergence(
        j, [](const ojson& k) { return k.at("event").value("original", ojson()) == "terrain_sample"; });
    EXPECT_GE(at_sample, 4u) << j.at("totals").dump();
}

// scene.terrain.colour: the land bands clamp to the eighth, colour 247 (the immediate of the two
// "mov eax, 0xf7" of draw_terrain's inlined clamp, no operator of refcheck mutate's). The shipped
// scenes' bands stop at 6, so a seeded fault there changed nothing they compare; band_shift 8 over
// the island makes bands past 7, where it shows. The patch names the bytes it replaces, so a
// rebuilt stand-in that moved them fails here (exit 2) rather than passing vacuously.
TEST_F(CoverageCasesTest, TheTopLandBandShowsAFaultInTheBandClampTheOtherScenesMiss) {
    const std::string patch = " --patch '0x406e19:f7->f6' --patch '0x406e29:f7->f6'";
    const Result top =
        refcheck("run " + quote(kCasesDir / "coverage-scene-top-band.json") + patch + " --out top");
    EXPECT_EQ(top.code, 1) << top.out << top.err;
    const ojson report = read_json(path("top/coverage-scene-top-band.json"));
    EXPECT_GT(report.at("counts").at("unexplained").get<std::uint64_t>(), 0u) << report.at("counts").dump();
    const Result others =
        refcheck("run " + quote(kCasesDir / "coverage-scene-limits-low.json") + " " +
                 quote(kCasesDir / "coverage-scene-limits-high.json") + patch + " --out others");
    EXPECT_EQ(others.code, 0) << others.out << others.err;
}

// Shadow probes place the caster's nearest shadow point on the projection's boundaries (depth 64
// and 63, a screen coordinate one past each 16-bit clamp, 2^30 on every axis): shadow.c's near-plane,
// clamp and sign-word mutants die there, which the close low-sun views let live.
TEST_F(CoverageCasesTest, ShadowProbesKillTheShadowProjectionsBoundaryMutants) {
    const OnlyBy r =
        killed_only_by(kCasesDir / "coverage-shadow-close.json", kCasesDir / "coverage-shadow-probes.json",
                       " --routines 'shadow.c:project' --jobs 2");
    EXPECT_GE(r.only, 10u) << "close killed " << r.plain << ", probes killed " << r.added;
}

// Suns and cameras whose words reach 2^30 (a placed view with a raw rotation among them) kill the
// sign-word mutants of shadow_vertex's 64-bit products.
TEST_F(CoverageCasesTest, HostileSunsAndCamerasKillShadowVertexSignWordMutants) {
    const OnlyBy r =
        killed_only_by(kCasesDir / "coverage-shadow-close.json", kCasesDir / "coverage-shadow-hostile.json",
                       " --routines 'shadow.c:shadow_vertex' --operators imm_minus_one --jobs 2");
    EXPECT_GE(r.only, 3u) << "close killed " << r.plain << ", hostile killed " << r.added;
}

// Placed program views, 2^30 from the instance and turned by rotation words of 2^30 and more, kill
// view_transform's and the grid tables' sign-word mutants that the probing views let live.
TEST_F(CoverageCasesTest, PlacedCamerasKillTheCameraTransformsSignWordMutants) {
    const OnlyBy r = killed_only_by(
        kCasesDir / "coverage-probe-boundaries.json", kCasesDir / "coverage-program-hostile-camera.json",
        " --routines 'view_transform|transform.c:build_grid_tables' --operators imm_minus_one --jobs 2");
    EXPECT_GE(r.only, 3u) << "probes killed " << r.plain << ", placed killed " << r.added;
}

// Fixed scene cameras put terrain corners and near-plane crossings at depth 64 and 63 and one past
// the 16-bit clamps (identity rotation), and far out or scaled (2^30 in camera space): the terrain
// code's boundary and sign-word mutants die, which the scripts' orbiting cameras let live.
TEST_F(CoverageCasesTest, FixedSceneCamerasKillTheTerrainsBoundaryMutants) {
    const OnlyBy near =
        killed_only_by(kCasesDir / "coverage-scene-top-band.json", kCasesDir / "coverage-scene-cameras.json",
                       " --routines 'scene.c:draw_triangle' --jobs 2");
    EXPECT_GE(near.only, 8u) << "scripts killed " << near.plain << ", cameras killed " << near.added;
    const OnlyBy far = killed_only_by(kCasesDir / "coverage-scene-top-band.json",
                                      kCasesDir / "coverage-scene-far-cameras.json",
                                      " --routines 'scene.c:(sort_cells|corners_to_camera)' --operators "
                                      "imm_minus_one --jobs 2");
    EXPECT_GE(far.only, 4u) << "scripts killed " << far.plain << ", far cameras killed " << far.added;
}

// A texture refused by its type or height bound alone (its pixels all in the file), and one exactly
// 4096 rows high (accepted): load_texture's bounds moved by one die, which the roots whose pixels
// ran short (refused by the extent check as well) let live.
TEST_F(CoverageCasesTest, TexturesOnTheTypeAndHeightBoundsKillTheLoadersBoundMutants) {
    const std::string args =
        " --routines 'objects.c:load_texture' --operators imm_plus_one,imm_minus_one --jobs 2";
    const OnlyBy type = killed_only_by(kCasesDir / "hostile-texture-type.json",
                                       kCasesDir / "hostile-texture-type-fits.json", args);
    EXPECT_GE(type.only, 1u) << "short killed " << type.plain << ", fitting killed " << type.added;
    const OnlyBy over = killed_only_by(kCasesDir / "hostile-texture-height-huge.json",
                                       kCasesDir / "hostile-texture-height-over-max.json", args);
    EXPECT_GE(over.only, 1u) << "short killed " << over.plain << ", fitting killed " << over.added;
    const OnlyBy edge =
        killed_only_by(kCasesDir / "loader.json", kCasesDir / "edge-texture-height-max.json", args);
    EXPECT_GE(edge.only, 1u) << "loader killed " << edge.plain << ", edge killed " << edge.added;
}

// Session 13's loader roots, each breaking a check on its edge: a broken record after an empty
// slot, a header one byte short with no offset to refuse, the broken texture in the table's last
// slot and in its first. Each kills a mutant that its plain counterpart lets live; except that,
// since the original's reason is compared (initialise_error), the plain short record kills the
// header check's bound mutant too: with the bound moved by one its header passes, and it is refused
// by the internal-offset check instead (objects_internal, not objects_record), which its result
// alone did not show.
TEST_F(CoverageCasesTest, LoaderEdgesKillTheCheckLoopsAndTheReleaseAfterAFailure) {
    struct Pair {
        const char *plain, *added, *routines, *operators;
        bool plain_kills_too = false;
    };
    for (const Pair& p :
         {Pair{"hostile-objects-offset-past-record", "hostile-objects-empty-then-broken",
               "objects.c:load_objects", "negate_jcc"},
          Pair{"hostile-objects-record-short", "hostile-objects-header-187", "objects.c:load_objects",
               "imm_minus_one", true},
          Pair{"hostile-texture-type", "hostile-texture-last-slot", "objects.c:load_textures", "negate_jcc"},
          Pair{"hostile-texture-type", "hostile-texture-first-slot", "initialise_3d_objects_body",
               "negate_jcc"}}) {
        const OnlyBy r = killed_only_by(
            kCasesDir / (std::string(p.plain) + ".json"), kCasesDir / (std::string(p.added) + ".json"),
            std::string(" --routines '") + p.routines + "' --operators " + p.operators + " --jobs 2");
        if (p.plain_kills_too) {
            EXPECT_GE(r.added, 1u) << p.added;
            EXPECT_GE(r.plain, r.added)
                << p.plain << " killed " << r.plain << ", " << p.added << " killed " << r.added;
            continue;
        }
        EXPECT_GE(r.only, 1u) << p.added << ": " << p.plain << " killed " << r.plain << ", " << p.added
                              << " killed " << r.added;
    }
}

// A secondary face's own packet check (apart from the one op_primary inlines), on its bounds: a
// count of 0 refused, type 21 and a count of 1 accepted; in the draw and in shadow mode.
TEST_F(CoverageCasesTest, SecondaryPacketsOnTheirBoundsKillThePacketChecksBoundMutants) {
    for (const char* mode : {"program", "shadow"}) {
        const std::string m = mode;
        const auto by = killers(
            quote(kCasesDir / (m + "-invalid-secondary-count.json")) + " " +
                quote(kCasesDir / (m + "-edge-secondary-bounds.json")),
            " --routines '" + m + ".c:checked_packet' --operators imm_plus_one,imm_minus_one", "o-" + m);
        const auto killed_by = [&](const std::string& suffix) {
            for (const auto& [id, c] : by)
                if (id.find(suffix) != std::string::npos) return c;
            return std::string("(survived)");
        };
        EXPECT_EQ(killed_by("imm_minus_one: cmp byte ptr [ebx], 0x15"), m + "-edge-secondary-bounds") << m;
        EXPECT_EQ(killed_by("imm_plus_one: cmp byte ptr [ebx + 1], 0"), m + "-invalid-secondary-count") << m;
        EXPECT_EQ(killed_by("imm_minus_one: cmp byte ptr [ebx + 1], 0"), m + "-invalid-secondary-count") << m;
    }
}

// A record attaching itself nests as deep as construction allows: both depth bounds of construct
// moved by one are killed there (the generated records nest no deeper than 3), and so is the draw's
// and the shadow walk's bound moved down by one.
TEST_F(CoverageCasesTest, ASelfAttachingRecordKillsTheNestingBoundsOfConstructionDrawAndShadow) {
    const auto by =
        killers(quote(kCasesDir / "edge-self-attach-construct.json") + " " +
                    quote(kCasesDir / "edge-self-attach-draw.json") + " " +
                    quote(kCasesDir / "edge-self-attach-shadow.json"),
                " --routines 'construct.c:construct|draw_attached_object_body|shadow.c:sop_attach' "
                "--operators imm_plus_one,imm_minus_one",
                "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("construct.c:construct+0xa1 imm_plus_one"), "edge-self-attach-construct");
    EXPECT_EQ(killed_by("construct.c:construct+0xa1 imm_minus_one"), "edge-self-attach-construct");
    EXPECT_EQ(killed_by("draw_attached_object_body+0x22 imm_minus_one"), "edge-self-attach-draw");
    EXPECT_EQ(killed_by("shadow.c:sop_attach+0x5e imm_minus_one"), "edge-self-attach-shadow");
}

// abi.face.select: the face event's `secondary` is the entry point the draw called. A draw that
// calls the secondary routine for a primary face (or the other way round), with the right flags,
// changes no pixel of the stand-in (the four routines share one body) but is killed at face_draw.
TEST_F(CoverageCasesTest, ADrawCallingTheOtherFaceRoutineIsKilledAtTheFaceEvent) {
    const auto by = killers(quote(kCasesDir / "edge-self-attach-draw.json") + " " +
                                quote(kCasesDir / "program-invalid-secondary-count.json"),
                            " --routines 'program.c:draw_face' --operators negate_jcc", "o");
    std::size_t swaps = 0;
    for (const char* id : {"program.c:draw_face+0xbb negate_jcc: je 0x402a22",
                           "program.c:draw_face+0x15d negate_jcc: je 0x402a70"})
        swaps += by.count(id);
    EXPECT_GE(swaps, 1u);
}

// valid.extent.clamp: vertex lists cut by the archive's end (a count past what fits, a count that
// does not fit at all) and a face on the first vertex past a whole list kill the clamps of the
// draw's and the shadow's vertex walks, which no valid archive reaches.
TEST_F(CoverageCasesTest, VertexListsCutByTheArchivesEndKillTheVertexClamps) {
    std::string cases;
    for (const char* mode : {"program", "shadow"})
        for (const char* root : {"vertices-cut", "vertices-header-cut", "vertex-past-list"})
            cases += " " + quote(kCasesDir / (std::string(mode) + "-invalid-" + root + ".json"));
    const auto by = killers(cases, " --routines 'transform_vertices|shadow_vertices_of' --jobs 2", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("transform_vertices+0x35 sub_to_add"), "program-invalid-vertices-cut");
    EXPECT_EQ(killed_by("transform_vertices+0x3e imm_plus_one"), "program-invalid-vertices-cut");
    EXPECT_EQ(killed_by("transform_vertices+0x87 negate_jcc"), "program-invalid-vertices-cut");
    EXPECT_EQ(killed_by("transform_vertices+0x4b negate_jcc"), "program-invalid-vertex-past-list");
    EXPECT_EQ(killed_by("transform_vertices+0x1d store_nop"), "program-invalid-vertices-header-cut");
    EXPECT_EQ(killed_by("shadow.c:shadow_vertices_of+0x58 sub_to_add"), "shadow-invalid-vertices-cut");
    EXPECT_EQ(killed_by("shadow.c:shadow_vertices_of+0x45 sub_to_add"), "shadow-invalid-vertices-header-cut");
    EXPECT_EQ(killed_by("shadow.c:shadow_vertices_of+0x6c negate_jcc"), "shadow-invalid-vertex-past-list");
}

// Scripted mobile steps: removing a mobile twice, adding a struct that brings links, and a queue at
// 2^31 kill the removal's link stores, the add's prev store and the depth filter's shift, which the
// seeded scripts let live.
TEST_F(CoverageCasesTest, ScriptedMobileStepsKillTheLinkStoresAndTheDepthFiltersEdges) {
    const auto by = killers(quote(kCasesDir / "coverage-mobiles-departed.json") + " " +
                                quote(kCasesDir / "coverage-mobiles-depth-2-31.json"),
                            " --routines 'remove_mobile_body|add_mobile_body|mobile.c:passes_filters'", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("remove_mobile_body+0x24 store_nop"), "coverage-mobiles-departed");
    EXPECT_EQ(killed_by("remove_mobile_body+0x2b store_nop"), "coverage-mobiles-departed");
    EXPECT_EQ(killed_by("add_mobile_body+0x2b store_nop"), "coverage-mobiles-departed");
    EXPECT_EQ(killed_by("mobile.c:passes_filters+0xac imm_minus_one"), "coverage-mobiles-depth-2-31");
}

// A record without a normal list drawn right after one of its encoding with a list: a draw that
// kept the previous model's normals (grid) or counts (s16) is killed.
TEST_F(CoverageCasesTest, RecordsWithoutNormalsKillTheNormalSetupsStores) {
    const auto by = killers(quote(kCasesDir / "edge-no-normals.json"),
                            " --routines 'program.c:setup_normals' --operators store_nop", "o");
    EXPECT_EQ(by.count("program.c:setup_normals+0xe store_nop: mov dword ptr [ecx + 0x54], 0"), 1u);
    EXPECT_EQ(by.count("program.c:setup_normals+0x1c store_nop: mov dword ptr [ecx + 0x58], 0"), 1u);
}

// valid.extent.clamp for attachment lists: one cut by the archive's end and one of 257 entries kill
// attachment_list's clamps in the construct family.
TEST_F(CoverageCasesTest, AttachmentListsCutOrTooLongKillTheAttachmentClamps) {
    const auto by = killers(quote(kCasesDir / "construct-invalid-attachments-cut.json") + " " +
                                quote(kCasesDir / "construct-invalid-attachments-cut-257.json") + " " +
                                quote(kCasesDir / "construct-invalid-attachments-257.json"),
                            " --routines 'attachment_list'", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("attachment_list+0x35 sub_to_add"), "construct-invalid-attachments-cut");
    EXPECT_EQ(killed_by("attachment_list+0x3e imm_minus_one"), "construct-invalid-attachments-cut");
    EXPECT_EQ(killed_by("attachment_list+0x47 imm_plus_one"), "construct-invalid-attachments-cut-257");
    EXPECT_EQ(killed_by("attachment_list+0x62 imm_plus_one"), "construct-invalid-attachments-257");
}

// Shadows on the small data's edges: models 0x4ba and 0x4bb (copies in a grown table) take 0x40a's
// geometry, a shadow block that is the file's last 4 bytes, and shadow faces of 1 and 2 vertices.
TEST_F(CoverageCasesTest, ShadowSubstitutesAndShortShadowFacesKillTheShadowGeometryAndFaceBounds) {
    const auto by = killers(quote(kCasesDir / "edge-shadow-substitutes.json") + " " +
                                quote(kCasesDir / "shadow-edge-shadow-block-at-end.json") + " " +
                                quote(kCasesDir / "shadow-edge-secondary-bounds.json"),
                            " --routines 'shadow.c:shadow_geometry|draw_shadow_face_body'", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("shadow.c:shadow_geometry+0x8 imm_plus_one"), "edge-shadow-substitutes");
    EXPECT_EQ(killed_by("shadow.c:shadow_geometry+0xd imm_minus_one"), "edge-shadow-substitutes");
    EXPECT_EQ(killed_by("shadow.c:shadow_geometry+0x32 imm_plus_one"), "shadow-edge-shadow-block-at-end");
    EXPECT_EQ(killed_by("draw_shadow_face_body+0x30 imm_plus_one"), "shadow-edge-secondary-bounds");
    EXPECT_EQ(killed_by("draw_shadow_face_body+0x30 imm_minus_one"), "shadow-edge-secondary-bounds");
}

// The branch stack's bound on a plane's second push, on both windings: an op 3 and then 32 nested
// planes leave 63 entries for the last plane, whose second push the stand-in refuses; and a
// secondary face before any primary is not drawn (op.last_wind starts at -1).
TEST_F(CoverageCasesTest, AnOddBranchStackKillsThePlanesSecondPushBoundsAndALeadingSecondaryTheWindingInit) {
    const auto by =
        killers(quote(kCasesDir / "program-invalid-nesting-after-ifmask.json") + " " +
                    quote(kCasesDir / "shadow-invalid-nesting-after-ifmask.json") + " " +
                    quote(kCasesDir / "program-edge-secondary-bounds.json") + " " +
                    quote(kCasesDir / "shadow-edge-secondary-bounds.json"),
                " --routines 'program.c:op_plane|shadow.c:sop_plane|run_program|run_shadow_program'", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("program.c:op_plane+0xb0 imm_plus_one"), "program-invalid-nesting-after-ifmask");
    EXPECT_EQ(killed_by("program.c:op_plane+0xb0 imm_minus_one"), "program-invalid-nesting-after-ifmask");
    EXPECT_EQ(killed_by("shadow.c:sop_plane+0xb0 imm_plus_one"), "shadow-invalid-nesting-after-ifmask");
    EXPECT_EQ(killed_by("run_program+0xc store_nop"), "program-edge-secondary-bounds");
    EXPECT_EQ(killed_by("shadow.c:run_shadow_program+0xc store_nop"), "shadow-edge-secondary-bounds");
}

// A case narrowed to some of its inputs need not reach its broken record: a mutant run on the first
// input alone (a loader mutant, from a fresh boot) is not "killed" by the case's own complaint that
// no input reached the break (program-invalid-vertices-header-cut draws record 46 first). The
// initialise_error store, which only a hostile case's stated reason reads (it was argued equivalent
// until those compared it), is not killed there.
TEST_F(CoverageCasesTest, ACaseNarrowedAwayFromItsBreakKillsNoMutant) {
    const Result r = refcheck("mutate " + quote(kCasesDir / "program-invalid-vertices-header-cut.json") +
                              " --routines 'initialise_3d_objects_body' --out o");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson report = read_json(path("o/mutate.json"));
    std::size_t killed = 0, store = 0;
    for (const auto& m : report.at("mutants")) {
        if (m.at("status") != "killed") continue;
        ++killed;
        EXPECT_EQ(m.at("killed_by").value("detail", std::string()).find("reaches the broken part"),
                  std::string::npos)
            << m.at("id");
    }
    for (const auto& m : report.at("mutants"))
        if (m.at("id").get<std::string>().rfind("initialise_3d_objects_body+0x137 ", 0) == 0) {
            ++store;
            EXPECT_EQ(m.at("status"), "survived") << m.dump();
        }
    // Neither loop may pass by running over nothing: some mutant is killed (by a divergence), and the
    // store is where the registry says (a rebuild that moved it would make the check above vacuous).
    EXPECT_GT(killed, 0u);
    EXPECT_EQ(store, 1u) << "no mutant at initialise_3d_objects_body+0x137";
}

// valid.shadow.none and abi.construct's null pointers: a shadow block one byte short of its index
// kills the block test's bounds, and a null position with a turned rotation the constructor's
// choice of the rotation.
TEST_F(CoverageCasesTest, AShortShadowBlockAndANullPositionKillTheirGuards) {
    const auto by = killers(quote(kCasesDir / "shadow-invalid-shadow-block-cut.json") + " " +
                                quote(kCasesDir / "coverage-null-arguments-construct.json"),
                            " --routines 'shadow.c:shadow_geometry|construct_3d_object_body'", "o");
    const auto killed_by = [&](const std::string& prefix) { return first_killer(by, prefix); };
    EXPECT_EQ(killed_by("shadow.c:shadow_geometry+0x30 sub_to_add"), "shadow-invalid-shadow-block-cut");
    EXPECT_EQ(killed_by("shadow.c:shadow_geometry+0x32 imm_minus_one"), "shadow-invalid-shadow-block-cut");
    EXPECT_EQ(killed_by("construct_3d_object_body+0x2f negate_jcc"), "coverage-null-arguments-construct");
}

} // namespace
} // namespace refcheck::cli_test
