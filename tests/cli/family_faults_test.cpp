// Seeded faults in the original's shadow, mobile and receiver routines (issue 6): one instruction
// of the stand-in patched under emulation, found by disassembling the routine. Each run must exit
// 1 with its first unexplained divergence at the event or pixel the fault must first change, which
// the test predicts from the reimplementation and the family's script alone.
#include "cli_support.hpp"
#include "code_site.hpp"

#include "family/mobile_script.hpp" // harness/src: the scripted inputs of the mobile and receiver families
#include "family/placement.hpp"
#include "family/selection.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace refcheck::cli_test {
namespace {

class FamilyFaultTest : public CliTest {
protected:
    // Runs `file` clean (it must be equivalent), then with `site` overwritten by `bytes` (it must
    // diverge), and returns the patched case report.
    ojson run_clean_and_patched(const fs::path& file, const std::string& name, const CodeSite& site,
                                const std::vector<std::uint8_t>& bytes) {
        const std::string common = quote(file) + " --data " + quote(kSmallData);
        const Result clean = refcheck("run " + common + " --out clean");
        EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
        const std::string patch = site.where() + ":" + hex_bytes(bytes);
        const Result run = refcheck("run " + common + " --out patched --patch " + patch);
        EXPECT_EQ(run.code, 1) << run.out << run.err;
        ojson report = read_json(path("patched/" + name + ".json"));
        EXPECT_EQ(report.at("status"), "divergent");
        EXPECT_EQ(report.at("injected").at("patches").at(0).at("where"), site.where());
        return report;
    }
};

const reimpl::ModelArchive& small_models() {
    static const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    return models;
}

// ---- mobile: the sort order ---------------------------------------------------------------------

TEST_F(FamilyFaultTest, UnsortedMobileQueueDivergesAtTheFirstEntryOutOfPaintersOrder) {
    // build_mobile_queue_body's call of sort_queue (the call whose target is that symbol); replaced
    // by five nops, the queue keeps the order the 3 x 3 sector scan collected it in.
    emu::Machine machine;
    const emu::Image& image = machine.load(kImage);
    const auto sort_queue = image.address_of("sort_queue");
    ASSERT_TRUE(sort_queue) << "standin.exe has no symbol sort_queue";
    char target[32];
    std::snprintf(target, sizeof target, "call 0x%x", *sort_queue);
    const CodeSite site = find_instruction("build_mobile_queue_body",
                                           [&](const emu::Instruction& in) { return in.text == target; });
    ASSERT_EQ(site.bytes.size(), 5u) << site.instruction.text;

    const std::uint32_t steps = 120, seed = 7;
    const fs::path file = write_case("small-mobiles", {{"schema", "refcheck-case/1"},
                                                       {"family", "mobile"},
                                                       {"description", "cli_tests: mobile queues"},
                                                       {"selection", {{"steps", steps}, {"seed", seed}}}});
    const ojson report = run_clean_and_patched(file, "small-mobiles", site, {0x90, 0x90, 0x90, 0x90, 0x90});

    // Replay the script on the reimplementation: the unsorted queue is the sorted one's ids in the
    // order of the scan (the filters keep scan order).
    const auto& models = small_models();
    reimpl::MobileMap map;
    std::optional<std::pair<std::uint32_t, std::size_t>> first; // step, entry index
    std::uint32_t expected_original = 0, expected_reimpl = 0;
    const auto script = harness::mobile_script(models, seed, steps);
    for (std::uint32_t step = 0; step < script.size() && !first; ++step) {
        const auto& s = script[step];
        if (s.op == harness::MobileStep::Op::Add) map.add(s.mobile);
        if (s.op == harness::MobileStep::Op::Move) map.move(s.mobile.id, s.mobile.position);
        if (s.op == harness::MobileStep::Op::Remove) map.remove(s.mobile.id);
        const auto sorted = map.queue(models, s.camera, reimpl::Scene{});
        const auto scan = map.scan(s.camera.position);
        auto unsorted = sorted;
        std::stable_sort(unsorted.begin(), unsorted.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::find(scan.begin(), scan.end(), a) < std::find(scan.begin(), scan.end(), b);
        });
        for (std::size_t i = 0; i < sorted.size() && !first; ++i)
            if (sorted[i] != unsorted[i]) {
                first = {step, i};
                expected_original = unsorted[i];
                expected_reimpl = sorted[i];
            }
    }
    ASSERT_TRUE(first) << "no queue of the script is out of scan order: the fault cannot show";
    ASSERT_GT(first->first, 0u) << "the first queue should come out in order by luck of the script";

    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "step " + std::to_string(first->first));
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    EXPECT_EQ(d.at("original").at("fields").at("index"), first->second);
    EXPECT_EQ(d.at("original").at("fields").at("id"), expected_original);
    EXPECT_EQ(d.at("reimpl").at("fields").at("id"), expected_reimpl);
}

