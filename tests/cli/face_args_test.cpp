// What a face routine receives is described by the profile, not built into the harness: the
// fixture's third image (standin_faces_reordered.exe) is the stand-in with its face routines taking
// their arguments the other way round (flags in EAX, level in EDX, face vertices in EBX, the packet
// in ECX; watcall.h, STANDIN_FACE_ARGS_REORDERED), and its profile says so. The same cases run on
// it equivalent with no code change, the face routines replaced by recorders and tapped while they
// draw frames; the same profile with the face routines' "args" put back in the first stand-in's
// order makes the harness read the wrong registers, and the run is no longer equivalent.
#include "cli_support.hpp"

#include "refcheck/harness/profile.hpp"

#include <fstream>

namespace refcheck::cli_test {
namespace {

const fs::path kReorderedImage = REFCHECK_CLI_REORDERED_IMAGE;
const fs::path kReorderedProfile = REFCHECK_CLI_REORDERED_PROFILE;

class FaceArgs : public CliTest {
protected:
    Result run(const fs::path& profile, const std::string& out) {
        const fs::path program = write_case("faces-replaced", small_program().to_json());
        const fs::path frames = write_case("faces-run", small_frames().to_json());
        return refcheck("run " + join({program, frames}) + " --image " + quote(kReorderedImage) +
                        " --profile " + quote(profile) + " --data " + quote(kSmallData) + " --out " + out);
    }
};

TEST_F(FaceArgs, AFaceRoutineTakingItsArgumentsInAnotherOrderNeedsOnlyItsProfile) {
    const harness::Profile p = harness::load_profile(kReorderedProfile);
    for (const std::string& routine : kFaceRoutines) {
        const auto& args = p.routine(routine).args;
        ASSERT_EQ(args.size(), 4u) << routine;
        EXPECT_EQ(args[0].name, "flags") << routine;
        EXPECT_EQ(args[0].reg, "eax") << routine;
        EXPECT_EQ(args[3].name, "packet") << routine;
        EXPECT_EQ(args[3].reg, "ecx") << routine;
    }
    const Result r = run(kReorderedProfile, "out");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("status"), "equivalent");
    for (const char* c : {"out/faces-replaced.json", "out/faces-run.json"})
        EXPECT_GT(read_json(path(c)).at("counts").at("matched").get<std::uint64_t>(), 0u) << c;
}

TEST_F(FaceArgs, TheFirstStandInsArgumentOrderInItsProfileIsNotEquivalent) {
    ojson profile = read_json(kReorderedProfile);
    const ojson first = read_json(kProfile);
    for (auto& routine : profile.at("routines"))
        for (const auto& theirs : first.at("routines"))
            if (routine.at("role") == "face_routine" && theirs.at("name") == routine.at("name"))
                routine["args"] = theirs.at("args"); // packet in EAX ... flags in ECX
    const fs::path edited = path("wrong-order.profile.json");
    std::ofstream(edited) << profile.dump(1) << "\n";
    const Result r = run(edited, "out");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_EQ(read_json(path("out/run.json")).at("status"), "divergent");
}

// The flags word a face routine takes (abi.face: bit 0 repeats the entry point) is the stand-in's
// choice; the reference's routines say primary or secondary by name. A profile whose face routines
// list only packet, vertices and level was refused (argument "flags" is not among the routine's
// args); the entry point now says which, and the same cases run equivalent.
TEST_F(FaceArgs, AFaceRoutineNeedNotTakeAFlagsWord) {
    ojson profile = read_json(kProfile);
    std::size_t dropped = 0;
    for (auto& routine : profile.at("routines")) {
        if (routine.at("role") != "face_routine") continue;
        ojson kept = ojson::array();
        for (const auto& a : routine.at("args"))
            if (a.at("name") != "flags") kept.push_back(a);
        dropped += routine.at("args").size() - kept.size();
        routine["args"] = kept;
    }
    ASSERT_EQ(dropped, 4u);
    const fs::path edited = path("no-flags.profile.json");
    std::ofstream(edited) << profile.dump(1) << "\n";
    const fs::path program = write_case("faces-replaced", small_program().to_json());
    const fs::path frames = write_case("faces-run", small_frames().to_json());
    const Result r = refcheck("run " + join({program, frames}) + " --image " + quote(kImage) + " --profile " +
                              quote(edited) + " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const char* c : {"out/faces-replaced.json", "out/faces-run.json"})
        EXPECT_GT(read_json(path(c)).at("counts").at("matched").get<std::uint64_t>(), 0u) << c;
}

} // namespace
} // namespace refcheck::cli_test
