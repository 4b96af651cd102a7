// The evidence ledger: the rule index of the specification parses (and bad tables fail naming the
// line), every shipped case names only listed ids, a case naming an unlisted id stops the run in
// preflight, and the ledger's statuses follow the case reports.
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

// One folder per test: ctest runs the tests of this file in parallel processes, and a shared doc.md
// rewritten by one test while another reads it made them fail at random.
fs::path write(const std::string& name, const std::string& text) {
    const fs::path dir =
        fs::path(testing::TempDir()) /
        ("ledger-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
}

const char* kDoc =
    "# spec\n\n- `a.one` Chosen: words.\n\n## Index of rule ids\n\n"
    "| id | level | section | predicate |\n| --- | --- | --- | --- |\n"
    "| `a.one` | Chosen | 1. A | event face_draw type in 7,8 |\n| `a.two` | Sourced | 1. A | event frame |\n"
    "| `b.one` | Unknown | 2. B | `routine draw_shadow_face_` |\n"
    "| `b.two` | Chosen | 2. B | none: nothing shows it |\n\nAfter the table.\n";

std::string error_of(const std::string& text) {
    try {
        load_rule_index(write("bad.md", text));
    } catch (const LedgerError& e) {
        return e.what();
    }
    return "";
}

// A case report claiming `rules`, each exercised once unless `unexercised` names it.
ojson report(const std::string& name, const std::string& status, const std::vector<std::string>& rules,
             const ojson& evidence, const std::vector<std::string>& unexercised = {},
             const std::string& image = "standin.exe") {
    ojson r;
    r["case"] = name;
    r["inputs"] = {{"image", {{"file", image}, {"sha256", image + "-sha"}}}};
    r["family"] = "program";
    r["status"] = status;
    r["rules"] = rules;
    r["evidence"] = evidence;
    r["exercised"] = ojson::object();
    for (const auto& id : rules)
        r["exercised"][id] =
            std::find(unexercised.begin(), unexercised.end(), id) == unexercised.end() ? 1 : 0;
    return r;
}

const ojson& row(const ojson& ledger, const std::string& id) {
    for (const auto& r : ledger.at("rules"))
        if (r.at("id") == id) return r;
    throw std::runtime_error("no row " + id);
}

} // namespace

TEST(Ledger, ParsesTheIndexTableInDocumentOrder) {
    const RuleIndex index = load_rule_index(write("doc.md", kDoc));
    ASSERT_EQ(index.rules.size(), 4u);
    EXPECT_EQ(index.rules[0].id, "a.one");
    EXPECT_EQ(index.rules[1].level, "Sourced");
    EXPECT_EQ(index.rules[2].section, "2. B");
    EXPECT_EQ(index.sha256.size(), 64u);
    EXPECT_EQ(index.rules[0].predicate.text, "event face_draw type in 7,8");
    EXPECT_EQ(index.rules[2].predicate.text, "routine draw_shadow_face_"); // backticks dropped
    EXPECT_TRUE(index.rules[3].predicate.none);
    EXPECT_EQ(index.rules[3].predicate.reason, "nothing shows it");
    ASSERT_NE(index.find("b.two"), nullptr);
    EXPECT_EQ(index.find("c.three"), nullptr);
}

TEST(Ledger, BadTablesFailNamingTheLine) {
    const std::string head =
        "## Index of rule ids\n\n| id | level | section | predicate |\n| --- | --- | --- | --- |\n";
    EXPECT_NE(error_of(head + "| `x.y` | Guessed | 1. A | event frame |\n")
                  .find("bad.md:5: unknown evidence level \"Guessed\""),
              std::string::npos);
    EXPECT_NE(
        error_of(head + "| `x.y` | Chosen | 1. A | event frame |\n| `x.y` | Sourced | 1. A | event frame |\n")
            .find(":6: rule id \"x.y\" is listed twice"),
        std::string::npos);
    EXPECT_NE(error_of(head + "| x.y | Chosen | 1. A | event frame |\n").find("in backticks"),
              std::string::npos);
    // Predicates: the row's file and line, the rule, and what is wrong.
    EXPECT_NE(error_of(head + "| `x.y` | Chosen | 1. A |\n").find("bad.md:5: a rule index row has 4 cells"),
              std::string::npos);
    EXPECT_NE(error_of(head + "| `x.y` | Chosen | 1. A | event face_drew |\n")
                  .find("bad.md:5: predicate of `x.y`: unknown event kind \"face_drew\""),
              std::string::npos);
    EXPECT_NE(
        error_of(
            head +
            "| `x.y` | Chosen | 1. A | event frame |\n| `x.z` | Chosen | 1. A | event face_draw typ = 7 |\n")
            .find("bad.md:6: predicate of `x.z`: event face_draw has no field \"typ\""),
        std::string::npos);
    EXPECT_NE(error_of(head + "| `x.y` | Chosen | 1. A | none |\n")
                  .find("bad.md:5: predicate of `x.y`: \"none\" needs a reason"),
              std::string::npos);
    EXPECT_NE(error_of(head + "| `x.y` | Chosen | 1. A |  |\n")
                  .find("bad.md:5: predicate of `x.y`: a rule needs a predicate"),
              std::string::npos);
    EXPECT_NE(error_of("## Index of rule ids\n\n| id | level | section |\n| --- | --- | --- |\n| `x.y` | "
                       "Chosen | 1. A |\n")
                  .find("bad.md:3: the rule index header is | id | level | section | predicate |"),
              std::string::npos);
    EXPECT_NE(error_of("# no index here\n").find("has no \"## Index of rule ids\" section"),
              std::string::npos);
    EXPECT_NE(error_of(head).find("lists no rule"), std::string::npos);
}