// ---- shadows: the mesh density ------------------------------------------------------------------

TEST_F(FamilyFaultTest, CoarserFineMeshDivergesAtTheFirstFineShadowPixelItDrops) {
    // on_mesh's fine test ((x + y) & 1) == 0, inlined into draw_shadow_face_body as `test al, 1`;
    // made `test al, 3`, fine meshes draw the medium pattern.
    const CodeSite site = find_instruction(
        "draw_shadow_face_body", [](const emu::Instruction& in) { return in.text == "test al, 1"; });
    ASSERT_EQ(hex_bytes(site.bytes), "a801");

    ojson shipped = read_json(shipped_case("shadows"));
    shipped["description"] = "cli_tests: the shipped shadow selection on the small archives";
    shipped.erase("rules");
    const fs::path file = write_case("small-shadows", shipped);
    const ojson report = run_clean_and_patched(file, "small-shadows", site, {0xa8, 0x03});

    // The patched original draws exactly the reimplementation's shadow pixels less those with
    // (x + y) & 3 == 2 (which only a fine mesh draws): the first frame having one is the first to
    // differ, at its first such pixel in raster order.
    const auto& models = small_models();
    const harness::Case c = harness::load_case(file);
    std::optional<std::string> input;
    std::size_t first_pixel = 0, dropped = 0;
    for (const std::uint32_t record : harness::select_records(c, models)) {
        const reimpl::Instance root = reimpl::construct(models, record, reimpl::Transform{});
        const auto& h = models.record(record).header;
        for (std::size_t vi = 0; vi < c.views.size() && !input; ++vi)
            for (std::size_t si = 0; si < c.suns.size() && !input; ++si)
                for (const std::uint32_t state : c.states) {
                    reimpl::ShadowParams params;
                    params.sun = {c.suns[si][0], c.suns[si][1], c.suns[si][2]};
                    params.terrain_height = params.plane_height = h.bounds[2];
                    reimpl::Frame frame;
                    reimpl::draw_shadow(models, root, harness::camera_for(models.record(record), c.views[vi]),
                                        params, state, frame);
                    for (std::size_t p = 0; p < frame.pixels.size(); ++p)
                        if (frame.pixels[p] == 0 && ((p % 320 + p / 320) & 3) == 2 && dropped++ == 0)
                            first_pixel = p;
                    if (dropped) {
                        input = "record " + std::to_string(record) + " view " + std::to_string(vi) + " sun " +
                                std::to_string(si) + " state " + std::to_string(state);
                        break;
                    }
                }
        if (input) break;
    }
    ASSERT_TRUE(input) << "no shadow of the selection has a fine mesh";

    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), *input);
    ASSERT_EQ(d.at("fields").size(), 1u);
    const ojson& f = d.at("fields").at(0);
    EXPECT_EQ(f.at("field"), "pixels");
    EXPECT_EQ(f.at("original"),
              std::to_string(dropped) + " pixels differ; first at (" + std::to_string(first_pixel % 320) +
                  "," + std::to_string(first_pixel / 320) + "): " + std::to_string(reimpl::kClearColour));
    EXPECT_EQ(f.at("reimpl"), "0");
    // The differing frame is in the report as pictures.
    bool pictured = false;
    for (const auto& fr : report.at("frames"))
        pictured |= fr.at("input") == *input && fr.at("differing_pixels") == dropped;
    EXPECT_TRUE(pictured);
}

