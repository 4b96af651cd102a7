// Exit status 2: a bad case file, a missing image, a profile that lacks an address a case needs,
// a profile made for another image.
// The message names what is wrong, and nothing runs (no run index is written).
#include "cli_support.hpp"
#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/hash.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace refcheck::cli_test {
namespace {

// The lines of a message, trimmed (a profile's missing names are listed one per line).
std::set<std::string> lines(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto b = line.find_first_not_of(' ');
        if (b != std::string::npos) out.insert(line.substr(b));
    }
    return out;
}

class ErrorTest : public CliTest {
protected:
    // Runs `refcheck run ARGS --data small --out out` and expects exit 2, nothing written.
    Result run_fails(const std::string& args) {
        Result r = refcheck("run " + args + " --data " + quote(kSmallData) + " --out out");
        EXPECT_EQ(r.code, 2) << r.out << r.err;
        EXPECT_FALSE(fs::exists(path("out/run.json"))) << "something ran: " << r.out;
        EXPECT_FALSE(r.err.empty());
        return r;
    }
};

TEST_F(ErrorTest, CaseFileWithAnUnknownKey) {
    ojson j = small_program().to_json();
    j["tolerence"] = {{"grid_rounding", 5}}; // misspelt
    const fs::path file = write_case("typo", j);
    const Result r = run_fails(quote(file) + " " + quote(shipped_case("loader")));
    EXPECT_NE(r.err.find("tolerence"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(file.filename().string()), std::string::npos) << r.err;
    // The same case spelt right runs.
    j.erase("tolerence");
    const Result ok =
        refcheck("run " + quote(write_case("typo", j)) + " --data " + quote(kSmallData) + " --out ok");
    EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
}

// A case file or profile nested 100,000 deep (200 KB) is refused as such, naming the file: copying
// it overflowed refcheck's stack (SIGSEGV, no report). show refuses such a report the same way.
TEST_F(ErrorTest, JsonNestedTooDeepIsRefusedNamingTheFile) {
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    const fs::path case_file = path("deep.json");
    std::ofstream(case_file) << R"({"schema": "refcheck-case/1", "family": "loader", "selection": )" << deep
                             << "}\n";
    const Result r = refcheck("run " + quote(case_file) + " --data " + quote(kSmallData) + " --out deep");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("deep.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nested deeper than 256 levels"), std::string::npos) << r.err;

    std::string text = read_text(kProfile);
    text.insert(text.rfind('}'), R"(, "deep": )" + deep);
    const fs::path profile = path("deep.profile.json");
    std::ofstream(profile) << text;
    const Result p = refcheck("run " + quote(shipped_case("loader")) + " --profile " + quote(profile) +
                              " --data " + quote(kSmallData) + " --out deep-profile");
    EXPECT_EQ(p.code, 2) << p.out << p.err;
    EXPECT_NE(p.err.find("deep.profile.json"), std::string::npos) << p.err;
    EXPECT_NE(p.err.find("nested deeper than 256 levels"), std::string::npos) << p.err;

    const fs::path deep_report = path("deep-report.json");
    std::ofstream(deep_report) << R"({"case": "x", "family": "loader", "status": "equivalent", "x": )" << deep
                               << "}\n";
    const Result show = refcheck("show " + quote(deep_report));
    EXPECT_EQ(show.code, 2) << show.out << show.err;
    EXPECT_NE(show.err.find("nested deeper than 256 levels"), std::string::npos) << show.err;
}

// A key given twice in one object of a case file: nlohmann kept the later value, so a case giving
// "selection" twice ran on whichever came last, silently. It is refused, naming the file and key.
TEST_F(ErrorTest, ACaseFileGivingAKeyTwiceIsRefusedNamingTheFileAndTheKey) {
    const std::string selection = small_program().to_json().at("selection").dump();
    const fs::path file = path("twice.json");
    std::ofstream(file)
        << R"({"schema": "refcheck-case/1", "family": "program", "description": "twice", "selection": )"
        << selection << R"(, "selection": )" << selection << "}\n";
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out twice");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("twice.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the key \"selection\" twice"), std::string::npos) << r.err;
}

TEST_F(ErrorTest, CaseAllowingADivergenceOutsideTheRegistry) {
    ProgramCase pc = small_program();
    pc.allow = {"missing_normal", "rounding_whatever"};
    const Result r = run_fails(quote(write_case("invented", pc.to_json())));
    EXPECT_NE(r.err.find("rounding_whatever"), std::string::npos) << r.err;
}

// "generated:NAME" names a root the build generates under its data folder: a NAME climbing out
// of it ran the case on any folder, "/" too ("generated:../../..").
TEST_F(ErrorTest, AGeneratedDataRootOutsideTheBuildsDataFolder) {
    for (const std::string data :
         {"generated:../../..", "generated:/tmp", "generated:hostile/../../x", "generated:"}) {
        ojson j = read_json(shipped_case("loader"));
        j["data"] = data;
        const Result r = run_fails(quote(write_case("climbing", j)));
        EXPECT_NE(r.err.find("names no generated data root"), std::string::npos) << data << "\n" << r.err;
    }
}