TEST(Ledger, TheSpecificationsIndexListsEveryIdTheShippedCasesName) {
    const fs::path doc = fs::path(REFCHECK_SOURCE_DIR) / "docs/formats/apache-3d.md";
    const RuleIndex index = load_rule_index(doc);
    EXPECT_GT(index.rules.size(), 200u);
    ASSERT_NE(index.find("op.primary"), nullptr);
    // The index agrees with the rules themselves: each id is stated in the body with the index's
    // level, as a bullet ("`id` Level: ...") or a table row ("| ... | Level | `id` |").
    std::ifstream in(doc);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string body = text.substr(0, text.find("## Index of rule ids"));
    for (const auto& r : index.rules) {
        const bool bullet = body.find("`" + r.id + "` " + r.level) != std::string::npos;
        const bool row = body.find("| " + r.level + " | `" + r.id + "` |") != std::string::npos;
        EXPECT_TRUE(bullet || row) << r.id << " is not stated as " << r.level << " in the body";
    }
    std::size_t named = 0;
    for (const auto& file : list_cases(fs::path(REFCHECK_SOURCE_DIR) / "cases")) {
        const Case c = load_case(file);
        named += c.rules.size();
        EXPECT_EQ(unknown_rule_ids(c, index), std::vector<std::string>{}) << file;
    }
    EXPECT_GT(named, 0u);
}

TEST(Ledger, StatusesFollowTheCaseReports) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    const std::vector<ojson> reports = {
        report("alpha", "equivalent", {"a.one", "b.one"}, evidence),
        report("beta", "divergent", {"a.two", "a.one"}, evidence),
        report("gamma", "equivalent", {"a.one"}, evidence),
        report("delta", "equivalent", {"b.two", "a.two"}, evidence, {"b.two", "a.two"})};
    const ojson ledger = make_ledger(reports);
    EXPECT_EQ(ledger.at("document"), "doc.md");
    EXPECT_EQ(ledger.at("rules_total"), 4);
    // Matched by alpha and gamma, but beta, which claims it too, diverged: not Proven (disputed).
    const ojson& a1 = row(ledger, "a.one");
    EXPECT_EQ(a1.at("status"), "Chosen-unproven");
    EXPECT_EQ(a1.at("disputed_by"), ojson({"beta"}));
    EXPECT_EQ(a1.at("proven_by"), ojson({"alpha", "gamma"}));
    EXPECT_EQ(a1.at("exercised_by"), ojson({"alpha", "beta", "gamma"}));
    EXPECT_EQ(a1.at("exercised"), 2); // over the proving cases
    EXPECT_EQ(a1.at("predicate"), "event face_draw type in 7,8");
    // Exercised only by a divergent case, and claimed by an equivalent case that did not exercise
    // it: not proven.
    EXPECT_EQ(row(ledger, "a.two").at("status"), "Sourced-unproven");
    EXPECT_EQ(row(ledger, "a.two").at("proven_by"), ojson::array());
    EXPECT_EQ(row(ledger, "a.two").at("claimed_by"), ojson({"beta", "delta"}));
    EXPECT_EQ(row(ledger, "a.two").at("claimed_not_exercised"), ojson({"delta"}));
    EXPECT_EQ(ledger.at("claimed_not_exercised"),
              ojson::parse(R"([{"rule":"a.two","case":"delta"},{"rule":"b.two","case":"delta"}])"));
    EXPECT_EQ(row(ledger, "b.one").at("status"), "Proven");
    EXPECT_EQ(row(ledger, "b.one").at("disputed_by"), ojson::array());
    EXPECT_EQ(row(ledger, "b.two").at("status"), "Chosen-unproven");
    EXPECT_EQ(ledger.at("counts").at("Proven"), 1);
    EXPECT_EQ(ledger.at("counts").at("Chosen-unproven"), 2);
    EXPECT_EQ(ledger.at("counts").at("Sourced-unproven"), 1);
    EXPECT_EQ(ledger.at("counts").at("Unknown"), 0);
    EXPECT_EQ(ledger.at("disputed"), 2);
    EXPECT_EQ(ledger_summary(ledger), "evidence ledger (doc.md): 4 rule ids: 1 Proven, 2 Chosen-unproven, "
                                      "1 Sourced-unproven, 0 Unknown; 2 claimed, not exercised: delta:a.two, "
                                      "delta:b.two; 2 rule(s) not Proven while a divergent case claims them");
    // The run index carries it; the same reports give the same bytes whatever produced them.
    const ojson index = make_run_index(reports);
    EXPECT_EQ(index.at("ledger"), ledger);
    EXPECT_EQ(make_run_index(reports).dump(), index.dump());
    EXPECT_NE(ledger_html(ledger).find("<code>b.two</code>"), std::string::npos);
    EXPECT_NE(ledger_html(ledger).find("<td>delta</td>"), std::string::npos);
}

