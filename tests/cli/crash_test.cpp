// A crash in one case is that case's error (issue 19). Cases run in forked worker processes
// (harness/src/run/workers.cpp); a worker that dies becomes its case's error report, naming the death,
// the input and the reproduce command, and the other cases run and report as usual.
//
// Worker deaths are provoked with the test-only REFCHECK_TEST_WORKER_CRASH=CASE:HOW (workers.hpp):
// the worker running CASE dies when its first input begins. Nothing here depends on timing.
#include "cli_support.hpp"
#include "code_site.hpp"

namespace refcheck::cli_test {
namespace {

class CrashTest : public CliTest {
protected:
    // The small program case, its frames case and the palette case: three cases of which one dies.
    std::string three_cases(const std::string& program_name) {
        return quote(write_case(program_name, small_program().to_json())) + " " +
               quote(write_case("small-frames", small_frames().to_json())) + " " +
               quote(write_case("small-palette", small_palette()));
    }
    // The run's index, JUnit and HTML are complete: every case is listed in each.
    void expect_complete_outputs(const std::string& out, const std::vector<std::string>& names) {
        const ojson index = read_json(path(out + "/run.json"));
        ASSERT_EQ(index.at("cases").size(), names.size());
        const std::string junit = read_text(path(out + "/junit.xml"));
        const std::string html = read_text(path(out + "/index.html"));
        for (const std::string& n : names) {
            EXPECT_TRUE(fs::exists(path(out + "/" + n + ".json"))) << n;
            EXPECT_NE(junit.find("\"" + n + "\""), std::string::npos) << n;
            EXPECT_NE(html.find(n), std::string::npos) << n;
        }
    }
    void expect_crash_report(const std::string& out, const std::string& name, const std::string& death) {
        const ojson report = read_json(path(out + "/" + name + ".json"));
        EXPECT_EQ(report.at("status"), "error");
        const std::string error = report.at("error").get<std::string>();
        EXPECT_NE(error.find("crash: the worker process running this case " + death), std::string::npos)
            << error;
        const std::string input = input_name(1, 0, 0, 0); // the first input of small_program()
        EXPECT_NE(error.find("in input \"" + input + "\""), std::string::npos) << error;
        const ojson& crash = report.at("crash");
        EXPECT_EQ(crash.at("input"), input);
        EXPECT_EQ(crash.at("routine"), "construct_3d_object_"); // the last call before the input began
        EXPECT_TRUE(crash.at("last_eip").is_string());
        const std::string reproduce = crash.at("reproduce").get<std::string>();
        EXPECT_EQ(reproduce.rfind("refcheck run " + name + ".json --data small", 0), 0u) << reproduce;
        EXPECT_NE(reproduce.find("--jobs 1"), std::string::npos) << reproduce;
        EXPECT_NE(error.find(reproduce), std::string::npos) << error;
        EXPECT_EQ(report.at("counts").at("compared"), 0);
    }
    void expect_status(const std::string& out, const std::string& name, const char* status) {
        EXPECT_EQ(read_json(path(out + "/" + name + ".json")).at("status"), status) << name;
    }
};

TEST_F(CrashTest, WorkerKilledBySignalIsThatCasesErrorAndTheOthersReport) {
    const Result r = refcheck("run " + three_cases("small-program") + " --data " + quote(kSmallData) +
                                  " --out out --jobs 2",
                              "REFCHECK_TEST_WORKER_CRASH=small-program:segv");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    expect_complete_outputs("out", {"small-frames", "small-palette", "small-program"});
    expect_crash_report("out", "small-program", "was killed by signal 11 (SIGSEGV)");
    expect_status("out", "small-frames", "equivalent"); // small_frames(): a known divergence only
    expect_status("out", "small-palette", "equivalent");
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("status"), "error");
    EXPECT_EQ(index.at("totals").at("error"), 1);
    // The console names the crash and how to reproduce it.
    EXPECT_NE(r.out.find("SIGSEGV"), std::string::npos) << r.out;
    // The crashed case still names what it ran on, by hash, as the others do (it had no inputs,
    // and run.json's basis was null).
    const ojson crashed = read_json(path("out/small-program.json")),
                other = read_json(path("out/small-palette.json"));
    EXPECT_EQ(crashed.at("inputs"), other.at("inputs"));
    EXPECT_EQ(crashed.at("inputs").at("image").at("sha256").get<std::string>().size(), 64u);
    for (const ojson& row : index.at("cases"))
        if (row.at("case") == "small-program") {
            EXPECT_EQ(row.at("basis").at("image_sha256"), crashed.at("inputs").at("image").at("sha256"))
                << row.dump();
        }
}

TEST_F(CrashTest, AbortInTheFirstCaseOfOneWorkerLeavesTheRestToANewWorker) {
    // Sorted by name, "a-program" runs first; with one job, the remaining cases need a new worker.
    const Result r =
        refcheck("run " + three_cases("a-program") + " --data " + quote(kSmallData) + " --out out --jobs 1",
                 "REFCHECK_TEST_WORKER_CRASH=a-program:abort");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    expect_complete_outputs("out", {"a-program", "small-frames", "small-palette"});
    expect_crash_report("out", "a-program", "was killed by signal 6 (SIGABRT)");
    expect_status("out", "small-palette", "equivalent");
    expect_status("out", "small-frames", "equivalent");
}

TEST_F(CrashTest, WorkerExitingWithoutItsResultIsThatCasesError) {
    const Result r = refcheck("run " + three_cases("small-program") + " --data " + quote(kSmallData) +
                                  " --out out --jobs 2",
                              "REFCHECK_TEST_WORKER_CRASH=small-program:exit");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    expect_complete_outputs("out", {"small-frames", "small-palette", "small-program"});
    expect_crash_report("out", "small-program", "exited with status 3 without sending its result");
    EXPECT_EQ(read_json(path("out/small-program.json")).at("crash").at("exit_status"), 3);
}

// A worker that never finishes and never dies (a hang outside the guest, which the emulator's own
// limits cannot end: REFCHECK_TEST_WORKER_CRASH=CASE:hang pauses for ever) is killed by the parent
// at --case-timeout; its case is an error naming the limit, and the other cases report. The hung
// case always reaches the limit, whatever the machine's speed; the others need a fraction of it.
TEST_F(CrashTest, AHungWorkerIsStoppedAtItsWallClockLimitAndTheOthersReport) {
    const Result r = refcheck("run " + three_cases("small-program") + " --data " + quote(kSmallData) +
                                  " --out out --jobs 2 --case-timeout 20",
                              "REFCHECK_TEST_WORKER_CRASH=small-program:hang");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    expect_complete_outputs("out", {"small-frames", "small-palette", "small-program"});
    expect_crash_report("out", "small-program",
                        "was stopped (SIGKILL) at its wall-clock limit of 20 s per case (--case-timeout) "
                        "without sending its result");
    const ojson crash = read_json(path("out/small-program.json")).at("crash");
    EXPECT_EQ(crash.at("timeout_ms"), 20000);
    EXPECT_EQ(crash.at("signal"), 9);
    // Its reproduce line runs under the limit that stopped it (it left --case-timeout out).
    EXPECT_NE(crash.at("reproduce").get<std::string>().find(" --case-timeout 20 --jobs 1 --out out/crash"),
              std::string::npos)
        << crash.at("reproduce");
    expect_status("out", "small-frames", "equivalent");
    expect_status("out", "small-palette", "equivalent");
}

TEST_F(CrashTest, WithoutACrashReportsAreThoseOfOneProcess) {
    // Results cross a pipe from the worker: what the parent writes equals the report the worker made,
    // for any job count (same bytes with one and with three workers).
    const std::string cases = three_cases("small-program");
    const Result one = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out one --jobs 1");
    const Result three = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out three --jobs 3");
    EXPECT_EQ(one.code, 0) << one.out << one.err;
    EXPECT_EQ(one.code, three.code);
    EXPECT_EQ(tree_without_junit_times(path("one")), tree_without_junit_times(path("three")));
}

// A case whose worker died cannot say whether a seeded patch ran: its report (the coordinator's) has
// no coverage. It was counted nowhere, and the summary said the patch ran in no case, "so no case ran
// the modified original", of a run whose crashed case may well have run it (here op_secondary's jns,
// which small-program runs on every input and the palette never).
TEST_F(CrashTest, ACrashedCaseCannotSayWhetherASeededPatchRan) {
    const CodeSite jns = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.starts_with("jns "); });
    const std::string cases = quote(write_case("small-program", small_program().to_json())) + " " +
                              quote(write_case("small-palette", small_palette()));
    const Result r = refcheck("run " + cases + " --data " + quote(kSmallData) +
                                  " --out out --jobs 2 --patch " + jns.where() + ":78", // js
                              "REFCHECK_TEST_WORKER_CRASH=small-program:segv");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(
        r.out.find("seeded patch " + jns.where() +
                   ": its bytes ran in 0 of 2 case(s); 1 case(s) stopped before their coverage could tell"),
        std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("in none, so no case ran the modified original"), std::string::npos) << r.out;
    const ojson index = read_json(path("out/run.json"));
    const ojson& row = index.at("seeded_effect").at("patches").at(0);
    EXPECT_EQ(row.at("stopped"), 1) << row;
    EXPECT_EQ(row.at("not_run"), 1) << row;
    EXPECT_EQ(row.at("ran"), 0) << row;
}

