// Work below the case (harness/src/run/case_part.hpp, issue 17): a program case run as parts over its
// records and finished from the parts' states writes the unsplit report byte for byte (counts,
// metrics and their seen-sets, the exercise counts, coverage and its drcov file, hooks); each part
// compares a share; and a merge that loses a part, or parts that cannot be merged, are found.
#include "run/case_part.hpp"

#include "refcheck/harness/filter.hpp"
#include "refcheck/harness/ledger.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

Environment stand_in_env() {
    Environment env = test::small_standin();
    env.coverage_reasons = fs::path(REFCHECK_SOURCE_DIR) / "cases" / "coverage" / "reasons.json";
    env.rules = std::make_shared<const RuleIndex>(
        load_rule_index(fs::path(REFCHECK_SOURCE_DIR) / "docs" / "formats" / "apache-3d.md"));
    return env;
}

// cases/program-lights.json: every record, two views, three lights, two states.
Case lights_case() { return load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "program-lights.json"); }

CaseResult run_as(const Case& c, const Environment& env, const CasePart* part) {
    const CasePartScope scope(part);
    return run_case(c, env);
}

std::vector<CaseResult> run_parts(const Case& c, const Environment& env, std::size_t n) {
    std::vector<CaseResult> parts;
    for (std::size_t k = 0; k < n; ++k) {
        const CasePart part{k, n};
        parts.push_back(run_as(c, env, &part));
    }
    return parts;
}

CaseResult finish(const Case& c, const Environment& env, const std::vector<CaseResult>& parts) {
    const CasePart part{0, 1, &parts};
    return run_as(c, env, &part);
}

void expect_same(const CaseResult& whole, const CaseResult& merged) {
    EXPECT_EQ(merged.status, whole.status);
    EXPECT_EQ(merged.events, whole.events);
    EXPECT_EQ(merged.report.dump(2), whole.report.dump(2));
    EXPECT_EQ(merged.files, whole.files); // the drcov file
}

void expect_split_like_whole(const Case& c) {
    const Environment env = stand_in_env();
    ASSERT_TRUE(splittable(c, {}));
    const CaseResult whole = run_as(c, env, nullptr);
    ASSERT_EQ(whole.status, Status::Equivalent) << whole.report.dump(2);
    EXPECT_FALSE(whole.report.contains("part_state"));
    const std::uint64_t inputs = whole.report.at("counts").at("inputs").get<std::uint64_t>();
    ASSERT_GT(inputs, 6u);

    for (const std::size_t n : {2u, 3u}) {
        const std::vector<CaseResult> parts = run_parts(c, env, n);
        std::uint64_t shares = 0;
        for (const auto& p : parts) {
            ASSERT_EQ(p.status, Status::Equivalent) << p.report.dump(2);
            const std::uint64_t share = p.report.at("counts").at("inputs").get<std::uint64_t>();
            EXPECT_GT(share, 0u);     // each part compares something
            EXPECT_LT(share, inputs); // and not everything
            shares += share;
        }
        EXPECT_EQ(shares, inputs); // together every input, once
        std::string why;
        ASSERT_TRUE(parts_mergeable(c, parts, &why)) << why;
        const CaseResult merged = finish(c, env, parts);
        SCOPED_TRACE(std::to_string(n) + " parts");
        expect_same(whole, merged);
        EXPECT_FALSE(merged.report.contains("part_state"));
        EXPECT_FALSE(merged.report.contains("part_family"));
    }
}

TEST(CasePart, PartsFinishedFromTheirStatesWriteTheUnsplitReport) { expect_split_like_whole(lights_case()); }