// ---- receivers: the bound test ------------------------------------------------------------------

TEST_F(FamilyFaultTest, ReceiverBoundTestAgainstTheWrongBoundDivergesAtTheFirstDeckHit) {
    // receives()'s `local x <= max x` reads the bounds at header offset 0x10 (max x); pointed at
    // 0x0c (min x), only a shadow exactly on the receiver's min-x edge would still be received.
    const CodeSite site = find_instruction("receives", [](const emu::Instruction& in) {
        return in.text.rfind("cmp dword ptr [", 0) == 0 && in.text.find(" + 0x10], ") != std::string::npos;
    });
    ASSERT_EQ(site.bytes.size(), 3u) << site.instruction.text;
    ASSERT_EQ(site.bytes.back(), 0x10) << site.instruction.text;

    const std::uint32_t queries = 200, seed = 11;
    const fs::path file = write_case("small-receivers", small_receivers(queries, seed));
    const ojson report =
        run_clean_and_patched(file, "small-receivers", site, {site.bytes[0], site.bytes[1], 0x0c});

    // The first query whose shadow the reimplementation puts on a receiver.
    const auto& models = small_models();
    const auto script = harness::receiver_script(models, seed, queries);
    reimpl::MobileMap map;
    for (const auto& m : script.receivers) map.add(m);
    map.add(script.caster);
    std::optional<std::uint32_t> first;
    reimpl::ReceiverQuery hit;
    for (std::uint32_t q = 0; q < script.queries.size() && !first; ++q) {
        map.move(script.caster.id, script.queries[q].position);
        hit = reimpl::shadow_plane_height(models, map, script.caster.id, script.queries[q].params);
        if (hit.receiver) first = q;
    }
    ASSERT_TRUE(first) << "no query hits a receiver";
    ASSERT_GT(*first, 0u);

    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "query " + std::to_string(*first));
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    EXPECT_EQ(d.at("original").at("fields").at("receiver"), 0);
    EXPECT_EQ(d.at("original").at("fields").at("height"), script.queries[*first].params.terrain_height);
    EXPECT_EQ(d.at("reimpl").at("fields").at("receiver"), hit.receiver);
    EXPECT_EQ(d.at("reimpl").at("fields").at("height"), hit.height);
}

// ---- receivers: the receiver's bounds ------------------------------------------------------------

