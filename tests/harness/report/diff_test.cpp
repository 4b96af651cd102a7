// refcheck diff over synthetic run indexes: a seeded regression is reported (and is the verdict),
// fixes, new and removed cases, count, metric, ledger and coverage changes are listed, and bad
// inputs fail.
#include "refcheck/harness/diff.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

ojson row(const std::string& name, const std::string& status, std::uint64_t compared,
          std::uint64_t unexplained, std::uint64_t records = 10) {
    return {{"case", name},
            {"family", "program"},
            {"status", status},
            {"report", name + ".json"},
            {"counts",
             {{"compared", compared},
              {"matched", compared - unexplained},
              {"known", 0},
              {"unexplained", unexplained}}},
            {"metrics", {{"records", records}}},
            {"basis",
             {{"case_sha256", "c0"},
              {"image_sha256", "i0"},
              {"profile_sha256", "p0"},
              {"archives", {{"3DDATA/3DOBJS.BIN", "a0"}}},
              {"narrowing", nullptr},
              {"seeded", nullptr}}}};
}

ojson index_of(const std::vector<ojson>& rows, const std::string& proven_status = "Proven",
               std::uint64_t executed = 5) {
    ojson index;
    index["schema"] = kRunIndexSchema;
    index["status"] = "equivalent";
    std::uint64_t compared = 0, unexplained = 0;
    for (const auto& r : rows) {
        compared += r["counts"]["compared"].get<std::uint64_t>();
        unexplained += r["counts"]["unexplained"].get<std::uint64_t>();
        if (r["status"] != "equivalent") index["status"] = "divergent";
    }
    index["cases"] = rows;
    index["totals"] = {{"cases", rows.size()},
                       {"counts",
                        {{"compared", compared},
                         {"matched", compared - unexplained},
                         {"known", 0},
                         {"unexplained", unexplained}}}};
    index["ledger"] = {
        {"rules",
         {{{"id", "op.primary"}, {"status", proven_status}}, {{"id", "arc.table"}, {"status", "Proven"}}}}};
    index["coverage"] = {{{"image", "standin.exe"},
                          {"routines",
                           {{"draw_3d_object_", {{"blocks", 8}, {"executed", executed}}},
                            {"polygon_winding_", {{"blocks", 3}, {"executed", 3}}}}}}};
    return index;
}

fs::path write(const std::string& name, const ojson& j) {
    fs::path dir = fs::path(testing::TempDir()) / "diff" / name;
    fs::create_directories(dir);
    write_json(dir / "run.json", j);
    return dir;
}

} // namespace

