// `refcheck show`, `refcheck dump` and `--help` everywhere.
#include "cli_support.hpp"

#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

namespace refcheck::cli_test {
namespace {

class SubcommandTest : public CliTest {
protected:
    // A divergent program report (the reimplementation given a swapped light) and an equivalent one.
    void run_divergent() {
        const std::string files =
            join({shipped_case("loader"), write_case("small-program", small_program().to_json())});
        const Result r = refcheck("run " + files + " --data " + quote(kSmallData) +
                                  " --out out --inject-reimpl-light-swap");
        ASSERT_EQ(r.code, 1) << r.out << r.err;
    }
    // Expects `show` output to print the report's first unexplained divergence.
    void expect_shows_first_divergence(const Result& r, const ojson& report) {
        const ojson& d = report.at("first_unexplained");
        EXPECT_NE(r.out.find("case small-program (program): divergent"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("at input " + d.at("input").get<std::string>() + ":"), std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("original event #" + d.at("original_index").dump()), std::string::npos) << r.out;
        ASSERT_FALSE(d.at("fields").empty());
        for (const auto& f : d.at("fields"))
            EXPECT_NE(r.out.find("field " + f.at("field").get<std::string>() + ": " +
                                 f.at("diff").get<std::string>()),
                      std::string::npos)
                << r.out;
    }
};

TEST_F(SubcommandTest, ShowPrintsTheFirstDivergenceOfADivergentReport) {
    ASSERT_NO_FATAL_FAILURE(run_divergent());
    const Result r = refcheck("show out/small-program.json");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("out/small-program.json"));
    expect_shows_first_divergence(r, report);
    // The drill-down the run stored with the divergent case, as bisect prints it.
    ASSERT_TRUE(report.contains("bisect"));
    EXPECT_NE(r.out.find("error: first divergence at event"), std::string::npos) << r.out;
    const std::string reproduce = report.at("bisect").at("reproduce").get<std::string>();
    EXPECT_NE(r.out.find("reproduce: " + reproduce), std::string::npos) << r.out;

    const Result equivalent = refcheck("show out/loader.json");
    EXPECT_EQ(equivalent.code, 0) << equivalent.out << equivalent.err;
    EXPECT_NE(equivalent.out.find("case loader (loader): equivalent"), std::string::npos) << equivalent.out;
    EXPECT_EQ(equivalent.out.find("divergence"), std::string::npos) << equivalent.out;

