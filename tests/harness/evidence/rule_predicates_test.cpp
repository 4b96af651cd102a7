// Rule predicates (rule_predicates.hpp): the language parses and rejects what it cannot mean, matched
// events satisfy exactly the predicates their fields fit, the per-case counter counts them (frames
// with the face types compared before them, routines only when something matched), and a run on the
// small archives proves a rule only when an equivalent case without seeded faults exercised it.
#include "refcheck/harness/compare.hpp"
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/rule_predicates.hpp"
#include "refcheck/harness/run.hpp"
#include "refcheck/events.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::string& text) {
    try {
        parse_predicate(text);
    } catch (const PredicateError& e) {
        return e.what();
    }
    return "";
}

EventRecord face(std::int64_t type, std::int64_t opcode, std::vector<std::int64_t> vertices,
                 bool clipped = false) {
    EventRecord e;
    e.kind = "face_draw";
    e.fields = {{"record", std::int64_t{3}},
                {"path", std::vector<std::int64_t>{}},
                {"offset", std::int64_t{0}},
                {"opcode", opcode},
                {"secondary", opcode == 1},
                {"clipped", clipped},
                {"type", type},
                {"vertices", std::move(vertices)}};
    e.key_fields = 3;
    return e;
}

EventRecord table(const std::string& name) {
    return {"table", {{"name", name}, {"size", std::int64_t{256}}}, 1, 0};
}

bool holds(const std::string& predicate, const EventRecord& a, const EventRecord& b) {
    const RulePredicate p = parse_predicate(predicate);
    for (const auto& alt : p.alternatives)
        if (satisfies(alt, a, b)) return true;
    return false;
}
bool holds(const std::string& predicate, const EventRecord& e) { return holds(predicate, e, e); }

fs::path write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

const ojson& row(const ojson& ledger, const std::string& id) {
    for (const auto& r : ledger.at("rules"))
        if (r.at("id") == id) return r;
    throw std::runtime_error("no row " + id);
}

} // namespace

TEST(RulePredicates, ParseTheLanguage) {
    const RulePredicate p =
        parse_predicate("event face_draw type in 7,8,15..16 and clipped = true or routine op_plane");
    ASSERT_EQ(p.alternatives.size(), 2u);
    EXPECT_EQ(p.alternatives[0].name, "face_draw");
    ASSERT_EQ(p.alternatives[0].conditions.size(), 2u);
    EXPECT_EQ(p.alternatives[0].conditions[0].ranges.size(), 3u);
    EXPECT_EQ(p.alternatives[1].source, PredicateAlternative::Source::Routine);
    EXPECT_TRUE(p.needs_coverage());
    EXPECT_EQ(p.text, "event face_draw type in 7,8,15..16 and clipped = true or routine op_plane");
    const RulePredicate n = parse_predicate("none: an absence leaves no event");
    EXPECT_TRUE(n.none);
    EXPECT_EQ(n.reason, "an absence leaves no event");
    EXPECT_TRUE(n.alternatives.empty());
    EXPECT_EQ(
        parse_predicate("event table name = \"palette_rgb (warzone 3)\"").alternatives[0].conditions[0].word,
        "palette_rgb (warzone 3)");
    EXPECT_EQ(parse_predicate("known missing_normal").alternatives[0].source,
              PredicateAlternative::Source::Known);
    // Every kind the harness compares is known, each with its fields.
    for (const auto& k : event_kinds())
        EXPECT_NO_THROW(parse_predicate("event " + std::string(k.kind))) << k.kind;
}