// The audit's seed: op_select's bound off by one. The case whose inputs meet the bound diverged; a
// case whose inputs never do matched events of the same rule, and the rule was Proven by it in the
// same run. A case that claims a rule and diverged disputes it; one with seeded faults proves and
// disputes nothing, and so does one that ended in an error (no verdict). Proven also says on which images: a run may mix cases of several.
TEST(Ledger, ARuleADivergentCaseClaimsIsNotProvenAndProvenSaysOnWhichImages) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    ojson seeded = report("seeded", "divergent", {"a.one"}, evidence);
    seeded["injected"] = ojson::object();
    const ojson agreeing = report("retail", "equivalent", {"a.one"}, evidence, {}, "retail.exe");
    const ojson ledger = make_ledger({agreeing, report("matrix", "divergent", {"a.one"}, evidence), seeded});
    EXPECT_EQ(row(ledger, "a.one").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "a.one").at("disputed_by"), ojson({"matrix"}));
    EXPECT_EQ(ledger.at("proven_on"), ojson::array());
    const ojson unexercised =
        make_ledger({agreeing, report("matrix", "divergent", {"a.one"}, evidence, {"a.one"})});
    EXPECT_EQ(row(unexercised, "a.one").at("status"), "Chosen-unproven") << "disputed, exercised or not";
    // An error is no verdict (nothing compared, an emulator limit): it disputes nothing.
    const ojson failed = make_ledger({agreeing, report("matrix", "error", {"a.one"}, evidence)});
    EXPECT_EQ(row(failed, "a.one").at("status"), "Proven");
    const ojson alone = make_ledger({agreeing, seeded});
    EXPECT_EQ(row(alone, "a.one").at("status"), "Proven") << "a seeded case disputes nothing";
    EXPECT_FALSE(alone.contains("disputed"));
    EXPECT_EQ(row(alone, "a.one").at("proven_on"),
              ojson::parse(R"([{"file":"retail.exe","sha256":"retail.exe-sha"}])"));
    const ojson two = make_ledger({agreeing, report("stand-in", "equivalent", {"b.one"}, evidence)});
    EXPECT_EQ(two.at("proven_on").size(), 2u);
    EXPECT_NE(ledger_summary(two).find(
                  "; Proven on 2 images (retail.exe, standin.exe): each rule's proven_on says which"),
              std::string::npos)
        << ledger_summary(two);
}

// The old rule (Proven when a claiming case ran equivalent) would prove these.
TEST(Ledger, ClaimingIsNotProvingAndSeededFaultsProveNothing) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    // Equivalent, but it compared nothing its predicates accept.
    ojson idle = report("idle", "equivalent", {"a.one"}, evidence, {"a.one"});
    // No "exercised" section at all (a report of a run without predicates): nothing is exercised.
    ojson bare = report("bare", "equivalent", {"a.two"}, evidence);
    bare.erase("exercised");
    // Exercised and equivalent, but with a seeded fault.
    ojson seeded = report("seeded", "equivalent", {"b.one"}, evidence);
    seeded["injected"] = {{"reimpl_light", "x and z swapped"}};
    const ojson ledger = make_ledger({idle, bare, seeded});
    EXPECT_EQ(ledger.at("counts").at("Proven"), 0);
    EXPECT_EQ(row(ledger, "a.one").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "a.one").at("claimed_not_exercised"), ojson({"idle"}));
    EXPECT_EQ(row(ledger, "a.two").at("claimed_not_exercised"), ojson({"bare"}));
    EXPECT_EQ(row(ledger, "b.one").at("status"), "Unknown");
    EXPECT_EQ(row(ledger, "b.one").at("exercised_by"), ojson({"seeded"}));
    EXPECT_EQ(row(ledger, "b.one").at("proven_by"), ojson::array());
    EXPECT_EQ(ledger.at("injected"), ojson({"seeded"}));
    EXPECT_NE(ledger_summary(ledger).find("nothing proven by 1 case(s) with seeded faults"),
              std::string::npos);
}