// shadow.receiver.test: a shadow is received when min x <= local x <= max x (z likewise). No random
// query put local x or z exactly on a bound or a unit past it, so an original testing local x < max
// x (`jl` made `jle`) stayed equivalent. The script's edge queries start with a pair at each bound
// of a receiver no other holds there: on it, then a unit outside (mobile_script.hpp, kBoundQueries).
TEST_F(FamilyFaultTest, ReceiverQueriesOnTheReceiversBoundsCatchAStrictBoundTest) {
    const std::uint32_t queries = 20, seed = 11;
    const auto& models = small_models();
    // The bound queries meet the bounds exactly in every kind of script the shipped cases play:
    // receivers turned about y, tilted ones off y = 0, and receivers far from the origin.
    harness::ScriptOptions tilted, far;
    tilted.tilted = true;
    far.centre = {-2130706432, 1610612736};
    const std::vector<std::pair<harness::ScriptOptions, std::string>> kinds = {
        {harness::ScriptOptions{}, "turned"}, {tilted, "tilted"}, {far, "far"}};
    // Seeds 11 and 13: the shipped receiver cases' (13 the tilted one's).
    for (const std::uint32_t kind_seed : {11u, 13u})
        for (const auto& kind : kinds) {
            const std::string what = kind.second + " seed " + std::to_string(kind_seed);
            const auto script = harness::receiver_script(models, kind_seed, queries, kind.first);
            ASSERT_EQ(script.queries.size(), queries);
            const reimpl::Mobile& under = script.receivers.at(script.bound_receiver);
            const auto& bounds = models.record(under.model).header.bounds;
            reimpl::MobileMap map;
            for (const auto& m : script.receivers) map.add(m);
            for (const auto& m : script.decoys) map.add(m);
            map.add(script.caster);
            const std::uint32_t first = queries - harness::kEdgeQueries;
            for (std::uint32_t k = 0; k < harness::kBoundQueries; ++k) {
                // k = axis * 4 + side * 2 + outside: min x, max x, min z, max z, each on it, then past it.
                const std::uint32_t axis = k / 4, side = k / 2 % 2, outside = k % 2;
                const auto& query = script.queries[first + k];
                const reimpl::Vec3 shadow{query.position[0], 0, query.position[2]}; // the sun straight down
                EXPECT_EQ(query.params.sun[0], 0);
                EXPECT_EQ(query.params.sun[2], 0);
                const auto local = reimpl::receiver_local(under, shadow);
                const std::int32_t bound = bounds[axis * 4 + side];
                EXPECT_EQ(local[axis], outside ? bound + (side ? 1 : -1) : bound)
                    << what << " bound query " << k;
                EXPECT_GE(local[1 - axis], bounds[(1 - axis) * 4]) << what << " bound query " << k;
                EXPECT_LE(local[1 - axis], bounds[(1 - axis) * 4 + 1]) << what << " bound query " << k;
                map.move(script.caster.id, query.position);
                const auto hit = reimpl::shadow_plane_height(models, map, script.caster.id, query.params);
                if (outside)
                    EXPECT_NE(hit.receiver, under.id) << what << " bound query " << k;
                else
                    EXPECT_EQ(hit.receiver, under.id) << what << " bound query " << k;
            }
        }
    const auto script = harness::receiver_script(models, seed, queries);
    const reimpl::Mobile& under = script.receivers.at(script.bound_receiver);
    const std::uint32_t first = queries - harness::kEdgeQueries;

    // receives(): `cmp [bounds + 0x10], local x` (max x at header offset 0x10), then `jl` to the
    // rejection; `jle` rejects a shadow on the bound.
    const CodeSite cmp = find_instruction("receives", [](const emu::Instruction& in) {
        return in.text.rfind("cmp dword ptr [", 0) == 0 && in.text.find(" + 0x10], ") != std::string::npos;
    });
    const CodeSite jump = find_instruction("receives", [&](const emu::Instruction& in) {
        return in.address == cmp.instruction.address + cmp.instruction.size;
    });
    ASSERT_EQ(jump.instruction.text.rfind("jl ", 0), 0u) << jump.instruction.text;
    ASSERT_EQ(jump.bytes.size(), 2u) << jump.instruction.text;
    const fs::path file = write_case("small-receivers", small_receivers(queries, seed));
    const ojson report = run_clean_and_patched(file, "small-receivers", jump, {0x7e, jump.bytes[1]});
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "query " + std::to_string(first + 2)) << d.dump(2);
    // The original passes over the first receiver (another may hold the point).
    EXPECT_NE(d.at("original").at("fields").at("receiver"), under.id) << d.dump(2);
    EXPECT_EQ(d.at("reimpl").at("fields").at("receiver"), under.id) << d.dump(2);
}

// The rule's predicate asks for a bound query (`at_bound`, a label of the script's input): a receiver
// case too short for the edge queries compares none, and claims shadow.receiver.test without
// exercising it. It was `event receiver_query`, which any query met, so the rule was Proven by a
// case that could not tell `jl` from `jle`.
TEST_F(FamilyFaultTest, AReceiverCaseWithoutBoundQueriesDoesNotExerciseTheBoundTest) {
    const std::uint32_t with_edges = harness::kEdgeQueries + harness::kMinRandomQueries;
    auto exercised = [&](std::uint32_t queries) {
        ojson j = small_receivers(queries, 11);
        j["rules"] = {"shadow.receiver.test"};
        const std::string name = "receivers-" + std::to_string(queries);
        const fs::path file = write_case(name, j);
        const Result r = refcheck("run " + quote(file) + " --out " + name);
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        const ojson report = read_json(path(name + "/" + name + ".json"));
        EXPECT_EQ(report.at("status"), "equivalent") << queries;
        return report.at("exercised").at("shadow.receiver.test").get<std::uint64_t>();
    };
    EXPECT_EQ(exercised(with_edges - 1), 0u);
    EXPECT_GE(exercised(with_edges), std::uint64_t{harness::kBoundQueries});
}