TEST(RulePredicates, RejectWhatTheyCannotMean) {
    EXPECT_NE(error_of("").find("needs a predicate"), std::string::npos);
    EXPECT_NE(error_of("none").find("\"none\" needs a reason"), std::string::npos);
    EXPECT_NE(error_of("face_draw type = 7").find("expected \"event\", \"routine\", \"known\" or \"none\""),
              std::string::npos);
    EXPECT_NE(error_of("event face_drew").find("unknown event kind \"face_drew\""), std::string::npos);
    EXPECT_NE(error_of("event face_draw colour = 3").find("event face_draw has no field \"colour\""),
              std::string::npos);
    EXPECT_NE(error_of("event face_draw type ~ 3").find("unknown operator \"~\""), std::string::npos);
    EXPECT_NE(error_of("event face_draw type = seven").find("\"seven\" is not an integer"),
              std::string::npos);
    // Another field of the event, of another type: not comparable.
    EXPECT_NE(error_of("event face_draw type = vertices")
                  .find("\"vertices\" is not an integer nor an integer field"),
              std::string::npos);
    EXPECT_NE(error_of("event face_draw type in 7,,8").find("not a list of integers"), std::string::npos);
    EXPECT_NE(error_of("event face_draw type in 9..7").find("not a list of integers"), std::string::npos);
    EXPECT_NE(error_of("event face_draw any type = 7").find("type is an integer, not a list"),
              std::string::npos);
    EXPECT_NE(error_of("event face_draw u = 3").find("u is a list"), std::string::npos);
    EXPECT_NE(error_of("event face_draw clipped = 1").find("clipped is a bool"), std::string::npos);
    EXPECT_NE(error_of("event face_draw type nonempty").find("needs a list or string field"),
              std::string::npos);
    EXPECT_NE(error_of("event table name < x").find("name is a string"), std::string::npos);
    EXPECT_NE(error_of("event face_draw flag shiny").find("unknown face flag \"shiny\""), std::string::npos);
    EXPECT_NE(error_of("event face_draw type = 7 type = 8").find("joined by \"and\""), std::string::npos);
    EXPECT_NE(error_of("event face_draw type =").find("expected a value at the end"), std::string::npos);
    EXPECT_NE(error_of("routine op_plane op_select").find("unexpected \"op_select\" after routine op_plane"),
              std::string::npos);
    EXPECT_NE(error_of("event frame or").find("at the end"), std::string::npos);
    EXPECT_NE(error_of("known shiny").find("unknown known-divergence id \"shiny\""), std::string::npos);
    EXPECT_NE(error_of("event table name = \"open").find("no closing quote"), std::string::npos);
}

