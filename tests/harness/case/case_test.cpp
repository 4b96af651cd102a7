// Case files: valid cases load; bad ones fail naming the file and the key.
#include "refcheck/harness/case.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

using namespace refcheck::harness;

namespace {
std::filesystem::path write(const std::string& name, const std::string& text) {
    auto dir = std::filesystem::path(testing::TempDir()) / "cases";
    std::filesystem::create_directories(dir);
    auto p = dir / name;
    std::ofstream(p) << text;
    return p;
}
std::string error_of(const std::filesystem::path& p) {
    try {
        load_case(p);
    } catch (const CaseError& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST(Case, LoadsAProgramCase) {
    auto p = write("prog.json", R"({"schema":"refcheck-case/1","family":"program",
      "selection":{"records":{"encoding":"s16","from":0,"to":9},"views":[{"yaw":30,"pitch":20,"distance":5}],
      "lights":[[0,-16384,0]],"states":[0,1]},"allow":["missing_normal"],"rules":["op.primary"]})");
    Case c = load_case(p);
    EXPECT_EQ(c.name, "prog");
    EXPECT_EQ(c.family, Family::Program);
    EXPECT_EQ(c.records.encoding, "s16");
    EXPECT_EQ(*c.records.to, 9u);
    ASSERT_EQ(c.views.size(), 1u);
    EXPECT_EQ(c.views[0].yaw, 30);
    EXPECT_EQ(c.states.size(), 2u);
}

TEST(Case, RejectsUnknownKeysFamiliesAndInventedExceptions) {
    EXPECT_NE(error_of(write("a.json", R"({"schema":"refcheck-case/1","family":"loader","colour":1})"))
                  .find("unknown key \"colour\""),
              std::string::npos);
    EXPECT_NE(error_of(write("b.json", R"({"schema":"refcheck-case/1","family":"shadows"})"))
                  .find("unknown family"),
              std::string::npos);
    EXPECT_NE(
        error_of(write("c.json", R"({"schema":"refcheck-case/1","family":"loader","allow":["my_excuse"]})"))
            .find("not in the known-divergence registry"),
        std::string::npos);
    EXPECT_NE(error_of(write("d.json", "{not json")).find("not valid JSON"), std::string::npos);
    EXPECT_NE(error_of(write("e.json", R"({"schema":"refcheck-case/1","family":"program"})"))
                  .find("needs selection.views"),
              std::string::npos);
}

// div.grid_tolerance's half-size: 0 to 65535 (a negative one, or one past 32 bits, overflowed the
// box's arithmetic); a stated refusal reason is read with the rejection.
TEST(Case, RefusesAGridToleranceOutsideItsRangeAndReadsARejectionsReason) {
    const std::string head = R"({"schema":"refcheck-case/1","family":"loader","tolerance":{"grid_rounding":)";
    for (const char* bad : {"-1", "65536", "9223372036854775807"})
        EXPECT_NE(error_of(write("tol.json", head + bad + "}}")).find("0 to 65535"), std::string::npos)
            << bad;
    EXPECT_EQ(load_case(write("tol5.json", head + "5}}")).tolerance, 5);
    const std::string rejects = R"({"schema":"refcheck-case/1","family":"loader",
      "rejects":{"archive":"3DOBJS.BIN","record":null,"reason":)";
    const Case c = load_case(write("rej.json", rejects + R"("objects_table"}})"));
    ASSERT_TRUE(c.rejects);
    EXPECT_EQ(c.rejects->reason, "objects_table");
    // A reason is a name the profile gives the image's number; the number itself is an image's own.
    for (const char* bad : {"2", "\"\"", "null"})
        EXPECT_NE(error_of(write("rejn.json", rejects + bad + "}}")).find("names the reason"),
                  std::string::npos)
            << bad;
}

// A placed view: "position" (and a raw "rotation" with it) replaces the aimed camera; mixing it
// with "distance" or "probe", or giving a rotation with angles or without a position, is refused.
TEST(Case, LoadsPlacedViewsAndRefusesMixedPlacements) {
    const std::string head = R"({"schema":"refcheck-case/1","family":"program",
      "selection":{"records":{"from":0,"to":1},"lights":[[0,-16384,0]],"states":[0],"views":[)";
    const Case c = load_case(write("placed.json", head + R"({"position":[1,-2,1073741900]},
      {"position":[0,0,-3000],"rotation":[1073741824,0,0,0,1073741824,0,0,0,-7]}]}})"));
    ASSERT_EQ(c.views.size(), 2u);
    EXPECT_EQ((*c.views[0].position)[2], 1073741900);
    EXPECT_FALSE(c.views[0].rotation);
    EXPECT_EQ((*c.views[1].rotation)[0], 1073741824);
    EXPECT_EQ((*c.views[1].rotation)[8], -7);
    const struct {
        const char* view;
        const char* says;
    } bad[] = {
        {R"({"position":[0,0,1],"distance":3})", "neither \"distance\" nor \"probe\""},
        {R"({"position":[0,0,1],"probe":[0,0,64]})", "neither \"distance\" nor \"probe\""},
        {R"({"position":[0,1]})", "world point [x, y, z]"},
        {R"({"rotation":[1,0,0,0,1,0,0,0,1]})", "goes with a \"position\""},
        {R"({"yaw":30,"position":[0,0,1],"rotation":[1,0,0,0,1,0,0,0,1]})", "without yaw, pitch or roll"},
        {R"({"position":[0,0,1],"rotation":[1,0,0]})", "nine Q14 words"}};
    for (const auto& b : bad)
        EXPECT_NE(error_of(write("bad-view.json", head + b.view + "]}}")).find(b.says), std::string::npos)
            << b.view << ": " << error_of(write("bad-view.json", head + b.view + "]}}"));
}

// Scene cameras: a case may have fixed cameras without scripts; each needs a position and nine
// rotation words.
TEST(Case, LoadsSceneCamerasAndRefusesMalformedOnes) {
    const std::string head =
        R"({"schema":"refcheck-case/1","family":"scene","selection":{"lights":[[0,-16384,0]],
      "scene":{"cameras":[)";
    const Case c = load_case(
        write("cams.json",
              head + R"({"position":[160,32668,-256],"rotation":[16384,0,0,0,16384,0,0,0,16384]}]}}})"));
    ASSERT_EQ(c.scene.cameras.size(), 1u);
    EXPECT_TRUE(c.scene.scripts.empty());
    EXPECT_EQ(c.scene.cameras[0].position[1], 32668);
    EXPECT_EQ(c.scene.cameras[0].rotation[4], 16384);
    EXPECT_NE(error_of(write("cams-bad.json", head + R"({"position":[0,0,0],"rotation":[1,2]}]}}})"))
                  .find("selection.scene.cameras"),
              std::string::npos);
    EXPECT_NE(error_of(write("cams-none.json", R"({"schema":"refcheck-case/1","family":"scene",
      "selection":{"lights":[[0,-16384,0]],"scene":{}}})"))
                  .find("scripts or selection.scene.cameras"),
              std::string::npos);
}

TEST(Case, LoadsMobileScriptsAndRefusesStepsThatNameNoMobile) {
    const std::string head = R"({"schema":"refcheck-case/1","family":"mobile","selection":{"script":[)";
    const Case c = load_case(write("script.json", head + R"(
      {"add":1,"model":2,"position":[10,20,30],"yaw":90,"links":[16,32],
       "camera":{"position":[1,2,3],"rotation":[16384,0,0,0,16384,0,0,0,32768]}},
      {"move":1,"position":[40,50,60]},{"remove":1},{"remove":1}]}})"));
    ASSERT_EQ(c.mobile_script.size(), 4u);
    EXPECT_EQ(c.steps, 4u);
    EXPECT_EQ(c.mobile_script[0].model, 2u);
    EXPECT_EQ(c.mobile_script[0].yaw, 90);
    ASSERT_TRUE(c.mobile_script[0].links);
    EXPECT_EQ((*c.mobile_script[0].links)[1], 32u);
    ASSERT_TRUE(c.mobile_script[0].camera_rotation);
    EXPECT_EQ((*c.mobile_script[0].camera_rotation)[8], 32768);
    EXPECT_EQ(c.mobile_script[1].position[2], 60);
    EXPECT_FALSE(c.mobile_script[2].again);
    EXPECT_TRUE(c.mobile_script[3].again); // the second removal of mobile 1
    // A move or removal of a mobile never added, an add of a live one, two ops in one step, and a
    // script beside the seeded one's steps are refused, naming the step.
    for (const auto& [name, steps, says] :
         {std::tuple{"move-none", R"({"move":3,"position":[0,0,0]})", "step 0: mobile 3 is not added"},
          std::tuple{"remove-none", R"({"remove":3})", "step 0: mobile 3 was never added"},
          std::tuple{"add-twice",
                     R"({"add":1,"model":2,"position":[0,0,0]},{"add":1,"model":2,"position":[0,0,0]})",
                     "step 1: mobile 1 is already added"},
          std::tuple{"two-ops", R"({"add":1,"remove":1,"model":2,"position":[0,0,0]})",
                     "step 0 is one of"}}) {
        const std::string e = error_of(write(std::string(name) + ".json", head + steps + "]}}"));
        EXPECT_NE(e.find(says), std::string::npos) << name << ": " << e;
    }
    EXPECT_NE(
        error_of(
            write(
                "script-steps.json",
                R"({"schema":"refcheck-case/1","family":"mobile","selection":{"steps":3,"script":[{"remove":1}]}})"))
            .find("replaces"),
        std::string::npos);
}