// ---- receivers: the sun and the cloud bound ---------------------------------------------------------

// shadow.receiver.sun (no receiver is searched unless sun.y < 0) and shadow.plane.rule (h =
// cloud_altitude when the caster's y >= cloud_altitude). Every random query had sun.y < 0 and a
// caster off the cloud altitude, so an original that searched whatever the sun (`js` made `jmp`) or
// tested y > cloud_altitude (`jge` made `jg`) stayed equivalent and both rules Proven. The script's
// last queries stand at those bounds (mobile_script.hpp, kEdgeQueries).
TEST_F(FamilyFaultTest, ReceiverQueriesAtTheSunAndCloudBoundsCatchAnOriginalThatMovesThem) {
    const std::uint32_t queries = 20, seed = 11;
    const fs::path file = write_case("small-receivers", small_receivers(queries, seed));
    // The edge queries mean something on these archives: one unit below the clouds, straight above
    // the first receiver, the reimplementation finds it; at the clouds and under a sun at or below
    // the horizon it searches for none.
    const auto& models = small_models();
    const auto script = harness::receiver_script(models, seed, queries);
    ASSERT_EQ(script.queries.size(), queries);
    reimpl::MobileMap map;
    for (const auto& m : script.receivers) map.add(m);
    map.add(script.caster);
    auto query = [&](std::uint32_t q) {
        map.move(script.caster.id, script.queries[q].position);
        return reimpl::shadow_plane_height(models, map, script.caster.id, script.queries[q].params);
    };
    const std::uint32_t sun_level = queries - harness::kSunCloudQueries, at_clouds = queries - 2;
    EXPECT_EQ(script.queries[sun_level].params.sun[1], 0);
    EXPECT_GT(script.queries[sun_level + 1].params.sun[1], 0);
    EXPECT_EQ(query(sun_level).receiver, 0u);
    EXPECT_EQ(query(sun_level + 1).receiver, 0u);
    EXPECT_EQ(query(at_clouds).height, script.queries[at_clouds].params.cloud_altitude);
    EXPECT_NE(query(at_clouds + 1).receiver, 0u) << "one unit below the clouds finds no receiver";

    const CodeSite sun = find_instruction(
        "shadow_plane_height_body", [](const emu::Instruction& in) { return in.text.rfind("js ", 0) == 0; });
    ASSERT_EQ(sun.bytes.size(), 2u) << sun.instruction.text;
    const ojson searched = run_clean_and_patched(file, "small-receivers", sun, {0xeb, sun.bytes[1]});
    EXPECT_EQ(searched.at("first_unexplained").at("input"), "query " + std::to_string(sun_level))
        << searched.at("first_unexplained").dump(2);

    const CodeSite cloud = find_instruction(
        "shadow_plane_height_body", [](const emu::Instruction& in) { return in.text.rfind("jge ", 0) == 0; });
    ASSERT_EQ(cloud.bytes.size(), 2u) << cloud.instruction.text;
    const ojson above = run_clean_and_patched(file, "small-receivers", cloud, {0x7f, cloud.bytes[1]});
    const ojson& d = above.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "query " + std::to_string(at_clouds)) << d.dump(2);
    EXPECT_EQ(d.at("reimpl").at("fields").at("height"), script.queries[at_clouds].params.cloud_altitude);
    EXPECT_EQ(d.at("original").at("fields").at("over_clouds"), 0);
}

// ---- shadows: the face vertices -------------------------------------------------------------------