TEST(RulePredicates, EventsSatisfyExactlyThePredicatesTheirFieldsFit) {
    const EventRecord textured = face(8, 0, {1, 2, 3});
    EXPECT_TRUE(holds("event face_draw type in 7,8", textured));
    EXPECT_FALSE(holds("event face_draw type in 7,8", face(9, 0, {1, 2, 3})));
    EXPECT_TRUE(holds("event face_draw type in 2..8,11..21", textured));
    EXPECT_FALSE(holds("event attached_draw", textured));
    EXPECT_TRUE(holds("event face_draw opcode = 0 and len vertices < 3", face(2, 0, {1, 2})));
    EXPECT_FALSE(holds("event face_draw opcode = 0 and len vertices < 3", textured));
    EXPECT_FALSE(holds("event face_draw opcode = 0 and len vertices < 3", face(2, 1, {1, 2})));
    EXPECT_TRUE(holds("event face_draw any vertices >= 3", textured));
    EXPECT_FALSE(holds("event face_draw any vertices > 3", textured));
    EXPECT_TRUE(holds("event face_draw clipped = true", face(2, 0, {1, 2, 3}, true)));
    EXPECT_FALSE(holds("event face_draw clipped = true", textured));
    EXPECT_TRUE(holds("event face_draw path empty", textured));
    EXPECT_FALSE(holds("event face_draw path nonempty", textured));
    EXPECT_TRUE(holds("event table name starts intensity_table", table("intensity_table (warzone 1)")));
    EXPECT_TRUE(holds("event table name contains \"(warzone 1)\"", table("intensity_table (warzone 1)")));
    EXPECT_FALSE(holds("event table name = \"palette_rgb (warzone 3)\"", table("palette_rgb (warzone 1)")));
    EXPECT_TRUE(holds("event table name = \"palette_rgb (warzone 3)\"", table("palette_rgb (warzone 3)")));
    // `flag` needs both sides' classification (the original's from its memory, FaceWitness::classify),
    // `noflag` neither's: a reimplementation that flags a face its original does not (or the other
    // way round) witnesses neither, so no rule rests on one side's word.
    EventRecord flagged = textured;
    flagged.flags = static_cast<std::uint32_t>(refcheck::events::FaceFlag::TextureRightEdge);
    EXPECT_TRUE(holds("event face_draw flag tex_right_edge", flagged, flagged));
    EXPECT_FALSE(holds("event face_draw flag tex_right_edge", textured, flagged));
    EXPECT_FALSE(holds("event face_draw flag tex_right_edge", flagged, textured));
    EXPECT_FALSE(holds("event face_draw flag tex_right_edge", textured, textured));
    EXPECT_FALSE(holds("event face_draw noflag tex_right_edge", textured, flagged));
    EXPECT_FALSE(holds("event face_draw noflag tex_right_edge", flagged, textured));
    EXPECT_FALSE(holds("event face_draw noflag tex_right_edge", flagged, flagged));
    EXPECT_TRUE(holds("event face_draw noflag tex_right_edge", textured, textured));
    // A field an event lacks satisfies nothing, nor one holding text where the rule compares numbers.
    EXPECT_FALSE(holds("event face_draw face_level = 31", textured));
    EventRecord text_type = textured;
    text_type.fields[6].value = std::string();
    EXPECT_FALSE(holds("event face_draw type = 0", text_type));
    EXPECT_FALSE(holds("event face_draw type != 8", text_type));
    // An integer field against another of the same event: a walk to an earlier offset.
    auto walk = [](std::int64_t opcode, std::int64_t offset, std::int64_t next) {
        return EventRecord{"control_flow",
                           {{"record", std::int64_t{3}},
                            {"path", std::vector<std::int64_t>{}},
                            {"offset", offset},
                            {"opcode", opcode},
                            {"next", next}},
                           2,
                           0};
    };
    const std::string backward = "event control_flow opcode in 2..5 and next < offset";
    EXPECT_TRUE(holds(backward, walk(5, 40, 12)));
    EXPECT_FALSE(holds(backward, walk(5, 40, 52)));
    EXPECT_FALSE(holds(backward, walk(5, 40, 40)));
    EXPECT_FALSE(holds(backward, walk(7, 40, 12)));
    EXPECT_TRUE(holds("event control_flow next >= offset", walk(7, 40, 40)));
    EXPECT_TRUE(holds("event control_flow next = offset", walk(7, 40, 40)));
    EXPECT_FALSE(holds("event control_flow next = offset", walk(7, 40, 41)));
}

TEST(RulePredicates, TheCounterCountsMatchedEventsFramesAndRoutines) {
    const RulePredicate textured = parse_predicate("event face_draw type in 7,8");
    const RulePredicate frame_textured = parse_predicate("event frame any types in 7,8 and drawn_pixels > 0");
    const RulePredicate routine = parse_predicate("routine op_plane");
    const RulePredicate known = parse_predicate("known missing_normal");
    const RulePredicate none = parse_predicate("none: never");
    ExerciseCounter counter(
        {{"t", &textured}, {"f", &frame_textured}, {"r", &routine}, {"k", &known}, {"n", &none}});
    ojson report;
    report["coverage"]["routines"]["op_plane"] = {{"blocks", 9}, {"executed", 4}};
    report["counts"]["known_by_cause"]["missing_normal"] = 2;
    // Before anything matched, a routine's coverage proves nothing.
    EXPECT_EQ(counter.json(report).at("r"), 0);
    EXPECT_EQ(counter.json(report).at("k"), 2);
    const std::vector<std::uint8_t> blank(64000, 224);
    std::vector<std::uint8_t> drawn = blank;
    drawn[5] = 7;
    const EventRecord f = matched_frame_event("record 1 view 0 light 0 state 0", drawn);
    EXPECT_EQ(*f.find("drawn_pixels"), Value(std::int64_t{1}));
    counter.observe(f, f); // no face before it
    counter.observe(face(7, 0, {1, 2, 3}), face(7, 0, {1, 2, 3}));
    counter.observe(face(2, 0, {1, 2, 3}), face(2, 0, {1, 2, 3}));
    counter.observe(f, f); // after a type 7 face
    counter.observe(f, f); // the types were reset by the previous frame
    const EventRecord empty = matched_frame_event("x", blank);
    counter.observe(face(8, 0, {1, 2, 3}), face(8, 0, {1, 2, 3}));
    counter.observe(empty, empty); // nothing drawn
    const ojson j = counter.json(report);
    EXPECT_EQ(j.at("t"), 2);
    EXPECT_EQ(j.at("f"), 1);
    EXPECT_EQ(j.at("r"), 4);
    EXPECT_EQ(j.at("n"), 0);
    EXPECT_EQ(counter.matched(), 7u);
    // A narrowed case's coverage holds blocks of inputs played but not compared (a mobile case plays
    // every step before the selected one): its routines prove nothing. Before, `refcheck run
    // cases/mobiles.json --only 'step 0'` proved mobile.remove from blocks of remove_mobile_ that steps 1-383 ran.
    counter.set_narrowed();
    const ojson narrowed = counter.json(report);
    EXPECT_EQ(narrowed.at("r"), 0);
    EXPECT_EQ(narrowed.at("t"), 2); // matched events still count
    EXPECT_EQ(narrowed.at("k"), 2);
}