// Frame mode: each part saves its own first drawn frame as the sample; the finish keeps the first
// part's only, and numbers the frames of each part on from those before (names of pictures and files).
TEST(CasePart, FramesOfPartsAreNumberedOnAndSampledOnce) {
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "frames.json");
    ASSERT_TRUE(splittable(c, {}));
    const Environment env = stand_in_env();
    const std::vector<CaseResult> parts = run_parts(c, env, 3);
    for (const auto& p : parts) ASSERT_TRUE(p.report.contains("frames")) << "every part saves its sample";
    expect_split_like_whole(c);
    // The parts saved a sample each: the later parts' two are not the unsplit run's.
    const CaseResult whole = run_as(c, env, nullptr);
    std::size_t saved = 0;
    for (const auto& p : parts) saved += p.report.at("frames").size();
    EXPECT_EQ(whole.report.at("frames").size() + 2, saved);
    EXPECT_EQ(whole.report.at("frame_selection").at("shown_sample"), 1);
}

// frames.json on the small archives in 4 parts: the part that begins at record 35 (missing_normal)
// reads the face level the original's stale stack holds. Carried from record to record, that is what
// the records before it left, and the part (which has not run them) reads another: the reason the
// split was reverted once. With isolate_records every record starts from the set-up's snapshot, in
// the parts and the unsplit run alike, and the 4 parts give the unsplit report.
TEST(CasePart, FourPartsOfFramesGiveTheUnsplitFirstKnownDivergence) {
    Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "frames.json");
    ASSERT_TRUE(c.isolate_records);
    const Environment env = stand_in_env();
    const CaseResult whole = run_as(c, env, nullptr);
    ASSERT_EQ(whole.status, Status::Equivalent) << whole.report.dump(2);
    ASSERT_TRUE(whole.report.contains("first_known"));
    const std::vector<CaseResult> parts = run_parts(c, env, 4);
    std::string why;
    ASSERT_TRUE(parts_mergeable(c, parts, &why)) << why;
    expect_same(whole, finish(c, env, parts));
}

// isolate_records: a record's results are its own. Record 35 (missing normals: the original reads
// stale stack) compared alone and after other records gives the same events; with the records
// carried (the fault this guards against: state left from record to record) they differ.
TEST(CasePart, AnIsolatedRecordComparesAloneAsAfterOthers) {
    Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "frames.json");
    const Environment env = stand_in_env();
    auto first_known = [&](bool isolated, std::vector<std::uint32_t> records) {
        Case k = c;
        k.isolate_records = isolated;
        k.records = {};
        k.records.list = std::move(records);
        const CaseResult r = run_as(k, env, nullptr);
        EXPECT_EQ(r.report.at("record_start"), isolated ? "isolated" : "carried");
        return r.report.contains("first_known") ? r.report.at("first_known").dump() : std::string("none");
    };
    const std::string alone = first_known(true, {35});
    ASSERT_NE(alone, "none");
    EXPECT_EQ(first_known(true, {0, 7, 14, 21, 28, 35}), alone);
    EXPECT_NE(first_known(false, {0, 7, 14, 21, 28, 35}), first_known(false, {35}));
}

TEST(CasePart, AFinishThatLosesAPartWritesAnotherReport) {
    const Case c = lights_case();
    const Environment env = stand_in_env();
    const CaseResult whole = run_as(c, env, nullptr);
    std::vector<CaseResult> parts = run_parts(c, env, 3);
    // A part lost, or parts out of order, or a share claimed twice: the finish refuses to merge
    // (the case is an error, naming the part), as the parts no longer cover the selection in order.
    const auto refused = [&](std::vector<CaseResult> seeded, const std::string& says) {
        const CaseResult merged = finish(c, env, seeded);
        EXPECT_EQ(merged.status, Status::Error) << merged.report.dump(2);
        const std::string error = merged.report.value("error", std::string());
        EXPECT_NE(error.find(says), std::string::npos) << error;
    };
    auto lost_last = parts;
    lost_last.pop_back();
    refused(lost_last, "they end at");
    auto lost_middle = parts;
    lost_middle.erase(lost_middle.begin() + 1);
    refused(lost_middle, "part 2 of 2 holds records");
    auto swapped = parts;
    std::swap(swapped[0], swapped[1]);
    refused(swapped, "part 1 of 3 holds records");
    auto twice = parts;
    twice[1] = twice[0];
    refused(twice, "part 2 of 3 holds records");

    // A seen-set lost from one part's state (the other parts' counts intact) changes the metrics.
    parts = run_parts(c, env, 2);
    parts.back().report.at("part_state").at("family").at("packets") = ojson::array();
    EXPECT_NE(finish(c, env, parts).report.at("metrics"), whole.report.at("metrics"));
    // And blocks lost from the parts' states change the coverage.
    parts = run_parts(c, env, 2);
    for (auto& p : parts) p.report.at("part_state").at("blocks") = ojson::array();
    EXPECT_NE(finish(c, env, parts).report.at("coverage"), whole.report.at("coverage"));
}