// A case narrowed to some of its inputs (its selection says how many it left out) proves nothing:
// the inputs it did not compare may diverge on events that satisfy the same predicates. The same
// report without the narrowing proves the rule (the control).
TEST(Ledger, ACaseNarrowedToSomeOfItsInputsProvesNothing) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    const ojson whole = report("lights", "equivalent", {"a.one"}, evidence);
    EXPECT_EQ(row(make_ledger({whole}), "a.one").at("status"), "Proven");

    ojson narrowed = whole;
    narrowed["selection"] = {{"only", "record 3 view 0 light 0 state 0"}, {"inputs_left_out", 11}};
    const ojson ledger = make_ledger({narrowed});
    EXPECT_EQ(ledger.at("counts").at("Proven"), 0);
    EXPECT_EQ(row(ledger, "a.one").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "a.one").at("exercised_by"), ojson({"lights"}));
    EXPECT_EQ(row(ledger, "a.one").at("proven_by"), ojson::array());
    EXPECT_EQ(ledger.at("narrowed"), ojson({"lights"}));
    EXPECT_NE(ledger_summary(ledger).find("nothing proven by 1 case(s) narrowed to some of their inputs"),
              std::string::npos)
        << ledger_summary(ledger);
}

// Reports of runs under different rule documents (shards merged across an edit of the spec) counted
// their rules under different predicates: the merge proved rules by the first document's levels
// from counts made under the others. Now it proves nothing and says why; the control, both
// reports under one document, proves the rule.
TEST(Ledger, ReportsUnderDifferentRuleDocumentsProveNothing) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    const ojson one = report("one", "equivalent", {"a.one"}, evidence);
    ojson edited = evidence;
    edited["sha256"] = std::string(64, '0');
    const ojson two = report("two", "equivalent", {"a.one"}, edited);
    EXPECT_EQ(
        row(make_ledger({one, report("three", "equivalent", {"a.one"}, evidence)}), "a.one").at("status"),
        "Proven");
    const ojson ledger = make_ledger({one, two});
    EXPECT_EQ(ledger.at("counts").at("Proven"), 0);
    EXPECT_EQ(row(ledger, "a.one").at("status"), "Chosen-unproven");
    EXPECT_EQ(row(ledger, "a.one").at("proven_by"), ojson::array());
    EXPECT_EQ(row(ledger, "a.one").at("exercised_by"), ojson({"one", "two"}));
    EXPECT_NE(ledger.at("error").get<std::string>().find("nothing is proven"), std::string::npos);
    EXPECT_NE(ledger_summary(ledger).find("2 different versions of the rule document"), std::string::npos)
        << ledger_summary(ledger);
}

TEST(Ledger, UnknownLevelStaysUnknownUntilProvenAndNoEvidenceMeansNoLedger) {
    const ojson evidence = evidence_json(load_rule_index(write("doc.md", kDoc)));
    const ojson ledger = make_ledger({report("alpha", "error", {"b.one"}, evidence)});
    EXPECT_EQ(row(ledger, "b.one").at("status"), "Unknown");
    ojson bare = report("alpha", "equivalent", {"a.one"}, evidence);
    bare.erase("evidence");
    EXPECT_TRUE(make_ledger({bare}).is_null());
    EXPECT_FALSE(make_run_index({bare}).contains("ledger"));
}

TEST(Ledger, ACaseNamingAnUnlistedRuleIdIsAPreflightError) {
    const fs::path doc = write("doc.md", kDoc);
    const fs::path file =
        write("rogue.json", R"({"schema":"refcheck-case/1","family":"loader","rules":["a.one","z.nine"]})");
    RunOptions options;
    options.defaults = {doc, doc, doc.parent_path(), std::nullopt,
                        nullptr}; // existence is all preflight checks of these here
    options.rules_document = doc;
    const auto problems = preflight({load_case(file)}, options);
    bool named = false;
    for (const auto& p : problems)
        named |= p.find("case rogue") != std::string::npos && p.find("\"z.nine\"") != std::string::npos &&
                 p.find("doc.md does not list") != std::string::npos;
    EXPECT_TRUE(named);
    options.out = fs::path(testing::TempDir()) / "ledger-run";
    const RunSummary s = run({file}, options);
    EXPECT_EQ(s.exit_code, 2);
    EXPECT_FALSE(s.problems.empty());
    EXPECT_TRUE(s.results.empty());
}