// The counter indexes `FIELD = N` watches by N (rule_predicates.cpp): its counts must be, rule by
// rule, how many of the matched events satisfy the predicate, as satisfies() decides for each, with
// values of every type in the indexed fields (the recorder's `secondary` holds the flags word when it
// disagrees with the routine called; a list or a string where an integer is expected; a field absent).
TEST(RulePredicates, TheCounterCountsWhatSatisfiesDecidesEventByEvent) {
    const std::vector<std::string> texts = {
        "event face_draw type = 3",
        "event face_draw type = 4",
        "event face_draw type = 4 and opcode = 1",
        "event face_draw type = 9 and clipped = true and noflag missing_normal",
        "event face_draw type = 0",
        "event face_draw type = -1",
        "event face_draw clipped = true",
        "event face_draw clipped = false and type = 3",
        "event face_draw secondary = true",
        "event face_draw secondary = false or event face_draw type = 4",
        "event face_draw opcode = 1 and len vertices < 3",
        "event face_draw type in 3..5",
        "event face_draw",
        "event face_draw type = opcode", // a field against another: never indexed by a number
        "event face_draw opcode = type and clipped = true",
        "event face_draw type < opcode",
    };
    std::vector<RulePredicate> predicates;
    for (const auto& t : texts) predicates.push_back(parse_predicate(t));
    std::vector<std::pair<std::string, const RulePredicate*>> rules;
    for (std::size_t r = 0; r < predicates.size(); ++r)
        rules.emplace_back("r" + std::to_string(r), &predicates[r]);
    ExerciseCounter counter(rules);
    std::vector<std::uint64_t> expected(rules.size(), 0);

    std::mt19937 rng(17);
    for (int i = 0; i < 4000; ++i) {
        EventRecord e = face(static_cast<std::int64_t>(rng() % 12) - 1, rng() % 2,
                             std::vector<std::int64_t>(rng() % 5, 1), rng() % 2 == 0);
        switch (rng() % 8) {
            case 0:
                e.fields[4].value = static_cast<std::int64_t>(rng() % 3);
                break;                                                       // secondary as a flags word
            case 1: e.fields[6].value = std::vector<std::int64_t>{3}; break; // type as a list
            case 2: e.fields[6].value = std::string(); break;                // type as an empty string
            case 3: e.fields.erase(e.fields.begin() + 6); break;             // no type
            case 4: std::swap(e.fields[5], e.fields[6]); break;              // fields out of their order
            default: break;
        }
        if (rng() % 4 == 0) e.flags = static_cast<std::uint32_t>(refcheck::events::FaceFlag::MissingNormal);
        counter.observe(e, e);
        for (std::size_t r = 0; r < rules.size(); ++r) {
            bool any = false;
            for (const auto& alt : predicates[r].alternatives) any = any || satisfies(alt, e, e);
            expected[r] += any ? 1 : 0;
        }
    }
    const ojson j = counter.json(ojson::object());
    for (std::size_t r = 0; r < rules.size(); ++r) {
        EXPECT_EQ(j.at(rules[r].first).get<std::uint64_t>(), expected[r]) << texts[r];
        EXPECT_GT(expected[r], 0u) << texts[r] << ": the test must exercise every rule";
    }
}

