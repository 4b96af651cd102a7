// Hostile data roots (tools/synth/hostile.hpp, cases/hostile-*.json): each shipped hostile case is
// equivalent because both sides refuse its root (the original's initialise_3d_objects_ returns 1,
// the reimplementation's validator names the archive and record the case expects); a stand-in
// whose loader check is negated accepts the root and the case diverges at its rejection event; a
// case that names another record than the validator does is an error, not a pass.
#include "cli_support.hpp"
#include "code_site.hpp"

#include <algorithm>
#include <fstream>
#include <functional>

namespace refcheck::cli_test {
namespace {

class HostileTest : public CliTest {
protected:
    // The stand-in's profile with its data "initialise_error" edited (set to null to drop it),
    // written as NAME.profile.json.
    fs::path with_error_global(const std::string& name, const std::function<void(ojson&)>& edit) {
        ojson profile = read_json(kProfile), data = ojson::array();
        for (ojson d : profile.at("data")) {
            if (d.at("name") == "initialise_error") edit(d);
            if (!d.is_null()) data.push_back(d);
        }
        profile["data"] = data;
        const fs::path out = path(name + ".profile.json");
        std::ofstream(out) << profile.dump(1) << "\n";
        return out;
    }
    // The stand-in's profile with the numbers of reasons `a` and `b` swapped.
    fs::path with_reasons_swapped(const std::string& a, const std::string& b) {
        return with_error_global("swapped", [&](ojson& d) {
            ojson& values = d.at("values");
            std::swap(values.at(a), values.at(b));
        });
    }
};

TEST_F(HostileTest, EveryShippedHostileRootIsRefusedByBothSides) {
    const auto cases = shipped_cases_starting("hostile-");
    ASSERT_GE(cases.size(), 10u);
    // --data names the small archives: a hostile case's generated root is its input, kept anyway.
    const Result r = refcheck("run " + join(cases) + " --data " + quote(kSmallData) + " --jobs 2 --out o");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    for (const auto& file : cases) {
        const ojson j = read_json(path("o/" + file.stem().string() + ".json"));
        EXPECT_EQ(j.at("status"), "equivalent") << file;
        const ojson& rej = j.at("rejection");
        EXPECT_EQ(rej.at("original_result"), 1) << file;
        // Every shipped hostile case states the original's reason, and the original gives it.
        EXPECT_EQ(rej.at("original_reason").at("name"), read_json(file).at("rejects").at("reason")) << file;
        EXPECT_EQ(rej.at("original_reason"), rej.at("expected_reason")) << file;
        ASSERT_TRUE(rej.at("reimpl_error").is_string()) << file;
        const ojson c = read_json(file);
        EXPECT_EQ(rej.at("reimpl_error")
                      .get<std::string>()
                      .rfind(c.at("rejects").at("archive").get<std::string>(), 0),
                  0u)
            << rej.dump();
        EXPECT_EQ(j.at("counts").at("by_kind").at("rejection"), 1) << file;
    }
}

// arc.extent: a record ends at the next greater offset, not at the file's end. An original running
// every record to the file's end (record_extent's `jb` that lowers the end made a no-op) stayed
// equivalent over every case that claimed the rule (its predicate was any loaded archive, and no
// texture ran into the next one); the cases whose record breaks at the next record see it, and
// the rule asks for their refusal. texture-pixels-short, which breaks at the file's end, cannot.
TEST_F(HostileTest, ARecordEndsAtTheNextRecordNotAtTheFilesEnd) {
    const CodeSite lower = find_instruction(
        "record_extent", [](const emu::Instruction& in) { return in.text.starts_with("jb "); });
    ASSERT_EQ(lower.bytes.size(), 2u) << lower.instruction.text;
    const std::string patch = lower.where() + ":" + hex_bytes(lower.bytes) + "->9090";
    const std::vector<std::string> names = {"hostile-texture-pixels-into-next",
                                            "hostile-objects-offset-past-record",
                                            "hostile-texture-pixels-short", "loader"};
    std::string cases;
    for (const auto& n : names) cases += " " + quote(kCasesDir / (n + ".json"));
    const Result clean = refcheck("run" + cases + " --jobs 2 --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result r = refcheck("run" + cases + " --jobs 2 --out o --patch " + quote(patch));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    auto status = [&](const std::string& n) { return read_json(path("o/" + n + ".json")).at("status"); };
    EXPECT_EQ(status("hostile-texture-pixels-into-next"), "divergent");
    EXPECT_EQ(status("hostile-objects-offset-past-record"), "divergent");
    EXPECT_EQ(status("hostile-texture-pixels-short"), "equivalent"); // the file's end bounds it either way
    EXPECT_EQ(status("loader"), "equivalent");                       // valid archives: nothing to refuse
    // The rule is proven by the refusals alone: the loader claims it no more.
    const ojson clean_index = read_json(path("clean/run.json")); // kept: the loop reads into it
    for (const auto& r : clean_index.at("ledger").at("rules"))
        if (r.at("id") == "arc.extent") {
            EXPECT_EQ(r.at("status"), "Proven") << r;
            EXPECT_EQ(r.at("claimed_not_exercised"), ojson::array()) << r;
            EXPECT_EQ(r.at("proven_by"), ojson::array({"hostile-objects-offset-past-record",
                                                       "hostile-texture-pixels-into-next"}))
                << r;
        }
}

TEST_F(HostileTest, ANegatedLoaderCheckIsKilledAtTheRejectionEvent) {
    // Every conditional jump of the loader negated in turn: those that let the broken table through
    // make the original return 0 where the reimplementation refuses (1), at the one rejection event.
    const fs::path file = kCasesDir / "hostile-objects-table-count.json";
    const Result r =
        refcheck("mutate " + quote(file) +
                 " --routines 'initialise_3d_objects|load_objects|table_count' --operators negate_jcc"
                 " --jobs 2 --out m");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    const std::size_t at_rejection = killed_by_divergence(
        j, [](const ojson& k) { return k.at("event").value("original", "") == "rejection"; });
    EXPECT_GE(at_rejection, 1u) << j.at("totals").dump();
}

// The original's refusal is compared with its reason (initialise_error), not only its result: with
// load_objects' table checks (the count against the table's capacity, the offset table against the
// file's size) made no-ops, the stand-in still refuses objects-table-count, at a record check
// further on. Its result, 1, matched, and the case was equivalent and proved valid.table.
TEST_F(HostileTest, AnOriginalRefusingForAnotherReasonThanTheCaseStatesDiverges) {
    const std::vector<emu::Instruction> code = instructions_of("load_objects");
    std::string patches;
    for (std::size_t i = 1; i < code.size(); ++i) {
        const bool capacity =
            code[i - 1].text.rfind("cmp edx, 0x800", 0) == 0 && code[i].text.rfind("ja ", 0) == 0;
        const bool extent = i >= 2 && code[i - 2].text.rfind("lea eax, [edx*4 + 4]", 0) == 0 &&
                            code[i - 1].text.rfind("cmp esi, eax", 0) == 0 &&
                            code[i].text.rfind("jb ", 0) == 0;
        if (!capacity && !extent) continue;
        char where[64];
        std::snprintf(where, sizeof where,
                      " --patch load_objects+0x%x:", code[i].address - code.front().address);
        patches += where + hex_bytes(std::vector<std::uint8_t>(code[i].size, 0x90));
    }
    ASSERT_EQ(std::count(patches.begin(), patches.end(), '+'), 2) << "the two table checks";
    const fs::path file = kCasesDir / "hostile-objects-table-count.json";
    ASSERT_EQ(refcheck("run " + quote(file) + " --out clean").code, 0);
    const Result r = refcheck("run " + quote(file) + " --out o" + patches);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson j = read_json(path("o/hostile-objects-table-count.json"));
    EXPECT_EQ(j.at("rejection").at("original_result"), 1) << "still refused";
    EXPECT_NE(j.at("rejection").at("original_reason"), j.at("rejection").at("expected_reason"));
    EXPECT_EQ(j.at("status"), "divergent");
    EXPECT_EQ(j.at("rejection").at("original_reason").at("name"), "objects_record") << "a record check";
    EXPECT_EQ(j.at("status"), "divergent");
}

// The case names the reason; the profile says which number the image's initialise_error holds for
// it. The number compared is the profile's, not one the harness or the case knows: the clean
// stand-in, whose profile swaps objects_table's number with objects_record's, diverges. A profile
// that cannot say why (no initialise_error, as the real image's template, or no number for the
// case's name) leaves the original compared on its result alone, and the report says why.
TEST_F(HostileTest, TheReasonsNumberIsTheProfilesForTheCasesName) {
    const fs::path file = kCasesDir / "hostile-objects-table-count.json";
    ASSERT_EQ(read_json(file).at("rejects").at("reason"), "objects_table");
    const fs::path swapped = with_reasons_swapped("objects_table", "objects_record");
    const Result s = refcheck("run " + quote(file) + " --profile " + quote(swapped) + " --out s");
    EXPECT_EQ(s.code, 1) << s.out << s.err;
    const ojson sj = read_json(path("s/hostile-objects-table-count.json"));
    EXPECT_EQ(sj.at("status"), "divergent");
    EXPECT_EQ(sj.at("rejection").at("original_reason"), (ojson{{"name", "objects_record"}, {"value", 2}}));
    EXPECT_EQ(sj.at("rejection").at("expected_reason"), (ojson{{"name", "objects_table"}, {"value", 3}}));

    auto rule = [this](const std::string& out, const std::string& id) {
        const ojson index = read_json(path(out + "/run.json"));
        for (const auto& r : index.at("ledger").at("rules"))
            if (r.at("id") == id) return r.at("status").get<std::string>();
        return std::string("(not in the ledger)");
    };
    ASSERT_EQ(refcheck("run " + quote(file) + " --out clean").code, 0);
    EXPECT_EQ(rule("clean", "valid.table"), "Proven");
    EXPECT_EQ(rule("clean", "valid.refuse"), "Proven");

    const std::vector<std::pair<fs::path, std::string>> mute = {
        {with_error_global("no-global", [](ojson& d) { d = nullptr; }), "no data \"initialise_error\""},
        {with_error_global("no-name", [](ojson& d) { d.at("values").erase("objects_table"); }),
         "no \"values\" entry \"objects_table\""}};
    for (const auto& [profile, why] : mute) {
        const Result e = refcheck("run " + quote(file) + " --profile " + quote(profile) + " --out e");
        EXPECT_EQ(e.code, 0) << e.out << e.err;
        const ojson rejection = read_json(path("e/hostile-objects-table-count.json")).at("rejection");
        EXPECT_FALSE(rejection.contains("original_reason")) << rejection.dump();
        EXPECT_NE(rejection.value("reason_not_compared", "").find(why), std::string::npos)
            << rejection.dump();
        // Its refusal proves that something refuses (valid.refuse), not which check (valid.table):
        // the original without its table checks refused this root at a record check.
        EXPECT_EQ(rule("e", "valid.table"), "Chosen-unproven") << profile;
        EXPECT_EQ(rule("e", "valid.refuse"), "Proven") << profile;
        // Where the image has the global, the report shows its value for the profile's owner to name.
        EXPECT_EQ(rejection.contains("original_value"), profile.filename() == "no-name.profile.json")
            << rejection.dump();
    }
    EXPECT_EQ(read_json(path("e/hostile-objects-table-count.json")).at("rejection").at("original_value"), 2);
}

// The reimplementation's reason is its own (the check its validator refused at), not the case's.
// A case stating objects_record for a root whose record 5 has an internal offset past its end, run
// with a profile naming the stand-in's internal-offset number objects_record, has an original that
// agrees with the case. The validator refuses record 5 at an internal-offset check: its reason was
// the case's, taken on the case's word, and the case was equivalent; it is an error naming both.
TEST_F(HostileTest, TheReimplementationsReasonIsItsOwnCheckNotTheCases) {
    ojson c = read_json(kCasesDir / "hostile-objects-offset-past-record.json");
    ASSERT_EQ(c.at("rejects").at("reason"), "objects_internal");
    const fs::path clean = write_case("hostile-internal", c);
    const Result ok = refcheck("run " + quote(clean) + " --out clean");
    ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
    const ojson rejection = read_json(path("clean/hostile-internal.json")).at("rejection");
    EXPECT_EQ(rejection.at("reimpl_reason"), "objects_internal") << rejection.dump();
    EXPECT_EQ(rejection.at("original_reason").at("name"), "objects_internal") << rejection.dump();

    c["rejects"]["reason"] = "objects_record";
    const fs::path file = write_case("hostile-said-record", c);
    const fs::path swapped = with_reasons_swapped("objects_internal", "objects_record");
    const Result r = refcheck("run " + quote(file) + " --profile " + quote(swapped) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson j = read_json(path("o/hostile-said-record.json"));
    EXPECT_EQ(j.at("status"), "error") << j.dump();
    EXPECT_EQ(j.at("rejection").at("original_reason").at("name"), "objects_record") << j.dump();
    EXPECT_EQ(j.at("rejection").at("reimpl_reason"), "objects_internal") << j.dump();
    EXPECT_NE(j.value("error", "")
                  .find("at a check of kind \"objects_internal\", the case says \"objects_record\""),
              std::string::npos)
        << j.dump();
}

// A case that exists to show a refusal, on a root neither side refuses (here the valid small
// archives in place of its generated root), compared two results of 0 and was equivalent. It is an
// error: nothing the case is about was shown.
TEST_F(HostileTest, ACaseWhereNeitherSideRefusesIsAnError) {
    ojson c = read_json(kCasesDir / "hostile-objects-table-count.json");
    c["data"] = kSmallData.string();
    const fs::path file = write_case("hostile-on-a-valid-root", c);
    const Result r = refcheck("run " + quote(file) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson j = read_json(path("o/hostile-on-a-valid-root.json"));
    EXPECT_EQ(j.at("status"), "error") << j.dump();
    EXPECT_NE(j.dump().find("nothing refused"), std::string::npos) << j.dump();
}

TEST_F(HostileTest, ACaseNamingAnotherRecordThanTheValidatorIsAnError) {
    ojson c = read_json(kCasesDir / "hostile-objects-offset-past-record.json");
    c["rejects"]["record"] = c.at("rejects").at("record").get<int>() + 1;
    // The case's generated root is named relative to the default data root's folder, not the case.
    const fs::path file = write_case("hostile-wrong-record", c);
    const Result r = refcheck("run " + quote(file) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson j = read_json(path("o/hostile-wrong-record.json"));
    EXPECT_EQ(j.at("status"), "error");
    EXPECT_NE(j.at("error").get<std::string>().find("the case expects 3DOBJS.BIN record"), std::string::npos)
        << j.at("error");
}

// A user's own broken data root, run with an ordinary case (issue 14, point 5): every hostile root
// exits 2, and the case's error leads with the reimplementation's validator (archive, then record or
// byte offset), with the original's reaction on the next line.
TEST_F(HostileTest, AnOrdinaryCaseOnEveryHostileRootErrorsWithArchiveRecordAndOffsetFirst) {
    const fs::path hostile = kSmallData.parent_path() / "hostile";
    std::vector<fs::path> roots;
    for (const auto& e : fs::directory_iterator(hostile))
        // edge-*: valid; program-*: archives the loader accepts, with one broken draw program
        // (invalid_program_test.cpp)
        if (e.is_directory() && !e.path().filename().string().starts_with("edge-") &&
            !e.path().filename().string().starts_with("program-"))
            roots.push_back(e.path());
    std::sort(roots.begin(), roots.end());
    ASSERT_GE(roots.size(), 10u) << hostile;
    for (const fs::path& root : roots) {
        // The archives are refused at boot by any case; 3DPAL.RGB only by a case that builds palettes.
        const std::string name = root.filename().string().starts_with("palette-") ? "palette" : "loader";
        const std::string out = "o-" + root.filename().string();
        const Result r = refcheck("run " + quote(kCasesDir / (name + ".json")) + " --data " + quote(root) +
                                  " --jobs 1 --out " + out);
        EXPECT_EQ(r.code, 2) << root << r.out << r.err;
        const ojson j = read_json(path(out + "/" + name + ".json"));
        EXPECT_EQ(j.at("status"), "error") << root;
        const std::string error = j.value("error", std::string());
        const std::string first = error.substr(0, error.find('\n'));
        const std::string second =
            error.find('\n') == std::string::npos ? "" : error.substr(error.find('\n') + 1);
        EXPECT_EQ(first.rfind("the data root is invalid: ", 0), 0u) << root << ": " << error;
        EXPECT_TRUE(first.find("3DOBJS.BIN") != std::string::npos ||
                    first.find("OBJTEXT.BIN") != std::string::npos ||
                    first.find("3DPAL.RGB") != std::string::npos)
            << root << ": " << first;
        EXPECT_TRUE(first.find("record") != std::string::npos || first.find("offset") != std::string::npos)
            << root << ": " << first;
        EXPECT_NE(second.find("the original agrees: initialise_3d_"), std::string::npos)
            << root << ": " << error;
    }
}

// Both sides read the archives the same way: a copy of the game folder with lower-case names (as
// a CD copy often has) is read by the reimplementation as by the original, whose file names are
// case-insensitive. Before, the original loaded 3ddata/3dobjs.bin and the reimplementation called
// the archive missing, so a valid root gave errors.
TEST_F(HostileTest, ALowerCaseRootIsReadAlikeByBothSides) {
    fs::copy(kSmallData, path("lower"), fs::copy_options::recursive);
    fs::rename(path("lower/3DDATA"), path("lower/3ddata"));
    fs::rename(path("lower/3ddata/3DOBJS.BIN"), path("lower/3ddata/3dobjs.bin"));
    fs::rename(path("lower/3DPAL.RGB"), path("lower/3dpal.rgb"));
    const Result r =
        refcheck("run " + quote(shipped_case("loader")) + " " + quote(shipped_case("construct")) +
                 " --data " + quote(path("lower")) + " --out o");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const char* name : {"o/loader.json", "o/construct.json"}) {
        const ojson report = read_json(path(name));
        EXPECT_EQ(report.at("status"), "equivalent") << name << " " << report.value("error", std::string());
        EXPECT_FALSE(report.at("inputs").at("archives").at("3DDATA/3DOBJS.BIN").is_null()) << name;
    }
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// The same inputs give the same report bytes wherever the checkout and its data lie: the
// reimplementation's refusal of a missing archive named its absolute path ("the file is missing
// (/work/.../3DDATA/3DOBJS.BIN)"), so a report differed between checkouts. The missing-archive
// cases run here on copies of their roots in two folders of different depth.
TEST_F(HostileTest, ReportsOfMissingArchivesAreTheSameWhereverTheDataLies) {
    const auto cases = shipped_cases_starting("hostile-");
    std::vector<fs::path> missing;
    std::copy_if(cases.begin(), cases.end(), std::back_inserter(missing),
                 [](const fs::path& f) { return f.stem().string().ends_with("-missing"); });
    ASSERT_EQ(missing.size(), 3u);
    const fs::path hostile = kSmallData.parent_path() / "hostile";
    for (const std::string where : {"a", "somewhere/much/deeper/b"}) {
        std::string files;
        for (const fs::path& file : missing) {
            ojson c = read_json(file);
            const std::string root =
                c.at("data").get<std::string>().substr(std::string("generated:hostile/").size());
            fs::create_directories(path(where));
            fs::copy(hostile / root, path(where + "/" + root), fs::copy_options::recursive);
            c["data"] = root; // relative to the case file
            std::ofstream(path(where + "/" + file.filename().string())) << c.dump(2) << "\n";
            files += " " + quote(path(where + "/" + file.filename().string()));
        }
        const Result r = refcheck("run" + files + " --jobs 1 --out " + quote(path(where + "-out")));
        ASSERT_EQ(r.code, 0) << r.out << r.err;
    }
    const auto a = tree_without_junit_times(path("a-out"));
    const auto b = tree_without_junit_times(path("somewhere/much/deeper/b-out"));
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [file, bytes] : a) {
        ASSERT_TRUE(b.count(file)) << file;
        EXPECT_TRUE(b.at(file) == bytes) << file << " differs between the two places";
        EXPECT_EQ(bytes.find(dir_.string()), std::string::npos) << file << " names a path of this machine";
    }
    const ojson report = read_json(path("a-out/hostile-objects-missing.json"));
    EXPECT_EQ(report.at("rejection").at("reimpl_error"),
              "3DOBJS.BIN: offset 0x0: the file is missing (3DDATA/3DOBJS.BIN)")
        << report.at("rejection").dump();
}

} // namespace
} // namespace refcheck::cli_test
