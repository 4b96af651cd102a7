// Issue 15: the HTML page in the order an auditor reads it, reports that say things once per run,
// and the run subcommand's --filter, --list, one value per --patch, the reimplementation's source
// hash and progress on stderr.
#include "cli_support.hpp"
#include "code_site.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <sys/wait.h>

namespace refcheck::cli_test {
namespace {

class ReportPageTest : public CliTest {
protected:
    static CodeSite winding_branch() {
        return find_instruction("op_secondary",
                                [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    }
    // A shipped case (inside the project, so its reproduce line pastes in the project's root),
    // narrowed by --filter to two records of the small archives, with op_secondary's jns made js.
    Result seeded_run(const std::string& out) {
        return refcheck("run " + quote(shipped_case("program-lights")) + " --data " + quote(kSmallData) +
                        " --filter 'program-lights/record 1 *:program-lights/record 5 *' --patch " +
                        winding_branch().where() + ":78 --out " + out);
    }
};

std::string unescape(std::string s) {
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
        for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
            s.replace(at, from.size(), to);
    }
    return s;
}

std::string output_of(const std::string& command, int* status = nullptr) {
    std::string out;
    FILE* p = popen(command.c_str(), "r");
    if (!p) return out;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int st = pclose(p);
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

TEST_F(ReportPageTest, ASeededDivergentPageReadsInTheOrderAnAuditorReadsIt) {
    const Result r = seeded_run("out");
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const std::string html = read_text(path("out/index.html"));
    EXPECT_NE(html.find("<meta name=viewport content=\"width=device-width, initial-scale=1\">"),
              std::string::npos);
    // Status, the banner, the first divergence with its drill-down open, the cases table, known
    // divergences per cause, the case, then the ledger and coverage folded.
    std::vector<std::string> order = {"<h1 id=status",
                                      "<div class=seeded id=seeded-faults>",
                                      "<nav id=toc>",
                                      "<h2 id=first-divergences>",
                                      "<details class=bisect open>",
                                      "<h2 id=cases>",
                                      "<h2 id=known>",
                                      "<h2 id=\"case-program-lights\">",
                                      "<details class=fold><summary><h2 id=ledger>",
                                      "<details class=fold><summary><h2 id=coverage>"};
    std::size_t at = 0;
    for (const auto& mark : order) {
        const std::size_t found = html.find(mark);
        ASSERT_NE(found, std::string::npos) << mark;
        EXPECT_GT(found, at) << mark << " is out of order";
        at = found;
    }
    // The table of contents and links to every file of the run.
    for (const char* link :
         {"href=\"#first-divergences\"", "href=\"#case-program-lights\"", "href=\"run.json\"",
          "href=\"junit.xml\"", "href=\"program-lights.json\"", "href=\"program-lights/coverage.drcov\""})
        EXPECT_NE(html.find(link), std::string::npos) << link;
    // Unexplained counts are split by kind in the cases table.
    const ojson report = read_json(path("out/program-lights.json"));
    const ojson& c = report.at("counts");
    EXPECT_EQ(c.at("unexplained").get<std::uint64_t>(),
              c.at("missing_in_reimpl").get<std::uint64_t>() + c.at("extra_in_reimpl").get<std::uint64_t>() +
                  c.at("changed").get<std::uint64_t>() + c.at("faults").get<std::uint64_t>());
    EXPECT_NE(html.find("unexplained (missing / extra / changed / faults)"), std::string::npos);

    // The reproduce line pastes as it is in the project's root, and reproduces the divergence.
    const std::string open = "<pre class=reproduce>";
    const auto begin = html.find(open);
    ASSERT_NE(begin, std::string::npos);
    const std::string line =
        unescape(html.substr(begin + open.size(), html.find("</pre>", begin) - begin - open.size()));
    // The executable is named from the project's root: build/ or build-asan/, whichever ran.
    const fs::path root = fs::path(REFCHECK_CLI_CASES).parent_path();
    const std::string refcheck_from_root =
        fs::weakly_canonical(kRefcheck).lexically_relative(fs::weakly_canonical(root)).string();
    EXPECT_EQ(line.rfind(refcheck_from_root + " run cases/program-lights.json --only '", 0), 0u) << line;
    fs::remove_all(root / "out" / "bisect" / "program-lights.json");
    int status = -1;
    output_of("cd " + quote(root) + " && " + line + " 2>&1", &status);
    EXPECT_EQ(status, 1) << line;
    const ojson again = read_json(root / "out" / "bisect" / "program-lights.json");
    EXPECT_EQ(again.at("first_unexplained").at("input"), report.at("first_unexplained").at("input"));
}

TEST_F(ReportPageTest, FramesSayWhatDiffersWhyAndHowTheyWereChosen) {
    const fs::path file = write_case("small-frames", small_frames().to_json());
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out out");
    ASSERT_LE(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("out/small-frames.json"));
    const ojson& choice = report.at("frame_selection");
    // Every differing frame is shown, plus the stated sample.
    EXPECT_EQ(choice.at("shown_differing"), choice.at("differing"));
    EXPECT_EQ(report.at("frames").size(),
              choice.at("shown_differing").get<std::size_t>() + choice.at("shown_sample").get<std::size_t>());
    const std::string html = read_text(path("out/index.html"));
    EXPECT_NE(html.find("Shown: every differing frame, plus the first drawn frame"), std::string::npos);
    EXPECT_NE(html.find("<p class=legend>"), std::string::npos);
    for (const auto& f : report.at("frames")) {
        for (const char* k : {"original_png", "reimpl_png", "diff_png"}) {
            const std::string png = f.at(k).get<std::string>();
            EXPECT_TRUE(fs::exists(path("out/" + png))) << png;
            EXPECT_NE(html.find("src=\"" + png + "\""), std::string::npos) << png;
        }
        const auto differing = f.at("differing_pixels").get<std::uint64_t>();
        if (differing) {
            EXPECT_NE(html.find(std::to_string(differing) + " pixels differ; "), std::string::npos);
            if (differing > f.at("unexplained_pixels").get<std::uint64_t>()) {
                ASSERT_FALSE(f.at("explained_by").empty()) << f.dump();
                EXPECT_NE(html.find("explained by " + f.at("explained_by").at(0).get<std::string>()),
                          std::string::npos);
            }
        }
    }
}

// Issue 15 point 5: the ledger's rule index and the coverage of routines a case never entered are
// written once, in run.json; a case report keeps the routines it entered. merge restores what the
// shards wrote (shard_test: byte-identical to the unsharded run).
TEST_F(ReportPageTest, LedgerAndImageCoverageAreWrittenOncePerRun) {
    const Result r = refcheck("run " + join({shipped_case("loader"), shipped_case("palette")}) + " --data " +
                              quote(kSmallData) + " --out out");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const ojson index = read_json(path("out/run.json"));
    ASSERT_TRUE(index.contains("ledger"));
    ASSERT_EQ(index.at("image_coverage").size(), 1u);
    const ojson& shared = index.at("image_coverage").at(0).at("routines");
    for (const char* name : {"loader", "palette"}) {
        const ojson report = read_json(path(std::string("out/") + name + ".json"));
        EXPECT_FALSE(report.at("evidence").contains("rules")) << name;
        EXPECT_TRUE(report.at("evidence").contains("sha256")) << name;
        const ojson& coverage = report.at("coverage");
        EXPECT_FALSE(coverage.contains("reasons")) << name;
        for (const auto& [routine, rc] : coverage.at("routines").items()) {
            EXPECT_GT(rc.at("executed").get<std::uint64_t>(), 0u) << name << " " << routine;
            EXPECT_FALSE(shared.contains(routine) && rc == shared.at(routine)) << routine;
        }
        EXPECT_GT(coverage.at("not_entered").get<std::uint64_t>(), 0u) << name;
    }
    // The palette case never enters the draw routines: they are listed once, in run.json.
    ASSERT_TRUE(shared.contains("draw_3d_object_"));
    EXPECT_EQ(shared.at("draw_3d_object_").at("executed"), 0);
    const Result show = refcheck("show out/palette.json");
    EXPECT_EQ(show.code, 0) << show.out << show.err;
}

// A case's files are linked by URL-encoded paths: the case "mob#1" linked its report as
// href="mob#1.json", a page "mob" with a fragment, and so its coverage.
TEST_F(ReportPageTest, ACaseNameIsLinkedAsAUrlPath) {
    fs::create_directories(path("c"));
    fs::copy_file(shipped_case("palette"), path("c/mob#1 %.json"));
    const Result r =
        refcheck("run " + quote(path("c/mob#1 %.json")) + " --data " + quote(kSmallData) + " --out out");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const std::string page = read_text(path("out/index.html"));
    EXPECT_NE(page.find("href=\"mob%231%20%25.json\""), std::string::npos) << page;
    EXPECT_EQ(page.find("href=\"mob#1"), std::string::npos);
    EXPECT_TRUE(fs::exists(path("out/mob#1 %.json")));
}

TEST_F(ReportPageTest, PatchTakesOneValueAndCanBeRepeated) {
    const CodeSite site = winding_branch();
    // The case path after --patch is a case path, not a second patch.
    const Result one = refcheck("run --patch " + site.where() + ":78 " + quote(shipped_case("palette")) +
                                " --data " + quote(kSmallData) + " --out one");
    ASSERT_EQ(one.code, 0) << one.out << one.err;
    EXPECT_EQ(read_json(path("one/run.json")).at("seeded_faults").at("patches").size(), 1u);
    const Result two = refcheck("run " + quote(shipped_case("palette")) + " --data " + quote(kSmallData) +
                                " --patch " + site.where() + ":78 --patch " + site.where() + ":79 --out two");
    ASSERT_EQ(two.code, 0) << two.out << two.err;
    EXPECT_EQ(read_json(path("two/run.json")).at("seeded_faults").at("patches").size(), 2u);
}

TEST_F(ReportPageTest, RunJsonRecordsTheReimplementationsSourceHash) {
    const Result r =
        refcheck("run " + quote(shipped_case("palette")) + " --data " + quote(kSmallData) + " --out out");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const fs::path reimpl = fs::path(REFCHECK_CLI_CASES).parent_path() / "reimpl";
    const std::string sum =
        output_of("cd " + quote(reimpl) +
                  " && find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs sha256sum | sha256sum");
    ASSERT_GE(sum.size(), 64u) << sum;
    EXPECT_EQ(read_json(path("out/run.json")).at("reimpl_source_sha256"), sum.substr(0, 64));
}

TEST_F(ReportPageTest, ListAndFilterWorkLikeGoogleTests) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const std::string common =
        quote(file) + " " + quote(shipped_case("palette")) + " --data " + quote(kSmallData);
    const Result all = refcheck("run " + common + " --list");
    ASSERT_EQ(all.code, 0) << all.out << all.err;
    // One case a line, its inputs indented: 3 records x 2 views x 2 lights x 2 states.
    EXPECT_EQ(all.out.rfind("palette\n", 0), 0u) << all.out;
    EXPECT_NE(all.out.find("\nsmall-program\n  record 1 view 0 light 0 state 0\n"), std::string::npos)
        << all.out;
    EXPECT_EQ(count_of(all.out, "\n  record "), 24u) << all.out;
    EXPECT_FALSE(fs::exists(path("out/run.json"))) << "--list runs nothing";

    const std::string filter = " --filter 'small-program/record 5 *:-*/record 5 view 1 *'";
    const Result listed = refcheck("run " + common + filter + " --list");
    ASSERT_EQ(listed.code, 0) << listed.out << listed.err;
    EXPECT_EQ(listed.out.find("palette"), std::string::npos) << listed.out;
    EXPECT_EQ(count_of(listed.out, "\n  record 5 view 0 "), 4u) << listed.out;
    EXPECT_EQ(count_of(listed.out, "\n  record "), 4u) << listed.out;
    const Result run = refcheck("run " + common + filter + " --out out");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson index = read_json(path("out/run.json"));
    ASSERT_EQ(index.at("cases").size(), 1u);
    EXPECT_EQ(index.at("cases").at(0).at("counts").at("inputs"), 4);
    const Result none = refcheck("run " + common + " --filter 'nothing-*' --out none");
    EXPECT_EQ(none.code, 2);
    EXPECT_NE(none.err.find("refcheck: run: --filter 'nothing-*' selects no case"), std::string::npos)
        << none.err;
    // So does --list: it listed nothing and exited 0.
    const Result listed_none = refcheck("run " + common + " --filter 'nothing-*' --list");
    EXPECT_EQ(listed_none.code, 2) << listed_none.out;
    EXPECT_NE(listed_none.err.find("refcheck: run: --filter 'nothing-*' selects no case"), std::string::npos)
        << listed_none.err;
}

// Every input --list names is one --only (and --filter) takes: the palette listed "warzone N" and
// compared "table palette_rgb (warzone N)", the loader listed "re-initialised" and compared each
// buffer by name, so the names --list printed were refused. Each case's every listed input, run
// alone, compares something and exits 0.
TEST_F(ReportPageTest, EveryInputListNamesIsOneOnlyTakes) {
    for (const char* name : {"palette", "loader", "construct"}) {
        const std::string common = quote(shipped_case(name)) + " --data " + quote(kSmallData);
        const Result listed = refcheck("run " + common + " --list");
        ASSERT_EQ(listed.code, 0) << listed.out << listed.err;
        std::istringstream lines(listed.out);
        std::vector<std::string> inputs;
        for (std::string line; std::getline(lines, line);)
            if (line.starts_with("  ")) inputs.push_back(line.substr(2));
        ASSERT_GE(inputs.size(), 2u) << name << ": " << listed.out;
        for (const std::string& input : {inputs.front(), inputs.back()}) {
            const Result r = refcheck("run " + common + " --only " + quote(input) + " --out only");
            EXPECT_EQ(r.code, 0) << name << " --only " << input << "\n" << r.out << r.err;
            const Result f = refcheck("run " + common + " --filter " +
                                      quote(std::string(name) + "/" + input) + " --out filtered");
            EXPECT_EQ(f.code, 0) << name << " --filter " << input << "\n" << f.out << f.err;
        }
    }
}

TEST_F(ReportPageTest, ProgressGoesToStderrAndResultsToStdout) {
    const std::string args =
        "run " + quote(shipped_case("palette")) + " --data " + quote(kSmallData) + " --out out";
    const Result plain = refcheck(args);
    ASSERT_EQ(plain.code, 0) << plain.out << plain.err;
    EXPECT_NE(plain.err.find("refcheck: case palette started (0/1 done)\n"), std::string::npos) << plain.err;
    EXPECT_NE(plain.err.find("refcheck: case 1/1 done: palette ("), std::string::npos) << plain.err;
    EXPECT_EQ(plain.out.find("done"), std::string::npos) << plain.out;
    EXPECT_NE(plain.out.find("refcheck: equivalent"), std::string::npos) << plain.out;
    // On a terminal (script(1) gives it one): one redrawn line, with an ETA once an earlier run in
    // the same folder timed every case.
    const std::string tty = output_of("cd " + quote(path("")) + " && script -qec " +
                                      quote(std::string(REFCHECK_CLI) + " " + args) + " /dev/null");
    EXPECT_NE(tty.find("\r\033[Krefcheck: 0/1 cases done, "), std::string::npos) << tty;
    EXPECT_NE(tty.find("ETA "), std::string::npos) << tty;
    EXPECT_NE(tty.find("running: palette ("), std::string::npos) << tty;
}

} // namespace
} // namespace refcheck::cli_test
