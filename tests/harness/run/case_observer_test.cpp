// The case observer (harness/src/run/case_observer.hpp) is handed the case's Original when the case
// has finished, after the code that loaded the profile has left its scope: the Original's profile
// must still be alive there. Before, the profile was a local of run_case_with's try block and the
// Original kept a reference to it, so an observer reading the profile read freed memory (the
// sanitizer build reports it; the plain build read whatever was left there).
#include "run/case_observer.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/profile.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
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

TEST(CaseObserver, TheOriginalsProfileIsAliveWhenTheCaseHasFinished) {
    Environment env;
    env.image = REFCHECK_STANDIN_EXE;
    env.profile = REFCHECK_STANDIN_PROFILE;
    env.data = REFCHECK_SMALL_DATA;
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    ProfileReader reader;
    set_case_observer(&reader);
    const CaseResult r = run_case(c, env);
    set_case_observer(nullptr);
    EXPECT_EQ(r.status, Status::Equivalent);

    std::vector<std::string> expected;
    for (const auto& [name, routine] : load_profile(env.profile).routines)
        expected.push_back(name + "@" + (routine.address ? std::to_string(*routine.address) : "none"));
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(reader.seen, expected);
}

} // namespace
} // namespace refcheck::harness