// shadow.mesh: the face_vertex entries a shadow face is drawn with carry u = v = 0 and level 31. The
// event recorded only the screen coordinates, and the stand-in's rasteriser reads neither, so an
// original handing level 0 stayed equivalent.
TEST_F(FamilyFaultTest, ShadowFaceVerticesOfAnotherLevelDivergeAtTheFirstShadowFace) {
    const CodeSite site = find_instruction("fill_shadow_face", [](const emu::Instruction& in) {
        return in.text == "mov dword ptr [edx - 4], 0x1f";
    });
    ASSERT_EQ(site.bytes.size(), 7u) << site.instruction.text;
    std::vector<std::uint8_t> level0 = site.bytes;
    std::fill(level0.begin() + 3, level0.end(), 0);

    ojson shipped = read_json(shipped_case("shadows"));
    shipped["description"] = "cli_tests: the shipped shadow selection on the small archives";
    shipped.erase("rules");
    const fs::path file = write_case("small-shadows", shipped);
    const ojson report = run_clean_and_patched(file, "small-shadows", site, level0);
    const ojson& d = report.at("first_unexplained");
    ASSERT_EQ(d.at("original").at("kind"), "shadow_face") << d.dump(2);
    const ojson levels = d.at("original").at("fields").at("levels");
    ASSERT_FALSE(levels.empty());
    for (const auto& l : levels) EXPECT_EQ(l, 0);
    for (const auto& l : d.at("reimpl").at("fields").at("levels")) EXPECT_EQ(l, 31);
    EXPECT_EQ(d.at("original").at("fields").at("screen_x"), d.at("reimpl").at("fields").at("screen_x"));
}

// ---- mobiles: a removed mobile's struct --------------------------------------------------------------

// mobile.remove.links: removal sets the object's next and prev to 0 and leaves its sector field
// unchanged. No event read a removed mobile's struct, so a removal that also zeroed the sector
// stayed equivalent; now each removal compares the struct it left ([prev, next, sector]).
TEST_F(FamilyFaultTest, ARemovalThatClearsTheSectorFieldDivergesAtTheFirstRemoval) {
    const std::uint32_t prev = profile_offset("mobile", "prev"), next = profile_offset("mobile", "next"),
                        sector = profile_offset("mobile", "sector");
    ASSERT_LT(std::max({prev, next, sector}), 0x80u) << "the patch addresses the fields by 8-bit offsets";
    char first[48];
    std::snprintf(first, sizeof first, "mov dword ptr [eax + 0x%x], 0", prev);
    const CodeSite site =
        find_instruction("remove_mobile_body", [&](const emu::Instruction& in) { return in.text == first; });
    ASSERT_EQ(site.bytes.size(), 7u) << site.instruction.text;
    // xor ecx, ecx; then ecx stored to prev, next and sector; three nops: the two 7-byte stores replaced.
    const std::vector<std::uint8_t> clears = {0x31,
                                              0xc9,
                                              0x89,
                                              0x48,
                                              static_cast<std::uint8_t>(prev),
                                              0x89,
                                              0x48,
                                              static_cast<std::uint8_t>(next),
                                              0x89,
                                              0x48,
                                              static_cast<std::uint8_t>(sector),
                                              0x90,
                                              0x90,
                                              0x90};
    ojson shipped = read_json(shipped_case("coverage-mobiles-departed"));
    shipped.erase("rules");
    const fs::path file = write_case("departed", shipped);
    const ojson report = run_clean_and_patched(file, "departed", site, clears);
    const ojson& d = report.at("first_unexplained");
    ASSERT_EQ(d.at("original").at("kind"), "departed") << d.dump(2);
    const ojson original = d.at("original").at("fields").at("struct"),
                reimpl = d.at("reimpl").at("fields").at("struct");
    EXPECT_EQ(original, ojson::array({0, 0, 0})) << d.dump(2);
    EXPECT_EQ(reimpl.at(0), 0);
    EXPECT_EQ(reimpl.at(1), 0);
    EXPECT_NE(reimpl.at(2), 0) << "the removed mobile's sector is 0 on both sides: the fault cannot show";
    // The first removal of the script is where it shows.
    std::size_t first_removal = 0;
    const ojson script = shipped.at("selection").at("script");
    while (first_removal < script.size() && !script[first_removal].contains("remove")) ++first_removal;
    EXPECT_EQ(d.at("input"), "step " + std::to_string(first_removal)) << d.dump(2);
}