TEST(Diff, ASeededRegressionIsReportedAndIsTheVerdict) {
    const ojson before = index_of({row("loader", "equivalent", 3, 0), row("program", "equivalent", 100, 0)});
    const ojson after =
        index_of({row("loader", "equivalent", 3, 0), row("program", "divergent", 100, 4)}, "Chosen-unproven");
    const ojson d =
        diff_runs(load_run_index(write("old", before)), load_run_index(write("new", after) / "run.json"));
    EXPECT_TRUE(regressed(d));
    ASSERT_EQ(d["regressions"].size(), 1u);
    EXPECT_EQ(d["regressions"][0]["case"], "program");
    EXPECT_EQ(d["regressions"][0]["why"], "status equivalent -> divergent");
    ASSERT_EQ(d["newly_divergent"].size(), 1u);
    EXPECT_EQ(d["counts_changed"][0]["changes"]["unexplained"]["delta"], 4);
    EXPECT_EQ(d["counts_changed"][0]["changes"]["matched"]["delta"], -4);
    EXPECT_FALSE(d["counts_changed"][0]["changes"].contains("compared"));
    EXPECT_EQ(d["totals_changed"]["unexplained"]["new"], 4);
    ASSERT_EQ(d["ledger_changed"].size(), 1u);
    EXPECT_EQ(d["ledger_changed"][0]["id"], "op.primary");
    EXPECT_EQ(d["ledger_changed"][0]["new"], "Chosen-unproven");
    const std::string text = diff_text(d);
    EXPECT_NE(text.find("newly divergent (1):\n  program  equivalent -> divergent"), std::string::npos)
        << text;
    EXPECT_NE(text.find("program: matched 100 -> 96 (-4), unexplained 0 -> 4 (+4)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("op.primary: Proven -> Chosen-unproven"), std::string::npos) << text;
    EXPECT_NE(text.find("1 case(s) got worse"), std::string::npos) << text;
    // The other direction is a fix, not a regression.
    const ojson back = diff_runs(after, before);
    EXPECT_FALSE(regressed(back));
    ASSERT_EQ(back["fixed"].size(), 1u);
    EXPECT_EQ(back["fixed"][0]["case"], "program");
    EXPECT_NE(diff_text(back).find("no case got worse"), std::string::npos);
}

TEST(Diff, MoreUnexplainedInAnAlreadyDivergentCaseIsARegression) {
    const ojson d = diff_runs(index_of({row("program", "divergent", 100, 2)}),
                              index_of({row("program", "divergent", 100, 3)}));
    EXPECT_TRUE(regressed(d));
    EXPECT_EQ(d["regressions"][0]["why"], "unexplained 2 -> 3");
    EXPECT_TRUE(d["status_changes"].empty());
    const ojson e =
        diff_runs(index_of({row("program", "divergent", 100, 2)}), index_of({row("program", "error", 0, 0)}));
    EXPECT_EQ(e["regressions"][0]["why"], "status divergent -> error");
    EXPECT_NE(diff_text(e).find("other status changes (1):\n  program  divergent -> error"),
              std::string::npos)
        << diff_text(e);
}

TEST(Diff, NewRemovedMetricsAndCoverage) {
    const ojson before = index_of({row("a", "equivalent", 5, 0), row("gone", "divergent", 1, 1)});
    const ojson after =
        index_of({row("a", "equivalent", 7, 0, 12), row("b", "divergent", 2, 2)}, "Proven", 7);
    const ojson d = diff_runs(before, after);
    EXPECT_FALSE(regressed(d)); // a new divergent case and a removed case are listed, not regressions
    EXPECT_EQ(d["cases_new"], ojson::parse(R"([{"case":"b","status":"divergent"}])"));
    EXPECT_EQ(d["cases_removed"], ojson::parse(R"([{"case":"gone","status":"divergent"}])"));
    EXPECT_EQ(d["metrics_changed"][0]["case"], "a");
    EXPECT_EQ(d["metrics_changed"][0]["changes"]["records"]["old"], 10);
    EXPECT_EQ(d["metrics_changed"][0]["changes"]["records"]["new"], 12);
    EXPECT_EQ(d["counts_changed"][0]["changes"]["compared"]["delta"], 2);
    ASSERT_EQ(d["coverage_changed"].size(), 1u);
    EXPECT_EQ(d["coverage_changed"][0]["routine"], "draw_3d_object_");
    EXPECT_NE(diff_text(d).find("draw_3d_object_: 5/8 -> 7/8"), std::string::npos) << diff_text(d);
    // Identical runs: nothing listed.
    const ojson same = diff_runs(before, before);
    for (const char* k :
         {"cases_new", "cases_removed", "fixed", "newly_divergent", "status_changes", "counts_changed",
          "metrics_changed", "ledger_changed", "coverage_changed", "regressions", "basis_changed"})
        EXPECT_TRUE(same[k].empty()) << k;
}

// The run's own status is a verdict too: a shard's output holding only a divergent part of a split
// case has no case row (the part is in run.json "parts"), and its status says divergent. Against an
// equivalent run it showed as "removed cases" and "no case got worse", exit 0 (the merge audit's
// `refcheck diff merged shard0`).
TEST(Diff, ARunWhoseStatusGotWorseRegressedThoughNoCaseRowSaysSo) {
    const ojson before = index_of({row("lights", "equivalent", 5, 0)});
    ojson shard = index_of({});
    shard["status"] = "divergent";
    shard["parts"] = ojson::array({{{"case", "lights"}, {"part", 0}, {"of", 2}}});
    const ojson d = diff_runs(before, shard);
    ASSERT_TRUE(regressed(d)) << diff_text(d);
    EXPECT_EQ(d["regressions"][0]["case"], "(the run)");
    EXPECT_NE(diff_text(d).find("the run's status equivalent -> divergent (the new run is a shard's output "
                                "holding 1 part(s)"),
              std::string::npos)
        << diff_text(d);
    EXPECT_FALSE(regressed(diff_runs(shard, before))) << "better is no regression";
}

// The same case on the same basis that compares fewer events, or matches fewer (more excused as
// known divergences), proves less though its status holds: a regression. It was "no case got
// worse", exit 0. On another basis (an edited case file selecting fewer records) it is listed
// among the count changes only.
TEST(Diff, AnEquivalentCaseThatComparesOrMatchesLessOnTheSameBasisRegressed) {
    const ojson before = index_of({row("program", "equivalent", 100, 0)});
    const ojson fewer = diff_runs(before, index_of({row("program", "equivalent", 60, 0)}));
    ASSERT_TRUE(regressed(fewer)) << diff_text(fewer);
    EXPECT_EQ(fewer["regressions"][0]["why"], "compared 100 -> 60 on the same basis");
    ojson excused = row("program", "equivalent", 100, 0);
    excused["counts"]["matched"] = 90;
    excused["counts"]["known"] = 10;
    const ojson more_known = diff_runs(before, index_of({excused}));
    ASSERT_TRUE(regressed(more_known)) << diff_text(more_known);
    EXPECT_EQ(more_known["regressions"][0]["why"], "matched 100 -> 90 on the same basis");
    ojson edited = row("program", "equivalent", 60, 0);
    edited["basis"]["case_sha256"] = "c1";
    const ojson rebased = diff_runs(before, index_of({edited}));
    EXPECT_FALSE(regressed(rebased)) << diff_text(rebased);
    EXPECT_EQ(rebased["counts_changed"][0]["changes"]["compared"]["delta"], -40);
    EXPECT_FALSE(regressed(diff_runs(index_of({row("program", "equivalent", 60, 0)}), before)))
        << "more is no regression";
}

// A case is fixed only when the new run reached its verdict on the same basis: the same case file,
// image, profile and archives, no other narrowing and no other seeding. The old run was divergent;
// a new run narrowed to an input that agrees (--only), run without the seeded patch, on other
// archives, with an edited case file (an "allow" added), or from an index that records no basis, is
// listed as on another basis, not fixed; the same basis is a fix. A regression is one on any basis,
// and says which.
TEST(Diff, AFixNeedsTheSameBasis) {
    const ojson broken = row("program", "divergent", 100, 4);
    const ojson old_run = index_of({broken});
    auto rebased = [&](const std::function<void(ojson&)>& edit) {
        ojson r = row("program", "equivalent", 100, 0);
        edit(r["basis"]);
        return diff_runs(old_run, index_of({r}));
    };
    const ojson same = rebased([](ojson&) {});
    ASSERT_EQ(same["fixed"].size(), 1u);
    EXPECT_TRUE(same["basis_changed"].empty());
    const std::vector<std::pair<std::function<void(ojson&)>, std::string>> seeded = {
        {[](ojson& b) {
             b["narrowing"] = {
                 {"only", "record 3 view 0 light 0 state 0"}, {"filter", nullptr}, {"inputs_left_out", 99}};
         },
         "narrowing"},
        {[](ojson& b) {
             b["seeded"] = {{"original_modified", true}};
         },
         "seeded faults"},
        {[](ojson& b) { b["archives"]["3DDATA/3DOBJS.BIN"] = "a1"; }, "archives"},
        {[](ojson& b) { b["case_sha256"] = "c1"; }, "case file"},
        {[](ojson& b) { b["image_sha256"] = "i1"; }, "image"},
        {[](ojson& b) { b["profile_sha256"] = "p1"; }, "profile"},
        {[](ojson& b) { b = nullptr; }, "basis not recorded"},
    };
    for (const auto& [edit, what] : seeded) {
        const ojson d = rebased(edit);
        EXPECT_TRUE(d["fixed"].empty()) << what;
        ASSERT_EQ(d["basis_changed"].size(), 1u) << what;
        EXPECT_EQ(d["basis_changed"][0]["changed"], ojson::array({what})) << what;
        EXPECT_EQ(d["status_changes"].size(), 1u) << what; // still listed as a status change
        const std::string text = diff_text(d);
        EXPECT_EQ(text.find("fixed ("), std::string::npos) << text;
        EXPECT_NE(
            text.find(
                "on another basis (never counted as fixed) (1):\n  program  divergent -> equivalent  (" +
                what + ")"),
            std::string::npos)
            << text;
    }
    // Getting worse is a regression on any basis, and the reason names the basis that changed.
    ojson worse = row("program", "error", 0, 0);
    worse["basis"]["image_sha256"] = "i1";
    const ojson d = diff_runs(old_run, index_of({worse}));
    EXPECT_TRUE(regressed(d));
    EXPECT_EQ(d["regressions"][0]["why"], "status divergent -> error (on another basis: image)");
}

TEST(Diff, BadInputsAreErrors) {
    const fs::path dir = fs::path(testing::TempDir()) / "diff" / "empty";
    fs::create_directories(dir);
    EXPECT_THROW(load_run_index(dir), DiffError);
    std::ofstream(dir / "x.json") << "{\"schema\":\"something-else\"}";
    EXPECT_THROW(load_run_index(dir / "x.json"), DiffError);
    std::ofstream(dir / "y.json") << "{not json";
    EXPECT_THROW(load_run_index(dir / "y.json"), DiffError);
}

// A run index refcheck could not have written: a fraction where a count stands is refused on reading
// (naming file and JSON pointer) rather than cast to an integer, which is undefined behaviour, and a
// count outside [0, 2^63) is refused rather than overflowing the delta (both found by
// fuzz/report_diff; fuzz/regressions/report_diff/ holds the inputs).
TEST(Diff, CountsThatAreNotCountsAreErrorsNotUndefinedBehaviour) {
    const fs::path dir = fs::path(testing::TempDir()) / "diff" / "not-counts";
    fs::create_directories(dir);
    std::ofstream(dir / "fraction.json")
        << R"({"schema":")" << kRunIndexSchema << R"(","cases":[{"case":"a","counts":{"compared":1e30}}]})";
    try {
        (void)load_run_index(dir / "fraction.json");
        FAIL() << "a fractional count was read";
    } catch (const DiffError& e) {
        EXPECT_NE(std::string(e.what()).find("fraction.json: /cases/0/counts/compared is 1e+30"),
                  std::string::npos)
            << e.what();
    }
    const ojson lowest = index_of({row("a", "equivalent", 3, 0)});
    ojson low = lowest, high = lowest;
    low["cases"][0]["counts"]["compared"] = INT64_MIN + 1;
    high["cases"][0]["counts"]["compared"] = INT64_MAX;
    EXPECT_THROW((void)diff_runs(low, high), DiffError);
    ojson wide = lowest;
    wide["cases"][0]["counts"]["compared"] = std::uint64_t{1} << 63;
    EXPECT_THROW((void)diff_runs(lowest, wide), DiffError);
    high["cases"][0]["counts"]["compared"] = INT64_MAX; // the largest count is still one
    ojson zero = lowest;
    zero["cases"][0]["counts"]["compared"] = 0;
    EXPECT_EQ(diff_runs(zero, high)["counts_changed"][0]["changes"]["compared"]["delta"], INT64_MAX);
}
