// The case observer (harness/src/run/case_observer.hpp) is handed the case's Original when the case
// has finished, after the code that loaded the profile has left its scope: the Original's profile
// must still be alive there. Before, the profile was a local of run_case_with's try block and the
// Original kept a reference to it, so an observer reading the profile read freed memory (the
// sanitizer build reports it; the plain build read whatever was left there). Now the Original owns
// its profile, so no caller can leave it dangling: the second test builds one from a profile that is
// gone before the Original is read. The third: once the case has finished, the Original runs no
// guest code (the families' taps hold recorders that are gone by then); it refuses, naming why, and
// so does its machine when called directly.
#include "run/case_observer.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/profile.hpp"
#include "refcheck/harness/run.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

// Reads the profile at the end of the case: every routine's name and address.
class ProfileReader : public CaseObserver {
public:
    void booted(Original&, Comparator&) override {}
    bool input(std::string_view, bool) override { return true; }
    void finished(Original& original, const ojson&) override {
        for (const auto& [name, r] : original.profile().routines)
            seen.push_back(name + "@" + (r.address ? std::to_string(*r.address) : "none"));
    }
    std::vector<std::string> seen;
};

std::vector<std::string> routines_of(const Profile& profile) {
    std::vector<std::string> out;
    for (const auto& [name, r] : profile.routines)
        out.push_back(name + "@" + (r.address ? std::to_string(*r.address) : "none"));
    return out;
}

TEST(CaseObserver, TheOriginalsProfileIsAliveWhenTheCaseHasFinished) {
    const Environment env = test::small_standin();
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    ProfileReader reader;
    set_case_observer(&reader);
    const CaseResult r = run_case(c, env);
    set_case_observer(nullptr);
    EXPECT_EQ(r.status, Status::Equivalent);

    const std::vector<std::string> expected = routines_of(load_profile(env.profile));
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(reader.seen, expected);
}

// Built from a profile that the caller changes and then destroys before the Original is read: the
// Original reads its own copy. With a reference member it read the emptied, then destroyed, profile.
TEST(CaseObserver, AnOriginalOwnsItsProfile) {
    const Environment env = test::small_standin();
    const Profile truth = load_profile(env.profile);
    const std::vector<std::string> expected = routines_of(truth);
    ASSERT_FALSE(expected.empty());
    std::unique_ptr<Original> original;
    {
        Profile loaded = truth;
        original = std::make_unique<Original>(env, loaded);
        loaded.routines.clear(); // the caller's copy changes and then goes: the Original's does not
    }
    EXPECT_EQ(routines_of(original->profile()), expected);
    for (const auto& [name, r] : truth.routines) {
        if (r.address) {
            EXPECT_EQ(original->address(name), *r.address) << name;
        }
    }
}

// Calls the guest once the case has finished, as a careless observer would: the program family's
// taps there hold its recorders, gone by then, so the Original refuses and runs nothing.
class LateCaller : public CaseObserver {
public:
    void booted(Original&, Comparator&) override {}
    bool input(std::string_view, bool) override { return true; }
    void finished(Original& original, const ojson&) override {
        try {
            original.call("draw_3d_object_", {0, 0});
            refused = "no";
        } catch (const std::logic_error& e) {
            refused = e.what();
        }
        // Going round the Original, straight to its machine, is refused the same way.
        try {
            original.machine().call(original.address("draw_3d_object_"), emu::Convention::cdecl, {0, 0});
            machine_refused = "no";
        } catch (const std::logic_error& e) {
            machine_refused = e.what();
        }
    }
    std::string refused, machine_refused;
};

TEST(CaseObserver, TheOriginalRunsNothingOnceTheCaseHasFinished) {
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "program-edge-end-return.json");
    LateCaller late;
    set_case_observer(&late);
    const CaseResult r = run_case(c, test::small_standin());
    set_case_observer(nullptr);
    EXPECT_EQ(r.status, Status::Equivalent);
    EXPECT_EQ(late.refused, "the original cannot run draw_3d_object_ any more: case " + c.name +
                                " has finished; the objects its hooks hold are gone");
    EXPECT_TRUE(late.machine_refused.starts_with("the machine cannot run ")) << late.machine_refused;
    EXPECT_TRUE(late.machine_refused.ends_with(" any more: case " + c.name +
                                               " has finished; the objects its hooks hold are gone"))
        << late.machine_refused;
}

} // namespace
} // namespace refcheck::harness