// The mutant of issue 19: build_grid_tables' outer step `add esi, 0xc` (the first after the inner
// loop's jne) made 0xd. The table pointer then never meets its end: the loop writes on through .bss
// until it hits the read-only section after it. Each call is a write_protected fault, located by
// re-running its block (machine_fault.cpp), and thousands of such calls once filled Unicorn's
// translation buffer and crashed the whole process (see tests/emu/test_translation_buffer.cpp). On
// the small archives the case is a clean fault of the original in every input, and the other
// case reports as usual.
TEST_F(CrashTest, GridTableStepMutantIsAFaultOfTheOriginalAndTheRunReportsEveryCase) {
    bool after_jne = false;
    const CodeSite site = find_instruction("build_grid_tables", [&](const emu::Instruction& in) {
        if (in.text.rfind("jne ", 0) == 0) after_jne = true;
        return after_jne && in.text == "add esi, 0xc";
    });
    ASSERT_EQ(site.bytes.size(), 3u) << site.instruction.text;
    std::vector<std::uint8_t> mutant = site.bytes;
    mutant.back() = 0x0d;
    ProgramCase grid;
    grid.records = {1}; // the small archives' grid city block
    grid.views = {{35, 25, 0, 4}, {215, 15, 0, 4}};
    grid.lights = {{6689, 13377, 6689}};
    grid.states = {0, 524287};
    grid.allow = {"missing_normal", "grid_rounding"};
    ojson grid_case = grid.to_json();
    grid_case["tolerance"] = {{"grid_rounding", 5}};
    const std::string cases = quote(write_case("small-grid", grid_case)) + " " +
                              quote(write_case("small-palette", small_palette()));
    const Result clean = refcheck("run " + cases + " --data " + quote(kSmallData) + " --out clean --jobs 2");
    EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result r = refcheck("run " + cases + " --data " + quote(kSmallData) +
                              " --out out --jobs 2 --patch " + site.where() + ":" + hex_bytes(mutant));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    expect_complete_outputs("out", {"small-grid", "small-palette"});
    const ojson report = read_json(path("out/small-grid.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_FALSE(report.contains("crash"));
    ASSERT_EQ(report.at("faults").size(), 4u); // one per input
    for (const ojson& f : report.at("faults")) {
        EXPECT_EQ(f.at("kind"), "write_protected");
        EXPECT_EQ(f.at("routine"), "draw_3d_object_");
        EXPECT_TRUE(f.at("eip_exact").get<bool>());
        EXPECT_NE(f.at("attribution").get<std::string>().find("section .edata"), std::string::npos) << f;
        bool in_grid_tables = false;
        for (const auto& line : f.at("disassembly"))
            if (line.get<std::string>().rfind("=> ", 0) == 0)
                in_grid_tables = line.get<std::string>().find("<build_grid_tables+") != std::string::npos;
        EXPECT_TRUE(in_grid_tables) << f.at("disassembly");
    }
    expect_status("out", "small-palette", "equivalent");
}

} // namespace
} // namespace refcheck::cli_test