// ---- mobiles: the reset ---------------------------------------------------------------------------

// abi.reset_mobiles: reset_mobiles_ empties every sector list. Its memset given a size of 0, the
// reset leaves the lists as they were. The mobile family called it only on the boot's empty map and
// the scene family before each script without reading the map after it: the ledger called the rule
// Proven while 20 cases stayed equivalent. Now the mobile family resets with the script's mobiles
// still placed (its last input, "reset") and the scene family compares the map after each reset.
TEST_F(FamilyFaultTest, AResetThatLeavesTheListsDivergesAfterTheScriptAndBetweenScenes) {
    const CodeSite site = find_instruction("reset_mobiles_body", [](const emu::Instruction& in) {
        return in.text == "push " + [] {
            char size[16];
            std::snprintf(size, sizeof size, "0x%x", profile_data("sector_map").at("size").get<unsigned>());
            return std::string(size);
        }();
    });
    ASSERT_EQ(site.bytes.size(), 5u) << site.instruction.text;
    const std::vector<std::uint8_t> no_size = {site.bytes[0], 0, 0, 0, 0};

    const std::uint32_t steps = 60, seed = 7;
    const fs::path mobiles = write_case("small-mobiles", {{"schema", "refcheck-case/1"},
                                                          {"family", "mobile"},
                                                          {"description", "cli_tests: mobile reset"},
                                                          {"selection", {{"steps", steps}, {"seed", seed}}}});
    const ojson report = run_clean_and_patched(mobiles, "small-mobiles", site, no_size);
    // The original's sector map after the reset is the script's last: the sectors the
    // reimplementation's map occupies after the same script.
    const auto& models = small_models();
    reimpl::MobileMap map;
    for (const auto& s : harness::mobile_script(models, seed, steps)) {
        if (s.op == harness::MobileStep::Op::Add) map.add(s.mobile);
        if (s.op == harness::MobileStep::Op::Move) map.move(s.mobile.id, s.mobile.position);
        if (s.op == harness::MobileStep::Op::Remove) map.remove(s.mobile.id);
    }
    std::vector<std::int64_t> occupied;
    for (std::uint32_t i = 0; i < reimpl::kSectorCount; ++i)
        if (!map.sector_list(i % reimpl::kSectorsPerSide, i / reimpl::kSectorsPerSide).empty())
            occupied.push_back(i);
    ASSERT_FALSE(occupied.empty()) << "the script leaves no mobile on the map: the fault cannot show";
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "reset") << d.dump(2);
    EXPECT_EQ(d.at("original").at("kind"), "sector_map") << d.dump(2);
    EXPECT_EQ(d.at("original").at("fields").at("occupied"), occupied);
    EXPECT_EQ(d.at("reimpl").at("fields").at("occupied"), ojson::array());
    EXPECT_EQ(report.at("counts").at("unexplained"), 1) << report.at("counts").dump();
    const ojson clean = read_json(path("clean/small-mobiles.json"));
    EXPECT_EQ(clean.at("metrics").at("original_resets_compared"), 1) << clean.at("metrics").dump();

    // Scenes: two scripts of one frame each; the second starts on the first's mobiles.
    ojson scene = read_json(shipped_case("scenes"));
    scene["selection"]["scene"]["scripts"] = {{{"name", "deck"}, {"frames", 1}},
                                              {{"name", "sea"}, {"frames", 1}}};
    const fs::path scenes = write_case("small-scenes", scene);
    const ojson scene_report = run_clean_and_patched(scenes, "small-scenes", site, no_size);
    const ojson& s = scene_report.at("first_unexplained");
    EXPECT_EQ(s.at("input"), "frame 1") << s.dump(2);
    EXPECT_EQ(s.at("original").at("kind"), "sector_map") << s.dump(2);
    EXPECT_FALSE(s.at("original").at("fields").at("occupied").empty()) << s.dump(2);
    EXPECT_EQ(s.at("reimpl").at("fields").at("occupied"), ojson::array());
}

} // namespace
} // namespace refcheck::cli_test
