// The error report of a case whose worker died (harness/src/run/workers.hpp, issue 19): valid against
// the case-report schema, naming no host path, and the reproduce line runs the whole case alone.
#include "json_schema.hpp"
#include "run/workers.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

ojson validate(const ojson& report) {
    refcheck::test::SchemaSet schemas;
    schemas.add_file(fs::path(REFCHECK_SOURCE_DIR) / "reports" / "case-report.schema.json");
    ojson out = ojson::array();
    for (const auto& v : schemas.validate(report, "case-report.schema.json")) out.push_back(v);
    return out;
}

TEST(CrashReport, SignalDeathInsideACall) {
    Case c;
    c.name = "prog";
    c.file = "/some/where/cases/prog.json";
    c.family = Family::Program;
    RunOptions o;
    o.data = "/host/data/small";
    o.injection.patches.push_back(parse_patch("build_grid_tables+0xc8:83c60d"));
    WorkerDeath d;
    d.signal = 11;
    d.input = "record 1 view 0 light 0 state 0";
    d.routine = "draw_3d_object_";
    d.in_call = true;
    d.eip = 0x004032e0;
    const CaseResult r = crash_result(c, o, d);
    EXPECT_EQ(r.status, Status::Error);
    const ojson& j = r.report;
    EXPECT_EQ(j.at("status"), "error");
    EXPECT_EQ(j.at("crash").at("signal_name"), "SIGSEGV");
    EXPECT_EQ(j.at("crash").at("last_eip"), "0x004032e0");
    const std::string reproduce = j.at("crash").at("reproduce").get<std::string>();
    EXPECT_EQ(
        reproduce,
        "refcheck run prog.json --data small --patch build_grid_tables+0xc8:83c60d --jobs 1 --out out/crash");
    EXPECT_EQ(j.at("error"), "crash: the worker process running this case was killed by signal 11 (SIGSEGV) "
                             "in input \"record 1 view 0 "
                             "light 0 state 0\" while the original ran draw_3d_object_ (last guest EIP known "
                             "0x004032e0); reproduce: " +
                                 reproduce);
    EXPECT_EQ(j.dump().find("/host/"), std::string::npos);
    EXPECT_EQ(j.dump().find("/some/"), std::string::npos);
    // Its files do not exist here: the report says it could not hash them, by file name.
    EXPECT_FALSE(j.contains("inputs"));
    EXPECT_EQ(j.at("crash").value("inputs_not_hashed", "").rfind("cannot read ", 0), 0u) << j.at("crash");
    EXPECT_EQ(validate(j), ojson::array());
}

TEST(CrashReport, ExitBeforeAnyInput) {
    Case c;
    c.name = "mob";
    c.file = "cases/mob.json";
    c.family = Family::Mobile;
    WorkerDeath d;
    d.exit_code = 3;
    const ojson j = crash_result(c, RunOptions{}, d).report;
    EXPECT_EQ(j.at("crash").at("exit_status"), 3);
    EXPECT_TRUE(j.at("crash").at("input").is_null());
    EXPECT_TRUE(j.at("crash").at("last_eip").is_null());
    EXPECT_NE(j.at("error").get<std::string>().find(
                  "exited with status 3 without sending its result before any input began"),
              std::string::npos);
    EXPECT_EQ(validate(j), ojson::array());
}

} // namespace
} // namespace refcheck::harness