TEST_F(ErrorTest, MissingImage) {
    const Result r = run_fails(quote(shipped_case("loader")) + " --image /nonexistent/original.exe");
    EXPECT_NE(r.err.find("/nonexistent/original.exe"), std::string::npos) << r.err;
}

TEST_F(ErrorTest, ProfileLackingAnAddressTheCaseNeeds) {
    ojson profile = read_json(kProfile);
    bool blanked = false;
    for (auto& routine : profile.at("routines"))
        if (routine.at("name") == "draw_3d_object_") {
            routine["address"] = "";
            blanked = true;
        }
    ASSERT_TRUE(blanked) << "the stand-in's profile has no draw_3d_object_";
    const fs::path file = path("no-draw.profile.json");
    std::ofstream(file) << profile.dump(1) << "\n";

    const fs::path program = write_case("small-program", small_program().to_json());
    const Result r =
        run_fails(quote(shipped_case("loader")) + " " + quote(program) + " --profile " + quote(file));
    EXPECT_TRUE(lines(r.err).count("draw_3d_object_")) << r.err;
    EXPECT_EQ(r.err.find("construct_3d_object_"), std::string::npos)
        << "only the missing address is named: " << r.err;
    // A case that does not need draw_3d_object_ runs with the same profile.
    const Result loader = refcheck("run " + quote(shipped_case("loader")) + " --profile " + quote(file) +
                                   " --data " + quote(kSmallData) + " --out loader");
    EXPECT_EQ(loader.code, 0) << loader.out << loader.err;
}