// Runs on the small archives: a program case that selects no record compares nothing and proves
// nothing (the old rule proved its rules: it ran equivalent); a case claiming a rule no event of it
// satisfies lists it as claimed, not exercised; a seeded fault proves nothing.
TEST(RulePredicates, ARunProvesOnlyWhatItExercised) {
    const fs::path dir = fs::path(testing::TempDir()) / "rule-predicates";
    fs::remove_all(dir);
    const std::string hooks =
        R"("hooks": {"replace": ["draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
            "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_"]},)";
    const std::string views =
        R"("views": [{"yaw": 60, "pitch": 20, "distance": 4}], "lights": [[0, 16384, 0]], "states": [0])";
    const fs::path idle = write(dir / "cases/idle.json", R"({"schema": "refcheck-case/1", "family": "program",
        "selection": {"records": {"from": 1000000}, )" + views +
                                                             "}, " + hooks + R"(
        "rules": ["op.primary", "abi.face"]})");
    const fs::path drawn =
        write(dir / "cases/drawn.json", R"({"schema": "refcheck-case/1", "family": "program",
        "selection": {"records": {"from": 1, "to": 6}, )" +
                                            views + "}, " + hooks + R"(
        "allow": ["missing_normal"], "rules": ["op.primary", "pkt.21", "geo.near"]})");
    RunOptions o;
    o.defaults = {REFCHECK_STANDIN_EXE, REFCHECK_STANDIN_PROFILE, REFCHECK_SMALL_DATA, std::nullopt, nullptr};
    o.rules_document = fs::path(REFCHECK_SOURCE_DIR) / "docs/formats/apache-3d.md";
    o.out = dir / "out";
    const RunSummary s = run({idle, drawn}, o);
    ASSERT_TRUE(s.problems.empty());
    // A case that compares nothing is an error now (sound verdicts), so the run exits 2; its
    // claims are still counted, and prove nothing.
    ASSERT_EQ(s.exit_code, 2) << s.index.dump(1);
    const ojson idle_report = read_json(dir / "out/idle.json");
    EXPECT_EQ(idle_report.at("status"), "error");
    EXPECT_EQ(idle_report.at("counts").at("compared"), 0);
    EXPECT_EQ(idle_report.at("exercised"), ojson::parse(R"({"op.primary": 0, "abi.face": 0})"));
    const ojson drawn_report = read_json(dir / "out/drawn.json");
    EXPECT_GT(drawn_report.at("exercised").at("op.primary").get<std::uint64_t>(), 0u);
    EXPECT_EQ(drawn_report.at("exercised").at("geo.near"), 0); // its predicate is none
    const ojson& ledger = s.index.at("ledger");
    EXPECT_EQ(row(ledger, "op.primary").at("status"), "Proven");
    EXPECT_EQ(row(ledger, "op.primary").at("proven_by"), ojson({"drawn"}));
    EXPECT_EQ(row(ledger, "op.primary").at("claimed_not_exercised"), ojson({"idle"}));
    EXPECT_EQ(row(ledger, "abi.face").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "geo.near").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "geo.near").at("claimed_not_exercised"), ojson({"drawn"}));
    EXPECT_EQ(ledger.at("counts").at("Proven"), 1 + (drawn_report.at("exercised").at("pkt.21") != 0 ? 1 : 0));

    // The same cases with a seeded fault the program family never notices on these inputs' streams
    // (or does: then the case is divergent); either way nothing is Proven.
    o.injection.reimpl_light_swapped = true;
    o.out = dir / "seeded";
    const RunSummary seeded = run({drawn}, o);
    ASSERT_TRUE(seeded.problems.empty());
    const ojson seeded_report = read_json(dir / "seeded/drawn.json");
    EXPECT_TRUE(seeded_report.contains("injected"));
    EXPECT_EQ(seeded.index.at("ledger").at("counts").at("Proven"), 0);
    EXPECT_EQ(seeded.index.at("ledger").at("injected"), ojson({"drawn"}));
}

