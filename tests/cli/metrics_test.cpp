// Metrics count what ran (issue 11, point 6): the mobile and receiver families' metrics are named for
// the side they count (compared_, original_, reimpl_, played_; docs/architecture.md "Metrics") and
// an --only run that compares one input counts that one input, with the figures a replay of the
// family's script on the reimplementation gives for it.
#include "cli_support.hpp"
#include "detour.hpp"

#include "family/mobile_script.hpp" // harness/src: the scripted inputs of the mobile and receiver families

#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <optional>

namespace refcheck::cli_test {
namespace {

class MetricsTest : public CliTest {
protected:
    ojson metrics(const fs::path& file, const std::string& name, const std::string& out,
                  const std::string& extra = "") {
        const Result run =
            refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out " + out + extra);
        EXPECT_EQ(run.code, 0) << run.out << run.err;
        const ojson report = read_json(path(out + "/" + name + ".json"));
        // run.json repeats the case's metrics.
        EXPECT_EQ(read_json(path(out + "/run.json")).at("cases").at(0).at("metrics"), report.at("metrics"));
        return report.at("metrics");
    }
};

const reimpl::ModelArchive& small_models() {
    static const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    return models;
}

TEST_F(MetricsTest, MobileMetricsCountTheQueuesComparedAndTheStepsPlayed) {
    const std::uint32_t steps = 40, seed = 7, only = 23;
    const fs::path file = write_case("small-mobiles", {{"schema", "refcheck-case/1"},
                                                       {"family", "mobile"},
                                                       {"description", "cli_tests: mobile queues"},
                                                       {"selection", {{"steps", steps}, {"seed", seed}}}});
    // The script replayed on the reimplementation: queue sizes per step and operations played.
    const auto& models = small_models();
    const auto script = harness::mobile_script(models, seed, steps);
    ASSERT_EQ(script.size(), steps);
    reimpl::MobileMap map;
    std::vector<std::size_t> sizes;
    std::uint64_t arrivals = 0, inside = 0, across = 0, departures = 0, total = 0;
    for (const auto& s : script) {
        switch (s.op) {
            case harness::MobileStep::Op::Add: map.add(s.mobile), ++arrivals; break;
            case harness::MobileStep::Op::Move:
                map.move(s.mobile.id, s.mobile.position), ++(s.across ? across : inside);
                break;
            case harness::MobileStep::Op::Remove: map.remove(s.mobile.id), ++departures; break;
        }
        sizes.push_back(map.queue(models, s.camera, reimpl::Scene{}).size());
        total += sizes.back();
    }
    ASSERT_NE(sizes[only], total) << "pick a step whose queue is not every entry of the script";

    const ojson all = metrics(file, "small-mobiles", "all");
    const ojson one = metrics(file, "small-mobiles", "one", " --only 'step " + std::to_string(only) + "'");
    EXPECT_FALSE(all.contains("queues")) << "the metric that repeated the case's steps";
    EXPECT_EQ(all.at("compared_queues"), steps);
    EXPECT_EQ(all.at("original_queues"), steps);
    EXPECT_EQ(all.at("original_queue_entries"), total);
    EXPECT_EQ(all.at("reimpl_queue_entries"), total);
    EXPECT_EQ(one.at("compared_queues"), 1);
    EXPECT_EQ(one.at("original_queues"), 1);
    EXPECT_EQ(one.at("original_queue_entries"), sizes[only]);
    EXPECT_EQ(one.at("reimpl_queue_entries"), sizes[only]);
    for (const ojson* m : {&all, &one}) { // every step is played: the earlier ones build the state
        EXPECT_EQ(m->at("played_arrivals"), arrivals);
        EXPECT_EQ(m->at("played_moves_inside_sector"), inside);
        EXPECT_EQ(m->at("played_moves_across_sectors"), across);
        EXPECT_EQ(m->at("played_departures"), departures);
    }
}

TEST_F(MetricsTest, ReceiverMetricsCountTheQueriesCompared) {
    const std::uint32_t queries = 60, seed = 11;
    const fs::path file = write_case("small-receivers", small_receivers(queries, seed));
    const auto& models = small_models();
    const auto script = harness::receiver_script(models, seed, queries);
    ASSERT_EQ(script.queries.size(), queries);
    reimpl::MobileMap map;
    for (const auto& m : script.receivers) map.add(m);
    map.add(script.caster);
    std::uint64_t hits = 0, above = 0;
    std::optional<std::uint32_t> first_hit;
    for (std::uint32_t q = 0; q < queries; ++q) {
        const auto& [position, params, at_bound] = script.queries[q];
        map.move(script.caster.id, position);
        if (reimpl::shadow_plane_height(models, map, script.caster.id, params).receiver) {
            ++hits;
            if (!first_hit) first_hit = q;
        }
        above += position[1] >= params.cloud_altitude ? 1 : 0;
    }
    ASSERT_TRUE(first_hit) << "no query of the script hits a receiver";
    ASSERT_GT(hits, 1u);

    const ojson all = metrics(file, "small-receivers", "all");
    const ojson one =
        metrics(file, "small-receivers", "one", " --only 'query " + std::to_string(*first_hit) + "'");
    EXPECT_FALSE(all.contains("queries")) << "the metric that repeated the case's queries";
    EXPECT_EQ(all.at("compared_queries"), queries);
    EXPECT_EQ(all.at("original_queries"), queries);
    EXPECT_EQ(all.at("original_receiver_hits"), hits);
    EXPECT_EQ(all.at("reimpl_receiver_hits"), hits);
    EXPECT_EQ(all.at("compared_above_clouds"), above);
    EXPECT_EQ(one.at("compared_queries"), 1);
    EXPECT_EQ(one.at("original_queries"), 1);
    EXPECT_EQ(one.at("original_receiver_hits"), 1);
    EXPECT_EQ(one.at("reimpl_receiver_hits"), 1);
    const auto& first = script.queries[*first_hit];
    EXPECT_EQ(one.at("compared_above_clouds"), first.position[1] >= first.params.cloud_altitude ? 1 : 0);
    for (const ojson* m : {&all, &one}) EXPECT_EQ(m->at("played_receivers"), script.receivers.size());
}

// The shadow family's frames_with_shadow_pixels counted the original's framebuffer and stood for
// the case: an original whose shadows paint nothing and a reimplementation that draws them gave
// one figure, 0. Each side now counts its own frames.
TEST_F(MetricsTest, ShadowFramesWithPixelsAreCountedOnEachSide) {
    const fs::path file = kCasesDir / "shadows.json";
    const ojson clean = metrics(file, "shadows", "clean");
    EXPECT_GT(clean.at("original_frames_with_shadow_pixels").get<std::uint64_t>(), 0u);
    EXPECT_EQ(clean.at("original_frames_with_shadow_pixels"), clean.at("reimpl_frames_with_shadow_pixels"));
    const Detour s = detour_site("draw_3d_object_shadow_");
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out blank" +
                              detour_patches(s, {0x31, 0xc0, 0xc3})); // the body draws nothing
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson m = read_json(path("blank/shadows.json")).at("metrics");
    EXPECT_EQ(m.at("original_frames_with_shadow_pixels"), 0);
    EXPECT_EQ(m.at("reimpl_frames_with_shadow_pixels"), clean.at("reimpl_frames_with_shadow_pixels"));
}

} // namespace
} // namespace refcheck::cli_test