TEST(CasePart, PartsThatCannotBeMergedAreNamed) {
    Case c = lights_case();
    const Environment env = stand_in_env();
    std::vector<CaseResult> parts = run_parts(c, env, 2);
    std::string why;
    ASSERT_TRUE(parts_mergeable(c, parts, &why)) << why;

    auto bad = parts;
    bad[1].status = Status::Divergent;
    EXPECT_FALSE(parts_mergeable(c, bad, &why));
    EXPECT_EQ(why, "part 2 of 2: status divergent");

    bad = parts;
    bad[0].report["faults"].push_back({{"kind", "unmapped"}});
    EXPECT_FALSE(parts_mergeable(c, bad, &why));
    EXPECT_EQ(why, "part 1 of 2: the original faulted");

    bad = parts;
    bad[1].report["files"].push_back({{"path", "C:\\3DDATA\\MORE.BIN"}}); // records that read a file
    EXPECT_FALSE(parts_mergeable(c, bad, &why));
    EXPECT_EQ(why, "part 2 of 2: its file accesses differ from part 1's (its records read files)");
    // Every part alike but not the boot's: the finish refuses (the case is an error).
    for (auto& p : bad) p.report["files"] = bad[1].report["files"];
    const CaseResult merged = finish(c, env, bad);
    EXPECT_EQ(merged.status, Status::Error);
    EXPECT_NE(merged.report.value("error", std::string())
                  .find("part 1 of 2 read files the boot and set-up did not"),
              std::string::npos)
        << merged.report.dump(2);

    bad = parts;
    bad[1].report.erase("part_state"); // e.g. a crash report
    EXPECT_FALSE(parts_mergeable(c, bad, &why));

    bad = parts;
    bad[1].report["part_state"]["instructions_boot"] = 1; // the boots must agree
    EXPECT_FALSE(parts_mergeable(c, bad, &why));

    // The case's instruction total: each part stayed within it, the parts together would not have.
    const auto boot = parts[0].report.at("part_state").at("instructions_boot").get<std::uint64_t>();
    std::uint64_t together = boot;
    for (const auto& p : parts) {
        const ojson& s = p.report.at("part_state");
        together +=
            s.at("instructions_total").get<std::uint64_t>() - s.at("instructions_boot").get<std::uint64_t>();
    }
    c.instructions_per_case = together;
    EXPECT_TRUE(parts_mergeable(c, parts, &why)) << why;
    c.instructions_per_case = together - 1;
    EXPECT_FALSE(parts_mergeable(c, parts, &why));
    EXPECT_NE(why.find("past the case's instructions_per_case"), std::string::npos) << why;
}

