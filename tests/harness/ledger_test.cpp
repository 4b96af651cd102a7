// The evidence ledger: the rule index of the specification parses (and bad tables fail naming the
// line), every shipped case names only listed ids, a case naming an unlisted id stops the run in
// preflight, and the ledger's statuses follow the case reports.
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

fs::path write(const std::string& name, const std::string& text) {
    const fs::path dir = fs::path(testing::TempDir()) / "ledger";
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
}

const char* kDoc =
    "# spec\n\n- `a.one` Chosen: words.\n\n## Index of rule ids\n\n"
    "| id | level | section |\n| --- | --- | --- |\n"
    "| `a.one` | Chosen | 1. A |\n| `a.two` | Sourced | 1. A |\n| `b.one` | Unknown | 2. B |\n"
    "| `b.two` | Chosen | 2. B |\n\nAfter the table.\n";

std::string error_of(const std::string& text) {
    try {
        load_rule_index(write("bad.md", text));
    } catch (const LedgerError& e) {
        return e.what();
    }
    return "";
}

ojson report(const std::string& name, const std::string& status, std::vector<std::string> rules, const ojson& evidence) {
    ojson r;
    r["case"] = name;
    r["family"] = "program";
    r["status"] = status;
    r["rules"] = rules;
    r["evidence"] = evidence;
    return r;
}

const ojson& row(const ojson& ledger, const std::string& id) {
    for (const auto& r : ledger.at("rules"))
        if (r.at("id") == id) return r;
    throw std::runtime_error("no row " + id);
}

}  // namespace

TEST(Ledger, ParsesTheIndexTableInDocumentOrder) {
    const RuleIndex index = load_rule_index(write("doc.md", kDoc));
    ASSERT_EQ(index.rules.size(), 4u);
    EXPECT_EQ(index.rules[0].id, "a.one");
    EXPECT_EQ(index.rules[1].level, "Sourced");
    EXPECT_EQ(index.rules[2].section, "2. B");
    EXPECT_EQ(index.sha256.size(), 64u);
    ASSERT_NE(index.find("b.two"), nullptr);
    EXPECT_EQ(index.find("c.three"), nullptr);
}

TEST(Ledger, BadTablesFailNamingTheLine) {
    const std::string head = "## Index of rule ids\n\n| id | level | section |\n| --- | --- | --- |\n";
    EXPECT_NE(error_of(head + "| `x.y` | Guessed | 1. A |\n").find("bad.md:5: unknown evidence level \"Guessed\""),
              std::string::npos);
    EXPECT_NE(error_of(head + "| `x.y` | Chosen | 1. A |\n| `x.y` | Sourced | 1. A |\n").find(":6: rule id \"x.y\" is listed twice"),
              std::string::npos);
    EXPECT_NE(error_of(head + "| x.y | Chosen | 1. A |\n").find("in backticks"), std::string::npos);
    EXPECT_NE(error_of("# no index here\n").find("has no \"## Index of rule ids\" section"), std::string::npos);
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
    const std::vector<ojson> reports = {report("alpha", "equivalent", {"a.one", "b.one"}, evidence),
                                        report("beta", "divergent", {"a.two", "a.one"}, evidence),
                                        report("gamma", "equivalent", {"a.one"}, evidence)};
    const ojson ledger = make_ledger(reports);
    EXPECT_EQ(ledger.at("document"), "doc.md");
    EXPECT_EQ(ledger.at("rules_total"), 4);
    const ojson& a1 = row(ledger, "a.one");
    EXPECT_EQ(a1.at("status"), "Proven");
    EXPECT_EQ(a1.at("proven_by"), ojson({"alpha", "gamma"}));
    EXPECT_EQ(a1.at("exercised_by"), ojson({"alpha", "beta", "gamma"}));
    // Exercised only by a divergent case: not proven.
    EXPECT_EQ(row(ledger, "a.two").at("status"), "Sourced-unproven");
    EXPECT_EQ(row(ledger, "a.two").at("proven_by"), ojson::array());
    EXPECT_EQ(row(ledger, "b.one").at("status"), "Proven");
    EXPECT_EQ(row(ledger, "b.two").at("status"), "Chosen-unproven");
    EXPECT_EQ(ledger.at("counts").at("Proven"), 2);
    EXPECT_EQ(ledger.at("counts").at("Chosen-unproven"), 1);
    EXPECT_EQ(ledger.at("counts").at("Sourced-unproven"), 1);
    EXPECT_EQ(ledger.at("counts").at("Unknown"), 0);
    EXPECT_EQ(ledger_summary(ledger), "evidence ledger (doc.md): 4 rule ids: 2 Proven, 1 Chosen-unproven, "
                                      "1 Sourced-unproven, 0 Unknown");
    // The run index carries it; the same reports give the same bytes whatever produced them.
    const ojson index = make_run_index(reports);
    EXPECT_EQ(index.at("ledger"), ledger);
    EXPECT_EQ(make_run_index(reports).dump(), index.dump());
    EXPECT_NE(ledger_html(ledger).find("<code>b.two</code>"), std::string::npos);
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
    const fs::path file = write("rogue.json", R"({"schema":"refcheck-case/1","family":"loader","rules":["a.one","z.nine"]})");
    RunOptions options;
    options.defaults = {doc, doc, doc.parent_path(), std::nullopt};  // existence is all preflight checks of these here
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
