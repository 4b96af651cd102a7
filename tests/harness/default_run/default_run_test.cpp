// The default run (every case of cases/ on the stand-in and the default archives, written by the
// ctest fixture `default_run`): every report it wrote matches its schema in reports/, and every block
// of the coverage reasons' groups (draw, shadow, mobile) that no case reached has a reason, while no
// reason names a block that some case reached or that no longer exists.
#include "../json_schema.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using refcheck::test::ojson;
using refcheck::test::SchemaSet;

namespace {

const fs::path kRun = REFCHECK_DEFAULT_RUN_OUT;
const fs::path kSource = REFCHECK_SOURCE_DIR;

ojson read(const fs::path& p) {
    std::ifstream in(p);
    if (!in)
        throw std::runtime_error("cannot read " + p.string() + " (the ctest fixture default_run writes it)");
    return ojson::parse(in);
}

SchemaSet schemas() {
    SchemaSet s;
    s.add_file(kSource / "reports/case-report.schema.json");
    s.add_file(kSource / "reports/run-index.schema.json");
    return s;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "  " + l + "\n";
    return out;
}

const ojson& coverage_of(const ojson& index, const std::string& file) {
    for (const auto& image : index.at("coverage"))
        if (image.at("image") == file) return image;
    throw std::runtime_error("run.json has no coverage of " + file);
}

// The stand-in's coverage, with the reasons applied: cases/coverage/reasons.json is scoped to the
// stand-in's SHA-256, so a stand-in built otherwise (other flags, another compiler) fails here,
// naming both hashes, instead of passing with no reasons looked at.
const ojson& standin_coverage(const ojson& index) {
    const ojson& image = coverage_of(index, "standin.exe");
    if (image.contains("reasons_for_another_image"))
        throw std::runtime_error(
            "cases/coverage/reasons.json is for another image: " +
            image.at("reasons_for_another_image").dump() + "; standin.exe has SHA-256 " +
            image.at("sha256").get<std::string>() +
            " (look at the reasons again for this build and update the file's image_sha256)");
    return image;
}

} // namespace

TEST(DefaultRun, EveryReportMatchesItsSchema) {
    const SchemaSet s = schemas();
    const ojson index = read(kRun / "run.json");
    EXPECT_EQ(index.at("status"), "equivalent");
    const auto index_errors = s.validate(index, "run-index.schema.json");
    EXPECT_TRUE(index_errors.empty()) << "run.json:\n" << joined(index_errors);
    ASSERT_GE(index.at("cases").size(), 10u);
    for (const auto& row : index.at("cases")) {
        const std::string file = row.at("report").get<std::string>();
        const ojson report = read(kRun / file);
        EXPECT_TRUE(report.contains("evidence")) << file;
        EXPECT_TRUE(report.contains("coverage")) << file;
        const auto errors = s.validate(report, "case-report.schema.json");
        EXPECT_TRUE(errors.empty()) << file << ":\n" << joined(errors);
    }
}

TEST(DefaultRun, EveryUnreachedBlockOfTheGroupsHasAReason) {
    const ojson image = standin_coverage(read(kRun / "run.json"));
    ASSERT_TRUE(image.contains("reasons"));
    const ojson& groups = image.at("reasons").at("groups");
    for (const char* g : {"draw", "shadow", "mobile"}) {
        ASSERT_TRUE(groups.contains(g)) << g;
        EXPECT_GT(groups.at(g).at("executed").get<std::uint64_t>(), 0u) << g;
    }
    // Entries to add to cases/coverage/reasons.json, in its own format.
    ojson missing = ojson::array();
    for (const auto& [name, r] : image.at("routines").items())
        for (const auto& e : r.value("unreached", ojson::array()))
            if (!e.contains("cause")) {
                ojson entry = {{"routine", name}, {"code", e.at("code")}};
                if (e.contains("occurrence")) entry["occurrence"] = e.at("occurrence");
                entry["cause"] = "?";
                entry["note"] = "at " + e.at("address").get<std::string>() + " (+" +
                                e.at("offset").get<std::string>() + ")";
                missing.push_back(entry);
            }
    EXPECT_EQ(image.at("reasons").at("without_reason"), missing.size());
    EXPECT_TRUE(missing.empty()) << "unreached blocks without a reason:\n" << missing.dump(1);
}

// The second stand-in runs in the default run too; the reasons file is not for it, and its
// coverage says so (the reasons are the first stand-in's; its unreached blocks stand without
// causes, and nothing counts them as explained).
TEST(DefaultRun, TheSecondStandInsCoverageSaysTheReasonsAreForAnotherImage) {
    const ojson index = read(kRun / "run.json");
    const ojson& retail = coverage_of(index, "standin_retail.exe");
    EXPECT_FALSE(retail.contains("reasons"));
    ASSERT_TRUE(retail.contains("reasons_for_another_image"));
    EXPECT_EQ(retail.at("reasons_for_another_image").at("image"), "standin.exe");
    EXPECT_EQ(retail.at("reasons_for_another_image").at("image_sha256"),
              standin_coverage(index).at("sha256"));
}

TEST(DefaultRun, NoReasonIsStale) {
    const ojson image = standin_coverage(read(kRun / "run.json"));
    const ojson& stale = image.at("reasons").at("stale");
    EXPECT_TRUE(stale.empty())
        << "reasons whose block some case reached, or that name no block (remove them from "
           "cases/coverage/reasons.json):\n"
        << stale.dump(1);
}

// Proven means exercised: every rule a shipped case claims ("rules") is satisfied by at least one
// event the case matched (its report's "exercised" count), so no claim of cases/ is hollow. A claim
// that fails here is removed from the case, or its predicate in docs/formats/apache-3d.md is fixed
// when it is wrong; predicates are never weakened to make a claim pass.
TEST(DefaultRun, EveryClaimedRuleIsExercised) {
    const ojson index = read(kRun / "run.json");
    ASSERT_TRUE(index.contains("ledger"));
    const ojson& ledger = index.at("ledger");
    EXPECT_FALSE(ledger.contains("injected"));
    EXPECT_TRUE(ledger.at("claimed_not_exercised").empty())
        << "claimed, not exercised (remove the claim, or fix a wrong predicate):\n"
        << ledger.at("claimed_not_exercised").dump(1);
    std::size_t claims = 0;
    for (const auto& row : index.at("cases")) {
        const ojson report = read(kRun / row.at("report").get<std::string>());
        ASSERT_TRUE(report.contains("exercised")) << row.at("report");
        for (const auto& id : report.at("rules")) {
            ++claims;
            EXPECT_GT(report.at("exercised").value(id.get<std::string>(), std::uint64_t{0}), 0u)
                << report.at("case") << " claims " << id << " but matched no event satisfying its predicate";
        }
    }
    EXPECT_GT(claims, 0u);
    // Every Proven rule names the equivalent cases that exercised it, with a nonzero count.
    for (const auto& r : ledger.at("rules"))
        if (r.at("status") == "Proven") {
            EXPECT_FALSE(r.at("proven_by").empty()) << r.at("id");
            EXPECT_GT(r.at("exercised").get<std::uint64_t>(), 0u) << r.at("id");
        }
}