// A profile's image_base is where its addresses are: one that is not the image's own (its PE header's
// ImageBase) is refused by `run` and by `call`, naming both. `run` used the profile's addresses as
// they stood and `call` moved them by the difference, so the same profile ran the right code in
// one and the wrong code in the other.
TEST_F(ErrorTest, ProfileOfAnotherImageBase) {
    ojson profile = read_json(kProfile);
    ASSERT_EQ(profile.at("image_base"), "0x00400000") << "the stand-in's base moved: the test needs another";
    profile["image_base"] = "0x10000000";
    const fs::path file = path("moved.profile.json");
    std::ofstream(file) << profile.dump(1) << "\n";
    const Result r = refcheck("run " + quote(shipped_case("palette")) + " --profile " + quote(file) +
                              " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson report = read_json(path("out/palette.json"));
    EXPECT_EQ(report.at("status"), "error");
    const std::string error = report.at("error").get<std::string>();
    EXPECT_NE(error.find("moved.profile.json gives image_base 0x10000000, but standin.exe's PE header gives "
                         "0x00400000"),
              std::string::npos)
        << error;
    const Result call = refcheck("call " + quote(kImage) + " initialise_3d_palette_ --profile " +
                                 quote(file) + " --data " + quote(kSmallData));
    EXPECT_EQ(call.code, 2) << call.out << call.err;
    EXPECT_NE(call.err.find("gives image_base 0x10000000"), std::string::npos) << call.err;
}

// A profile's data entry that does not lie inside the image (a framebuffer of 4294967295 bytes) is
// refused naming it: the harness allocated 4 GiB for the framebuffer before the guest write failed.
TEST_F(ErrorTest, ProfileDataOutsideTheImage) {
    ojson profile = read_json(kProfile);
    for (auto& d : profile.at("data"))
        if (d.at("name") == "framebuffer") d["size"] = 4294967295u;
    const fs::path file = path("huge.profile.json");
    std::ofstream(file) << profile.dump(1) << "\n";
    const Result r = refcheck("run " + quote(shipped_case("loader")) + " --profile " + quote(file) +
                              " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson report = read_json(path("out/loader.json"));
    const std::string error = report.value("error", std::string());
    EXPECT_NE(error.find("huge.profile.json gives data \"framebuffer\" 4294967295 bytes at " +
                         emu::hex(profile_data_address("framebuffer"))),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("which is not inside standin.exe"), std::string::npos) << error;
}

// A profile names the image it was made for (profilegen writes "image_sha256"): run with another
// image, nothing runs and the message names both files and both hashes.
TEST_F(ErrorTest, ProfileOfAnotherImage) {
    const std::string made_for = read_json(kProfile).at("image_sha256").get<std::string>();
    ASSERT_EQ(made_for, harness::sha256_file(kImage)) << "profilegen wrote another image's hash";
    const fs::path other = path("rebuilt-standin.exe");
    fs::copy_file(kImage, other);
    std::ofstream(other, std::ios::binary | std::ios::app) << '\0'; // one byte of overlay: another image
    const std::string other_sha = harness::sha256_file(other);
    const Result r = run_fails(quote(shipped_case("loader")) + " --image " + quote(other));
    EXPECT_NE(r.err.find(made_for), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(other_sha), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(other.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(kProfile.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("belongs to another image"), std::string::npos) << r.err;
    // Untied (no hash, as in the template) the same pair runs.
    ojson untied = read_json(kProfile);
    untied["image_sha256"] = "";
    const fs::path file = path("untied.profile.json");
    std::ofstream(file) << untied.dump(1) << "\n";
    const Result ok = refcheck("run " + quote(shipped_case("loader")) + " --image " + quote(other) +
                               " --profile " + quote(file) + " --data " + quote(kSmallData) + " --out ok");
    EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
}

TEST_F(ErrorTest, RealImageTemplateNamesEveryMissingAddress) {
    const ojson tpl = read_json(kTemplate);
    std::vector<std::string> names;
    for (const char* section : {"routines", "data"})
        for (const auto& entry : tpl.at(section)) {
            EXPECT_EQ(entry.at("address"), "") << entry.at("name") << ": a template ships no address";
            // The one optional global: no case needs it (without it a hostile case's reason is not
            // compared, and its report says so; HostileTest.TheReasonsNumberIsTheProfilesForTheCasesName).
            if (entry.at("name") != "initialise_error") names.push_back(entry.at("name").get<std::string>());
        }
    for (const char* needed :
         {"initialise_3d_objects_", "draw_3d_object_", "construct_3d_object_", "initialise_3d_palette_",
          "polygon_winding_", "draw_attached_object_", "draw_3d_object_shadow_", "build_mobile_queue_",
          "shadow_plane_height_", "draw_scene_", "sample_terrain_height_"})
        EXPECT_NE(std::find(names.begin(), names.end(), needed), names.end())
            << needed << " not in the template";

    // Every family at once: the template lacks every address, and the run names them all.
    const fs::path program = write_case("small-program", small_program().to_json());
    const Result r =
        run_fails(join({shipped_case("loader"), shipped_case("palette"), shipped_case("construct"),
                        shipped_case("shadows"), shipped_case("mobiles"), shipped_case("receivers"),
                        shipped_case("scenes"), shipped_case("coverage-scene-terrain-map"), program}) +
                  " --image " + quote(kImage) + " --profile " + quote(kTemplate));
    const auto named = lines(r.err);
    for (const auto& name : names) EXPECT_TRUE(named.count(name)) << name << " not named:\n" << r.err;

    // A program case alone names every routine its recorder taps: the state switches were looked up
    // only after the boot, and a profile without them failed there with "no address for op_ifmask".
    const Result alone =
        run_fails(quote(program) + " --image " + quote(kImage) + " --profile " + quote(kTemplate));
    const auto named_alone = lines(alone.err);
    for (const char* name : {"op_ifmask", "op_choose", "op_select", "run_program", "draw_attached_object_"})
        EXPECT_TRUE(named_alone.count(name)) << name << " not named:\n" << alone.err;
}

// A case is named by its file's stem and its report by the case: d1/x.json and d2/x.json in one run
// wrote one report over the other, and a divergent case's evidence was lost. Refused, naming both;
// so is a case named "run", whose report run.json would replace.
TEST_F(ErrorTest, CaseFilesOfOneNameAreRefusedNamingBoth) {
    fs::create_directories(path("d1"));
    fs::create_directories(path("d2"));
    std::ofstream(path("d1/x.json")) << read_text(shipped_case("loader"));
    std::ofstream(path("d2/x.json")) << small_palette().dump(1);
    const Result r = run_fails(quote(path("d1/x.json")) + " " + quote(path("d2/x.json")));
    EXPECT_NE(r.err.find("case files " + path("d1/x.json").string() + " and " + path("d2/x.json").string() +
                         " have the same name \"x\""),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("out/x.json")));
    const Result run = run_fails(quote(write_case("run", read_json(shipped_case("loader")))));
    EXPECT_NE(run.err.find("is named \"run\", as the run's index run.json is"), std::string::npos) << run.err;
    // mutate reads its cases by name too.
    const Result m = refcheck("mutate " + quote(path("d1/x.json")) + " " + quote(path("d2/x.json")) +
                              " --data " + quote(kSmallData) + " --out m");
    EXPECT_EQ(m.code, 2) << m.out << m.err;
    EXPECT_NE(m.err.find("have the same name \"x\""), std::string::npos) << m.err;
}

// A routine refcheck replaces (the terrain sampler, scene.sampler) reads its arguments in its
// convention's order: a profile placing them otherwise (here x in edx and z in eax) would hand the
// replacement each other's values, so the case is an error naming the argument, not a run on
// swapped coordinates.
TEST_F(ErrorTest, AReplacedRoutineWhoseArgumentsAreOutOfTheConventionsOrderIsRefused) {
    ojson profile = read_json(kProfile);
    for (auto& r : profile.at("routines"))
        if (r.at("name") == "sample_terrain_height_") {
            r.at("args").at(0)["reg"] = "edx";
            r.at("args").at(1)["reg"] = "eax";
        }
    const fs::path swapped = path("swapped.profile.json");
    std::ofstream(swapped) << profile.dump(1) << "\n";
    const Result r = refcheck("run " + quote(shipped_case("coverage-scene-cameras")) + " --profile " +
                              quote(swapped) + " --out o");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson j = read_json(path("o/coverage-scene-cameras.json"));
    EXPECT_EQ(j.at("status"), "error");
    EXPECT_NE(j.value("error", "").find("argument \"x\" is in \"edx\""), std::string::npos) << j.dump();
}

} // namespace
} // namespace refcheck::cli_test