    const Result not_a_report = refcheck("show out/run.json");
    EXPECT_EQ(not_a_report.code, 2) << not_a_report.out << not_a_report.err;
}

// `--event N`: "Show recorded divergence N (0 = the first unexplained)".
TEST_F(SubcommandTest, ShowEventZeroIsTheFirstUnexplainedDivergence) {
    ASSERT_NO_FATAL_FAILURE(run_divergent());
    const Result r = refcheck("show out/small-program.json --event 0");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    expect_shows_first_divergence(r, read_json(path("out/small-program.json")));
    EXPECT_NE(r.out.find("\ndivergence 0 of 1 recorded: the first unexplained\n"), std::string::npos)
        << r.out;
}

TEST_F(SubcommandTest, DumpListsEveryInstructionOfTheRecordsProgram) {
    const std::uint32_t record = 1;
    const Result r = refcheck("dump " + std::to_string(record) + " --data " + quote(kSmallData));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    const reimpl::Program program = reimpl::decode_program(models, record);
    ASSERT_FALSE(program.empty());
    EXPECT_NE(r.out.find("record 1 \"" + models.record(record).name() + "\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::to_string(program.instructions.size()) + " instructions"), std::string::npos);
    // One line per instruction: its offset, then its opcode's name.
    std::map<std::string, std::string> lines; // offset -> line
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (line.size() > 6 && (line[0] == ' ' || line[0] == '>')) lines[line.substr(1, 4)] = line;
    for (const auto& [offset, instruction] : program.instructions) {
        char key[8];
        std::snprintf(key, sizeof key, "%04x", offset);
        ASSERT_TRUE(lines.count(key)) << "no line for +" << key;
        EXPECT_NE(lines.at(key).find(std::string(reimpl::opcode_name(instruction.opcode))), std::string::npos)
            << lines.at(key);
    }
    for (const char* op : {"primary", "secondary", "plane"})
        EXPECT_NE(r.out.find(op), std::string::npos) << op;

    const Result missing = refcheck("dump 100000 --data " + quote(kSmallData));
    EXPECT_EQ(missing.code, 2) << missing.out << missing.err;
}

TEST_F(SubcommandTest, HelpExitsZeroForEverySubcommand) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> helps = {
        {"", {"run", "merge", "show", "dump"}},
        {"run",
         {"--image", "--profile", "--data", "--out", "--jobs", "--shard", "--patch",
          "--inject-reimpl-light-swap"}},
        {"merge", {"--out"}},
        {"show", {"--event"}},
        {"dump", {"--data"}}};
    for (const auto& [sub, options] : helps) {
        const Result r = refcheck(sub + " --help");
        EXPECT_EQ(r.code, 0) << sub << ": " << r.out << r.err;
        for (const auto& o : options)
            EXPECT_NE(r.out.find(o), std::string::npos) << sub << " --help lacks " << o;
    }
    const Result none = refcheck("");
    EXPECT_EQ(none.code, 2) << "no subcommand is an error";
    const Result unknown = refcheck("run --no-such-option");
    EXPECT_EQ(unknown.code, 2);
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// dump and workbench find a data root's archives as the guest (and run) do: a lower-case copy of the
// game's folder is read, and an archive that is not a regular file (a FIFO, which a plain read
// blocked on for ever) is an error naming it.
TEST_F(SubcommandTest, DumpAndWorkbenchFindArchivesAsTheGuestDoes) {
    const fs::path lower = path("lower");
    fs::create_directories(lower / "3ddata");
    fs::copy_file(kSmallData / "3DDATA" / "3DOBJS.BIN", lower / "3ddata" / "3dobjs.bin");
    fs::copy_file(kSmallData / "3DDATA" / "OBJTEXT.BIN", lower / "3ddata" / "objtext.bin");
    fs::copy_file(kSmallData / "3DPAL.RGB", lower / "3dpal.rgb");
    const Result dump = refcheck("dump 1 --data " + quote(lower));
    EXPECT_EQ(dump.code, 0) << dump.out << dump.err;
    EXPECT_NE(dump.out.find("record 1 \""), std::string::npos) << dump.out;
    const Result site = refcheck("workbench --records 1 --data " + quote(lower) + " --out site");
    EXPECT_EQ(site.code, 0) << site.out << site.err;
    EXPECT_TRUE(fs::exists(path("site/index.html")));

    const fs::path pipe = path("pipe");
    fs::create_directories(pipe / "3DDATA");
    fs::copy_file(kSmallData / "3DDATA" / "OBJTEXT.BIN", pipe / "3DDATA" / "OBJTEXT.BIN");
    fs::copy_file(kSmallData / "3DPAL.RGB", pipe / "3DPAL.RGB");
    ASSERT_EQ(::mkfifo((pipe / "3DDATA" / "3DOBJS.BIN").c_str(), 0644), 0);
    for (const std::string& command :
         {"dump 1 --data " + quote(pipe), "workbench --records 1 --data " + quote(pipe) + " --out site2"}) {
        const Result r = refcheck(command);
        EXPECT_EQ(r.code, 2) << command << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("3DOBJS.BIN"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("is not a regular file"), std::string::npos) << r.err;
    }
}

// A site written into the folder of an earlier one keeps none of the earlier per-record files: record
// 1's page stayed, from other archives, and a report's link drew it as the run's record. Files the
// workbench does not write stay.
TEST_F(SubcommandTest, AWorkbenchSiteKeepsNoRecordPageOfAnEarlierSite) {
    const std::string data = " --data " + quote(kSmallData);
    ASSERT_EQ(refcheck("workbench --records 1,2" + data + " --out site").code, 0);
    ASSERT_TRUE(fs::exists(path("site/records/r0001.js")));
    ASSERT_TRUE(fs::exists(path("site/thumbs/r0001.png")));
    std::ofstream(path("site/records/notes.txt")) << "mine\n";
    const Result again = refcheck("workbench --records 2" + data + " --out site");
    ASSERT_EQ(again.code, 0) << again.out << again.err;
    EXPECT_FALSE(fs::exists(path("site/records/r0001.js")));
    EXPECT_FALSE(fs::exists(path("site/thumbs/r0001.png")));
    EXPECT_TRUE(fs::exists(path("site/records/r0002.js")));
    EXPECT_TRUE(fs::exists(path("site/records/notes.txt")));
}

// A record name that is not UTF-8 (a code page's "é") is shown with U+FFFD: it stopped the whole
// site with nlohmann's "invalid UTF-8 byte", naming no record, the site half-written.
TEST_F(SubcommandTest, AWorkbenchShowsANameThatIsNotUtf8) {
    fs::copy(kSmallData, path("data"), fs::copy_options::recursive);
    const fs::path objects = path("data/3DDATA/3DOBJS.BIN");
    std::vector<std::uint8_t> bytes = reimpl::read_file_bytes(objects);
    const auto before = reimpl::ModelArchive::parse(bytes);
    const std::string name = before.record(1).name();
    ASSERT_GE(name.size(), 2u);
    const auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
    ASSERT_NE(at, bytes.end());
    *(at + 1) = 0xe9;
    std::ofstream(objects, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto after = reimpl::ModelArchive::parse(bytes);
    ASSERT_EQ(after.record(1).name()[1], '\xe9') << "not record 1's name";
    const Result r = refcheck("workbench --records 1 --data " + quote(path("data")) + " --out site");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const std::string page = read_text(path("site/records/r0001.js"));
    EXPECT_NE(page.find(name.substr(0, 1) + "\xef\xbf\xbd" + name.substr(2)), std::string::npos);
    EXPECT_TRUE(fs::exists(path("site/index.html")));
}

// --records is read strictly: 4294967297 wrapped to record 1, 1-2x read as 1-2, 1,1 exported record
// 1 twice, and "1," said only "stoul".
TEST_F(SubcommandTest, WorkbenchRecordsAreReadStrictly) {
    for (const auto& [list, needle] :
         std::vector<std::pair<std::string, std::string>>{{"4294967297", "past the last possible record"},
                                                          {"1-2x", "\"2x\" is not a record number"},
                                                          {"1,1", "record 1 is given twice"},
                                                          {"1,", "\"\" is not a record number"},
                                                          {"3-1", "runs backwards"},
                                                          {"0-4294967295", "longer than any archive"}}) {
        const Result r =
            refcheck("workbench --records " + list + " --data " + quote(kSmallData) + " --out w");
        EXPECT_EQ(r.code, 2) << list << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << list << "\n" << r.err;
    }
}

} // namespace
} // namespace refcheck::cli_test
