// A run with seeded faults says so (issue 11, point A): a banner first on stdout before any case
// runs, "seeded_faults" near the top of run.json with every patch's address and the bytes it
// replaced, JUnit properties, a red banner in the HTML header, the replaced bytes in every case
// report; `WHERE:OLD->NEW` refuses an image whose bytes at WHERE are not OLD (exit 2, nothing runs);
// merge keeps the record and refuses shards seeded differently.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "json_schema.hpp" // tests/harness

#include "refcheck/emu/types.hpp"

namespace refcheck::cli_test {
namespace {

class SeededDisclosureTest : public CliTest {
protected:
    // The `jns` of op_secondary's winding test (the program family's seeded fault): a palette case
    // never runs it, so the patched run stays equivalent and only the disclosure tells it apart.
    static CodeSite branch() {
        return find_instruction("op_secondary",
                                [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    }
    std::string common() {
        return quote(write_case("small-palette", small_palette())) + " --data " + quote(kSmallData);
    }
};

TEST_F(SeededDisclosureTest, APatchedRunSaysSoFirstOnStdoutInRunJsonJunitHtmlAndTheCaseReport) {
    const CodeSite site = branch();
    ASSERT_EQ(hex_bytes(site.bytes).substr(0, 2), "79") << site.instruction.text;
    const std::string address = emu::hex(site.instruction.address);
    const Result run = refcheck("run " + common() + " --out patched --patch '" + site.where() + ":79->78'" +
                                " --inject-reimpl-light-swap");
    ASSERT_EQ(run.code, 0) << run.out << run.err; // the palette runs neither the branch nor the light

    // The banner comes before anything else on stdout (progress goes to stderr), and so before the
    // results, which follow an empty line.
    ASSERT_EQ(run.out.rfind("refcheck: SEEDED FAULTS", 0), 0u) << run.out;
    const auto banner_end = run.out.find("\n\n");
    ASSERT_NE(banner_end, std::string::npos) << run.out;
    const std::string banner = run.out.substr(0, banner_end);
    EXPECT_NE(banner.find("the original is modified: 1 byte(s) at " + site.where() +
                          " overwritten with 78 (stated to replace 79)"),
              std::string::npos)
        << banner;
    EXPECT_NE(banner.find("the reimplementation's input is modified: its light has x and z swapped"),
              std::string::npos)
        << banner;

    // run.json: right after the status, each patch with its address and the bytes it replaced.
    const ojson index = read_json(path("patched/run.json"));
    std::vector<std::string> keys;
    for (const auto& [k, v] : index.items()) keys.push_back(k);
    ASSERT_GE(keys.size(), 4u);
    EXPECT_EQ(keys[0], "schema");
    EXPECT_EQ(keys[1], "refcheck_version");
    EXPECT_EQ(keys[2], "status");
    EXPECT_EQ(keys[3], "seeded_faults");
    const ojson& seeded = index.at("seeded_faults");
    EXPECT_EQ(seeded.at("original_modified"), true);
    EXPECT_EQ(seeded.at("reimpl_input_modified"), true);
    EXPECT_EQ(seeded.at("reimpl_light"), "x and z swapped");
    // The patch as given, once (seeded_effect's rows), then once per image the cases ran on.
    EXPECT_EQ(seeded.at("given"),
              ojson::parse(R"([{"where": ")" + site.where() + R"(", "bytes": "78", "expected": "79"}])"));
    ASSERT_EQ(seeded.at("patches").size(), 1u);
    const ojson& p = seeded.at("patches").at(0);
    EXPECT_EQ(p.at("where"), site.where());
    EXPECT_EQ(p.at("image"), kImage.filename().string());
    EXPECT_EQ(p.at("address"), address);
    EXPECT_EQ(p.at("bytes"), "78");
    EXPECT_EQ(p.at("replaced"), "79");
    EXPECT_EQ(p.at("expected"), "79");

    // Every case report: the bytes replaced too.
    const ojson injected = read_json(path("patched/small-palette.json")).at("injected");
    ASSERT_EQ(injected.at("patches").size(), 1u);
    EXPECT_EQ(injected.at("patches").at(0).at("address"), address);
    EXPECT_EQ(injected.at("patches").at(0).at("bytes"), "78");
    EXPECT_EQ(injected.at("patches").at(0).at("replaced"), "79");
    EXPECT_EQ(injected.at("patches").at(0).at("expected"), "79");
    // The palette never runs op_secondary: its coverage says the patched bytes did not run, and the
    // summary that no case ran the modified original.
    EXPECT_EQ(injected.at("patches").at(0).at("executed"), false);
    EXPECT_NE(
        run.out.find("seeded patch " + site.where() +
                     ": its bytes ran in 0 of 1 case(s); in none, so no case ran the modified original\n"),
        std::string::npos)
        << run.out;
    // The light swap was seeded, but a palette case gives the reimplementation no light: the report
    // says the swap changed nothing here, and the summary that it changed no case's input.
    EXPECT_EQ(injected.at("reimpl_light"), "x and z swapped");
    EXPECT_EQ(injected.at("reimpl_lights"), 0);
    EXPECT_EQ(injected.at("reimpl_lights_changed"), 0);
    EXPECT_EQ(injected.at("reimpl_light_inert"), "the palette family gives the reimplementation no light");
    EXPECT_NE(run.out.find("seeded light swap: the reimplementation got another light in 0 of 1 case(s); in "
                           "none, so its input was not modified in this run\n"),
              std::string::npos)
        << run.out;

    // JUnit: testsuite properties.
    const std::string junit = read_text(path("patched/junit.xml"));
    const auto suite = junit.find("<testsuite "), properties = junit.find("<properties>"),
               first = junit.find("<testcase");
    ASSERT_NE(properties, std::string::npos) << junit;
    EXPECT_LT(suite, properties);
    EXPECT_LT(properties, first);
    EXPECT_NE(junit.find("<property name=\"refcheck.seeded_fault.patch.0\" value=\"" + site.where() + " at " +
                         address + " in " + kImage.filename().string() +
                         ": 78 written over 79 (stated: 79)\"/>"),
              std::string::npos)
        << junit;
    EXPECT_NE(junit.find("<property name=\"refcheck.seeded_fault.reimpl_light\" value=\"x and z swapped\"/>"),
              std::string::npos)
        << junit;
    // What the seeded faults changed, by the case report (run.json's seeded_effect, the JUnit summary
    // and the HTML banner): the patch ran in no case, and the swap gave no case another light.
    EXPECT_EQ(keys[4], "seeded_effect");
    EXPECT_EQ(
        index.at("seeded_effect"),
        ojson::parse(
            R"({"cases": 1, "patches": [{"where": ")" + site.where() +
            R"(", "ran": 0, "not_run": 1, "cannot_tell": 0, "stopped": 0}], "reimpl_light_changed_in": 0})"));
    const std::string said =
        "the original is modified (1 patch; " + site.where() +
        " ran in 0 of 1 case(s)); the reimplementation's input is modified (light x and z "
        "swapped; another light in 0 of 1 case(s))";
    EXPECT_NE(junit.find("name=\"refcheck.seeded_faults\" value=\"" + said + "\""), std::string::npos)
        << junit;