// The mobile rules of one kind of step share a routine with the others (move_mobile_ moves inside
// a sector and across, remove_mobile_ removes and removes again): their predicates were `routine
// move_mobile_`, so one move inside a sector proved mobile.move_cross, and one removal
// mobile.remove.again, on a case that never did either. The queue entries now carry what the step
// before them did (`op`), and each rule is exercised by the queues compared after its kind of step.
TEST(RulePredicates, AMobileRuleIsExercisedOnlyByItsOwnKindOfStep) {
    const fs::path dir = fs::path(testing::TempDir()) / "rule-predicates-mobile";
    fs::remove_all(dir);
    const std::string rules = R"("rules": ["mobile.insert_front", "mobile.move_same", "mobile.move_cross",
        "mobile.remove", "mobile.remove.again", "mobile.remove.links"])";
    const fs::path inside =
        write(dir / "cases/inside.json", R"({"schema": "refcheck-case/1", "family": "mobile",
        "selection": {"script": [
            {"add": 1, "model": 1, "position": [2129920, 1000, 2149920]},
            {"add": 2, "model": 1, "position": [2129990, 1000, 2149990]},
            {"move": 1, "position": [2129930, 1000, 2149930]},
            {"remove": 1}]},
        "compares": ["queue_entry"], )" + rules +
                                             "}");
    RunOptions o;
    o.defaults = {REFCHECK_STANDIN_EXE, REFCHECK_STANDIN_PROFILE, REFCHECK_SMALL_DATA, std::nullopt, nullptr};
    o.rules_document = fs::path(REFCHECK_SOURCE_DIR) / "docs/formats/apache-3d.md";
    o.out = dir / "out";
    const RunSummary s = run({inside}, o);
    ASSERT_TRUE(s.problems.empty());
    ASSERT_EQ(s.exit_code, 0) << s.index.dump(1);
    const ojson report = read_json(dir / "out/inside.json");
    const ojson& metrics = report.at("metrics");
    ASSERT_EQ(metrics.at("played_moves_inside_sector"), 1) << metrics.dump();
    ASSERT_EQ(metrics.at("played_moves_across_sectors"), 0) << metrics.dump();
    const ojson& x = report.at("exercised");
    EXPECT_GT(x.at("mobile.insert_front").get<std::uint64_t>(), 0u) << x.dump();
    EXPECT_GT(x.at("mobile.move_same").get<std::uint64_t>(), 0u) << x.dump();
    EXPECT_GT(x.at("mobile.remove").get<std::uint64_t>(), 0u) << x.dump();
    EXPECT_EQ(x.at("mobile.move_cross"), 0) << x.dump();
    EXPECT_EQ(x.at("mobile.remove.again"), 0) << x.dump();
    // The removal's struct is compared (a departed event): its links and sector show
    // mobile.remove.links after any removal, not only one made again.
    EXPECT_GT(x.at("mobile.remove.links").get<std::uint64_t>(), 0u) << x.dump();
    const ojson& ledger = s.index.at("ledger");
    EXPECT_EQ(row(ledger, "mobile.move_same").at("status"), "Proven");
    EXPECT_EQ(row(ledger, "mobile.move_cross").at("status"), "Sourced-unproven");
    EXPECT_EQ(row(ledger, "mobile.remove.again").at("status"), "Chosen-unproven");
}