TEST(CasePart, WhichCasesSplit) {
    Case c = lights_case();
    EXPECT_EQ(case_parts(c, {}, 1), 1u); // one worker: whole
    EXPECT_EQ(case_parts(c, {}, 2), 2u);
    EXPECT_EQ(case_parts(c, {}, 64), kMaxParts);
    Injection seeded;
    seeded.reimpl_light_swapped = true;
    EXPECT_EQ(case_parts(c, seeded, 2), 1u); // seeded faults run whole
    Case narrowed = c;
    narrowed.only = "record 1 view 0 light 0 state 0";
    EXPECT_EQ(case_parts(narrowed, {}, 2), 1u);
    // A filter narrows only when it could leave an input out: one that drops another case does not.
    Case filtered = c;
    filtered.filter = std::make_shared<const InputFilter>("*:-some-other-case");
    EXPECT_EQ(case_parts(filtered, {}, 2), 2u);
    filtered.filter = std::make_shared<const InputFilter>("*:-*/* state 0");
    EXPECT_EQ(case_parts(filtered, {}, 2), 1u);
    Case nulls = c;
    nulls.null_arguments = true;
    EXPECT_EQ(case_parts(nulls, {}, 2), 1u);
    Case small = c;
    small.records.list = {1, 2};
    EXPECT_EQ(case_parts(small, {}, 2), 1u); // 2 records x 12: too few inputs to be worth a boot
    Case shadow = c;
    shadow.family = Family::Shadow;
    EXPECT_EQ(case_parts(shadow, {}, 2), 1u);
    // A part of a case that may not split is an error, not a run.
    const CasePart part{0, 2};
    const CasePartScope scope(&part);
    const CaseResult r = run_case(shadow, stand_in_env());
    EXPECT_EQ(r.status, Status::Error);
    EXPECT_NE(r.report.at("error").get<std::string>().find("cannot be split"), std::string::npos);
}

// By weight: every record once, the parts contiguous and in order, and the work about equal: heavy
// records early (as in frames.json and program-matrix, whose count-based halves took 3.5 G against
// 2.9 G and 1.8 G against 1.0 G instructions) move the boundary earlier than the count's middle.
TEST(CasePart, OwnershipByWeightCoversEveryRecordOnceInEqualShares) {
    std::vector<std::uint64_t> weights;
    for (std::uint64_t i = 0; i < 100; ++i) weights.push_back(i < 20 ? 1000 : 100); // 20,000 + 8,000
    for (std::size_t count = 1; count <= 5; ++count) {
        std::vector<std::uint64_t> work(count, 0);
        std::size_t previous = 0;
        for (std::size_t i = 0; i < weights.size(); ++i) {
            std::size_t owners = 0, owner = 0;
            for (std::size_t k = 0; k < count; ++k)
                if (CasePart{k, count}.owns(i, weights)) {
                    ++owners;
                    owner = k;
                }
            ASSERT_EQ(owners, 1u) << i << " in " << count;
            EXPECT_GE(owner, previous); // contiguous and in order
            previous = owner;
            work[owner] += weights[i];
        }
        for (const std::uint64_t w : work)
            EXPECT_LE(w, 28000 / count + 1000) << count << " parts"; // one record's slack
    }
    // Two parts: the first takes 14 heavy records (14,000), not 50 of the 100 (24,000 of 28,000).
    std::size_t first = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) first += CasePart{0, 2}.owns(i, weights);
    EXPECT_EQ(first, 14u);
    const std::vector<CaseResult> none;
    EXPECT_FALSE((CasePart{0, 1, &none}.owns(0, weights))); // the finish owns nothing
}

TEST(CasePart, OwnershipCoversEveryRecordOnce) {
    for (std::size_t n = 1; n < 40; ++n)
        for (std::size_t count = 1; count <= 5; ++count)
            for (std::size_t i = 0; i < n; ++i) {
                std::size_t owners = 0, last = 0;
                for (std::size_t k = 0; k < count; ++k)
                    if (CasePart{k, count}.owns(i, std::vector<std::uint64_t>(n))) { // by count
                        ++owners;
                        last = k;
                    }
                EXPECT_EQ(owners, 1u) << i << " of " << n << " in " << count;
                // contiguous and in order: element i belongs to part floor(i * count / n) or so
                if (i > 0) {
                    std::size_t prev = 0;
                    for (std::size_t k = 0; k < count; ++k)
                        if (CasePart{k, count}.owns(i - 1, std::vector<std::uint64_t>(n))) prev = k;
                    EXPECT_LE(prev, last);
                }
            }
    const std::vector<CaseResult> none;
    EXPECT_FALSE((CasePart{0, 1, &none}.owns(0, std::vector<std::uint64_t>(1)))); // the finish owns nothing
}

} // namespace
} // namespace refcheck::harness