    // Both documents are valid against the report schemas (which list every property).
    test::SchemaSet schemas;
    for (const char* f : {"case-report.schema.json", "run-index.schema.json"})
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / f);
    for (const auto& e : schemas.validate(index, "run-index.schema.json")) ADD_FAILURE() << "run.json " << e;
    for (const auto& e :
         schemas.validate(read_json(path("patched/small-palette.json")), "case-report.schema.json"))
        ADD_FAILURE() << "small-palette.json " << e;

    // HTML: a red banner right under the title.
    const std::string html = read_text(path("patched/index.html"));
    EXPECT_NE(html.find(".seeded{color:#fff;background:#c00"), std::string::npos);
    const auto title = html.find("</h1>"), red = html.find("<div class=seeded id=seeded-faults>");
    ASSERT_NE(red, std::string::npos);
    EXPECT_EQ(red, title + 5) << "the banner is not the first thing under the title";
    EXPECT_NE(html.find("<code>" + site.where() + "</code> at <code>" + address + "</code>", red),
              std::string::npos);
    EXPECT_NE(html.find("wrote <code>78</code> over <code>79</code>", red), std::string::npos);
    EXPECT_NE(html.find("SEEDED FAULTS: " + said + ".", red), std::string::npos);
}

TEST_F(SeededDisclosureTest, AnUnseededRunHasNoneOfIt) {
    const Result run = refcheck("run " + common() + " --out clean");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    EXPECT_EQ(run.out.find("SEEDED"), std::string::npos) << run.out;
    EXPECT_FALSE(read_json(path("clean/run.json")).contains("seeded_faults"));
    EXPECT_FALSE(read_json(path("clean/small-palette.json")).contains("injected"));
    EXPECT_EQ(read_text(path("clean/junit.xml")).find("seeded_fault"), std::string::npos);
    EXPECT_EQ(read_text(path("clean/index.html")).find("<div class=seeded"), std::string::npos);
}