// A loader case under a seeded fault it cannot see (the reimplementation's light) runs equivalent
// and exercises its rules, and still proves none of them.
TEST(RulePredicates, AnEquivalentRunWithASeededFaultProvesNothing) {
    const fs::path dir = fs::path(testing::TempDir()) / "rule-predicates-seeded";
    fs::remove_all(dir);
    const fs::path loader =
        write(dir / "cases/loads.json", R"({"schema": "refcheck-case/1", "family": "loader",
        "rules": ["arc.table", "rel.offsets"]})");
    RunOptions o;
    o.defaults = {REFCHECK_STANDIN_EXE, REFCHECK_STANDIN_PROFILE, REFCHECK_SMALL_DATA, std::nullopt, nullptr};
    o.rules_document = fs::path(REFCHECK_SOURCE_DIR) / "docs/formats/apache-3d.md";
    o.out = dir / "clean";
    const RunSummary clean = run({loader}, o);
    ASSERT_EQ(clean.exit_code, 0) << clean.index.dump(1);
    EXPECT_EQ(row(clean.index.at("ledger"), "arc.table").at("status"), "Proven");
    EXPECT_EQ(row(clean.index.at("ledger"), "rel.offsets").at("status"), "Proven");
    o.injection.reimpl_light_swapped = true;
    o.out = dir / "seeded";
    const RunSummary seeded = run({loader}, o);
    ASSERT_EQ(seeded.exit_code, 0) << seeded.index.dump(1);
    const ojson report = read_json(dir / "seeded/loads.json");
    EXPECT_TRUE(report.contains("injected"));
    EXPECT_GT(report.at("exercised").at("arc.table").get<std::uint64_t>(), 0u);
    const ojson& ledger = seeded.index.at("ledger");
    EXPECT_EQ(ledger.at("counts").at("Proven"), 0);
    EXPECT_EQ(row(ledger, "arc.table").at("status"), "Sourced-unproven");
    EXPECT_EQ(row(ledger, "arc.table").at("exercised_by"), ojson({"loads"}));
}

// A matched frame takes the face types of its own input. The counter once took every type matched
// since the last matched frame, so the faces of an input whose frame was set aside (blank) or did
// not match carried into the next input's matched frame, which was credited with types it did not
// show: here, textured faces (type 7) of two inputs whose frames are blank or differ, then a flat
// face (type 2) whose frame matches, proved a rule about textured frames.
TEST(RulePredicates, AFrameIsCreditedOnlyWithTheFacesOfItsOwnInput) {
    const RulePredicate frame_textured = parse_predicate("event frame any types in 7,8 and drawn_pixels > 0");
    const RulePredicate frame_flat = parse_predicate("event frame any types in 2 and drawn_pixels > 0");
    ExerciseCounter counter({{"textured", &frame_textured}, {"flat", &frame_flat}});
    CompareOptions options;
    options.clear_colour = 224;
    Comparator comparator(options);
    comparator.observe_matches([&](const EventRecord& a, const EventRecord& b) { counter.observe(a, b); });
    comparator.observe_inputs([&](const std::string&) { counter.begin_input(); });
    const std::vector<std::uint8_t> blank(64000, 224), none(64000, 0);
    std::vector<std::uint8_t> drawn = blank, other = blank;
    drawn[5] = 7;
    other[5] = 8;
    const std::vector<EventRecord> textured = {face(7, 0, {1, 2, 3})}, flat = {face(2, 0, {1, 2, 3})};
    comparator.compare("a", textured, textured);
    comparator.compare_frame("a", {}, blank, blank, none, none, 320); // set aside: blank on both sides
    comparator.compare("b", textured, textured);
    comparator.compare_frame("b", {}, drawn, other, none, none, 320); // differs
    comparator.compare("c", flat, flat);
    comparator.compare_frame("c", {}, drawn, drawn, none, none, 320);
    const ojson j = counter.json(ojson::object());
    EXPECT_EQ(j.at("flat"), 1);
    EXPECT_EQ(j.at("textured"), 0) << "input c drew no textured face";
    // Its own textured faces still count.
    comparator.compare("d", textured, textured);
    comparator.compare_frame("d", {}, drawn, drawn, none, none, 320);
    EXPECT_EQ(counter.json(ojson::object()).at("textured"), 1);
}
