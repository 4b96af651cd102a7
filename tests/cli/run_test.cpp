// `refcheck run` on the small archives: a clean run of the shipped loader, palette and construct
// cases and a small program case is equivalent, and every output says so in full.
#include "cli_support.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace refcheck::cli_test {
namespace {

class RunTest : public CliTest {};

bool is_sha256(const ojson& j) {
    static const std::regex hex64("^[0-9a-f]{64}$");
    return j.is_string() && std::regex_match(j.get<std::string>(), hex64);
}

std::set<std::string> names(const ojson& list) {
    std::set<std::string> out;
    for (const auto& n : list) out.insert(n.get<std::string>());
    return out;
}

const ojson* file_access(const ojson& report, const std::string& guest_path) {
    for (const auto& f : report.at("files"))
        if (f.at("path") == guest_path) return &f;
    return nullptr;
}

void expect_common_report(const ojson& r, const std::string& name, const std::string& family) {
    SCOPED_TRACE(name);
    EXPECT_EQ(r.at("schema"), "refcheck-case-report/1");
    EXPECT_EQ(r.at("case"), name);
    EXPECT_EQ(r.at("family"), family);
    EXPECT_EQ(r.at("status"), "equivalent");
    EXPECT_FALSE(r.contains("error"));
    EXPECT_FALSE(r.contains("first_unexplained"));
    EXPECT_FALSE(r.contains("injected"));
    // What ran on what: the image, the profile and every archive by SHA-256.
    const ojson& in = r.at("inputs");
    EXPECT_EQ(in.at("image").at("file"), kImage.filename().string());
    EXPECT_EQ(in.at("image").at("sha256"), sha256_of(kImage));
    EXPECT_EQ(in.at("profile").at("file"), kProfile.filename().string());
    EXPECT_EQ(in.at("profile").at("sha256"), sha256_of(kProfile));
    for (const char* archive : {"3DDATA/3DOBJS.BIN", "3DDATA/OBJTEXT.BIN", "3DPAL.RGB"}) {
        ASSERT_TRUE(in.at("archives").contains(archive)) << archive;
        EXPECT_TRUE(is_sha256(in.at("archives").at(archive))) << archive;
        EXPECT_EQ(in.at("archives").at(archive), sha256_of(kSmallData / archive)) << archive;
    }
    // The files the original read: both archives, whole.
    for (const char* guest : {"3DDATA\\3DOBJS.BIN", "3DDATA\\OBJTEXT.BIN"}) {
        const ojson* f = file_access(r, guest);
        ASSERT_NE(f, nullptr) << guest << " not among the files read: " << r.at("files").dump();
        EXPECT_EQ(f->at("mode"), "read");
        EXPECT_EQ(f->at("routine"), "initialise_3d_objects_");
        EXPECT_EQ(f->at("refused"), false);
        EXPECT_GT(f->at("bytes_read").get<std::uint64_t>(), 0u);
        std::string host = guest;
        std::replace(host.begin(), host.end(), '\\', '/');
        EXPECT_EQ(f->at("bytes_read").get<std::uint64_t>(), fs::file_size(kSmallData / host)) << guest;
    }
    EXPECT_TRUE(names(r.at("hooks").at("ran")).count("initialise_3d_objects_"));
    // Counts: something was compared, and everything compared matched or is a known divergence.
    const ojson& c = r.at("counts");
    EXPECT_GT(c.at("compared").get<std::uint64_t>(), 0u);
    EXPECT_EQ(c.at("unexplained"), 0);
    EXPECT_EQ(c.at("matched").get<std::uint64_t>(),
              c.at("compared").get<std::uint64_t>() - c.at("known").get<std::uint64_t>());
    EXPECT_TRUE(r.at("faults").empty()) << r.at("faults").dump();
}

TEST_F(RunTest, CleanRunOfShippedCasesAndAProgramCaseIsEquivalent) {
    const fs::path program = write_case("small-program", small_program().to_json());
    const Result run = refcheck(
        "run " + join({shipped_case("loader"), shipped_case("palette"), shipped_case("construct"), program}) +
        " --data " + quote(kSmallData) + " --out out");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("HTML report: "), std::string::npos) << run.out;