// A patch over data (the framebuffer's first byte) lies outside the covered routines: coverage
// cannot tell whether anything ran it, and the report and the summary say so rather than "no".
TEST_F(SeededDisclosureTest, APatchOutsideTheCoveredRoutinesIsNeitherRunNorNotRun) {
    const Result run = refcheck("run " + common() + " --out data --patch framebuffer+0:07");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson patch = read_json(path("data/small-palette.json")).at("injected").at("patches").at(0);
    EXPECT_EQ(patch.at("where"), "framebuffer+0");
    EXPECT_TRUE(patch.at("executed").is_null()) << patch.dump();
    EXPECT_NE(
        run.out.find("seeded patch framebuffer+0: its bytes ran in 0 of 1 case(s); 1 case(s) cannot tell "
                     "(the bytes lie outside the covered routines, or after a fault in their block)\n"),
        std::string::npos)
        << run.out;
}

TEST_F(SeededDisclosureTest, APatchStatingOtherBytesThanTheImageHasExits2NamingThemAndRunsNothing) {
    const CodeSite site = branch();
    const std::string address = emu::hex(site.instruction.address);
    const Result run = refcheck("run " + common() + " --out wrong --patch '" + site.where() + ":0f->78'");
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("expected 0f at " + address + " (" + site.where() + "), found 79"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find(kImage.filename().string()), std::string::npos) << run.err;
    EXPECT_EQ(run.out.rfind("refcheck: SEEDED FAULTS", 0), 0u) << run.out; // announced, then refused
    EXPECT_EQ(run.out.find("done"), std::string::npos) << "a case ran: " << run.out;
    EXPECT_FALSE(fs::exists(path("wrong/small-palette.json")));
    EXPECT_FALSE(fs::exists(path("wrong/run.json")));

    // Stated bytes of another length than the new ones are a usage error.
    const Result length =
        refcheck("run " + common() + " --out length --patch '" + site.where() + ":7900->78'");
    EXPECT_EQ(length.code, 2) << length.out << length.err;
    EXPECT_NE(length.err.find("2 old and 1 new"), std::string::npos) << length.err;
}

TEST_F(SeededDisclosureTest, BisectAnnouncesItsSeededFaultsFirst) {
    const CodeSite site = branch();
    const Result run = refcheck("bisect " + common() + " --patch '" + site.where() + ":79->78'");
    EXPECT_EQ(run.code, 0) << run.out << run.err; // nothing to bisect in the palette
    EXPECT_EQ(run.out.rfind("refcheck: SEEDED FAULTS", 0), 0u) << run.out;
    EXPECT_NE(run.out.find("nothing to bisect"), std::string::npos) << run.out;
    const Result wrong = refcheck("bisect " + common() + " --patch '" + site.where() + ":0f->78'");
    EXPECT_EQ(wrong.code, 2) << wrong.out << wrong.err;
    EXPECT_NE(wrong.err.find("expected 0f at"), std::string::npos) << wrong.err;
}

TEST_F(SeededDisclosureTest, MergeKeepsTheSeededFaultsAndRefusesShardsSeededDifferently) {
    const CodeSite site = branch();
    const std::string files = quote(write_case("small-palette", small_palette())) + " " +
                              quote(write_case("small-palette-b", small_palette())) + " --data " +
                              quote(kSmallData);
    const std::string patch = " --patch '" + site.where() + ":79->78'"; // quoted: > is the shell's
    const Result all = refcheck("run " + files + patch + " --out all");
    ASSERT_EQ(all.code, 0) << all.out << all.err;
    for (const std::string k : {"0", "1"}) {
        const Result shard = refcheck("run " + files + patch + " --shard " + k + "/2 --out s" + k);
        ASSERT_EQ(shard.code, 0) << shard.out << shard.err;
    }
    const Result clean = refcheck("run " + files + " --shard 1/2 --out c1");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;

    const Result merge = refcheck("merge --out merged s0 s1 --cases " + files);
    ASSERT_EQ(merge.code, 0) << merge.out << merge.err;
    EXPECT_NE(merge.out.find("SEEDED FAULTS"), std::string::npos) << merge.out;
    EXPECT_EQ(read_text(path("merged/run.json")), read_text(path("all/run.json")));
    EXPECT_EQ(without_junit_times(read_text(path("merged/junit.xml"))),
              without_junit_times(read_text(path("all/junit.xml"))));
    EXPECT_TRUE(read_json(path("merged/run.json")).contains("seeded_faults"));

    const Result mixed = refcheck("merge --out mixed s0 c1 --cases " + files);
    EXPECT_EQ(mixed.code, 2) << mixed.out << mixed.err;
    EXPECT_NE(mixed.err.find("different seeded faults"), std::string::npos) << mixed.err;
    EXPECT_FALSE(fs::exists(path("mixed/run.json")));
}

} // namespace
} // namespace refcheck::cli_test