TEST(Case, RefusesARefusedSceneEntryThatIsNotIntegers) {
    const std::string e =
        error_of(write("refused-float.json", R"({"schema":"refcheck-case/1","family":"scene",
      "selection":{"lights":[[0,-16384,0]],"scene":{"cameras":[{"position":[0,0,0]}],"refused":[[8,0,2.56444e+38,0]]}}})"));
    EXPECT_NE(e.find("not an integer in the range it needs"), std::string::npos) << e;
}

// Counts the harness generates from before any emulated call (no instruction budget there): a
// mobile case of 2^32 - 1 steps ran for hours, one of 2^32 - 1 queries ended in std::bad_alloc
// naming nothing. Each is capped, and the error names the key.
TEST(Case, RefusesCountsPastTheirCapsNamingTheKey) {
    const std::string mobiles = R"({"schema":"refcheck-case/1","family":"mobile","selection":{"steps":)";
    EXPECT_NE(
        error_of(write("steps.json", mobiles + "4294967295}}")).find("\"selection.steps\" is at most 10000"),
        std::string::npos);
    EXPECT_EQ(load_case(write("steps-ok.json", mobiles + "10000}}")).steps, 10000u);
    const std::string receivers =
        R"({"schema":"refcheck-case/1","family":"receiver","selection":{"queries":)";
    EXPECT_NE(
        error_of(write("q.json", receivers + "4294967295}}")).find("\"selection.queries\" is at most 100000"),
        std::string::npos);
    EXPECT_EQ(load_case(write("q-ok.json", receivers + "100000}}")).queries, 100000u);
}