    const std::vector<std::pair<std::string, std::string>> cases = {{"construct", "construct"},
                                                                    {"loader", "loader"},
                                                                    {"palette", "palette"},
                                                                    {"small-program", "program"}};
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("schema"), "refcheck-run/1");
    EXPECT_EQ(index.at("status"), "equivalent");
    ASSERT_EQ(index.at("cases").size(), cases.size());
    EXPECT_EQ(index.at("totals").at("cases"), cases.size());
    EXPECT_EQ(index.at("totals").at("equivalent"), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const ojson& row = index.at("cases").at(i);
        EXPECT_EQ(row.at("case"), cases[i].first); // sorted by name
        EXPECT_EQ(row.at("status"), "equivalent");
        EXPECT_EQ(row.at("report"), cases[i].first + ".json");
    }

    const std::string junit = read_text(path("out/junit.xml"));
    EXPECT_EQ(count_of(junit, "<testcase "), cases.size()) << junit;
    EXPECT_EQ(count_of(junit, "<failure"), 0u) << junit;
    EXPECT_EQ(count_of(junit, "<error"), 0u) << junit;
    const std::string html = read_text(path("out/index.html"));
    for (const auto& [name, family] : cases) {
        EXPECT_NE(junit.find("name=\"" + name + "\""), std::string::npos) << name;
        EXPECT_NE(html.find(name), std::string::npos) << name;
        expect_common_report(read_json(path("out/" + name + ".json")), name, family);
    }

    // The program case: every face routine replaced by a recorder, the draw entry run, events of
    // every kind compared.
    const ojson program_report = read_json(path("out/small-program.json"));
    const auto replaced = names(program_report.at("hooks").at("replaced"));
    for (const auto& routine : kFaceRoutines) EXPECT_TRUE(replaced.count(routine)) << routine;
    EXPECT_TRUE(names(program_report.at("hooks").at("ran")).count("draw_3d_object_"));
    const ojson& by_kind = program_report.at("counts").at("by_kind");
    for (const char* kind : {"face_draw", "attached_draw", "winding_decision"})
        EXPECT_GT(by_kind.value(kind, 0), 0) << kind;
    const ProgramCase pc = small_program();
    EXPECT_EQ(program_report.at("metrics").at("inputs"),
              pc.records.size() * pc.views.size() * pc.lights.size() * pc.states.size());
    // The palette case: initialise_3d_palette_ read the whole palette file once per warzone it
    // builds (0..3; the one past them, refused, reads nothing).
    const ojson palette = read_json(path("out/palette.json"));
    const ojson palette_case = read_json(shipped_case("palette"));
    std::size_t palette_reads = 0;
    for (const auto& f : palette.at("files"))
        if (f.at("path") == "3DPAL.RGB") {
            ++palette_reads;
            EXPECT_EQ(f.at("routine"), "initialise_3d_palette_");
            EXPECT_EQ(f.at("bytes_read").get<std::uint64_t>(), fs::file_size(kSmallData / "3DPAL.RGB"));
        }
    std::size_t built = 0;
    for (const auto& w : palette_case.at("selection").at("warzones")) built += w.get<int>() <= 3 ? 1 : 0;
    ASSERT_LT(built, palette_case.at("selection").at("warzones").size()) << "the case refuses a warzone";
    EXPECT_EQ(palette_reads, built);
    // The loader replaces nothing.
    EXPECT_TRUE(read_json(path("out/loader.json")).at("hooks").at("replaced").empty());
}

// hooks.ran says which routines ran: each listed one executed (its coverage counts blocks), and a
// routine the family set up for that never executed is "not_run". note_ran was said as a family
// set its calls up, so a program case whose programs end before any choose listed op_choose as run
// with 0 of its blocks executed.
TEST_F(RunTest, HooksRanListsOnlyRoutinesTheCoverageSawRun) {
    const Result r = refcheck("run " + quote(shipped_case("program-edge-end-return")) + " --out o");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const ojson report = read_json(path("o/program-edge-end-return.json"));
    const ojson& hooks = report.at("hooks");
    const ojson& routines = report.at("coverage").at("routines");
    ASSERT_FALSE(hooks.at("ran").empty());
    for (const auto& name : hooks.at("ran")) {
        ASSERT_TRUE(routines.contains(name.get<std::string>())) << name;
        EXPECT_GT(routines.at(name.get<std::string>()).at("executed").get<int>(), 0) << name;
    }
    for (const auto& name : hooks.at("not_run")) {
        if (routines.contains(name.get<std::string>())) {
            EXPECT_EQ(routines.at(name.get<std::string>()).at("executed"), 0) << name;
        }
    }
    EXPECT_TRUE(names(hooks.at("not_run")).count("op_choose")) << hooks.dump();
    EXPECT_TRUE(names(hooks.at("ran")).count("draw_3d_object_")) << hooks.dump();
}

} // namespace
} // namespace refcheck::cli_test
