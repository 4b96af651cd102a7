// refcheck run --filter: gtest-style globs over CASE/INPUT (harness/src/case/filter.cpp).
#include "refcheck/harness/filter.hpp"

#include <gtest/gtest.h>

using namespace refcheck::harness;

TEST(Filter, GlobsMatchLikeGoogleTests) {
    EXPECT_TRUE(glob_match("program-*", "program-matrix"));
    EXPECT_TRUE(glob_match("*", ""));
    EXPECT_TRUE(glob_match("record ?? view *", "record 12 view 0 light 0"));
    EXPECT_FALSE(glob_match("record ? view *", "record 12 view 0"));
    EXPECT_FALSE(glob_match("program-*", "loader"));
    EXPECT_TRUE(glob_match("a*b*c", "aXXbYYc"));
    EXPECT_FALSE(glob_match("a*b*c", "aXXbYY"));
}

TEST(Filter, CasesAndInputsAreSelectedByPositiveAndNegativeGlobs) {
    const InputFilter f("program-*:loader:-*/* state 0:program-lights");
    EXPECT_TRUE(f.selects_case("program-matrix"));
    EXPECT_TRUE(f.selects_case("loader"));
    EXPECT_FALSE(f.selects_case("program-lights")); // a negative glob naming the whole case
    EXPECT_FALSE(f.selects_case("palette"));
    EXPECT_TRUE(f.selects_input("program-matrix", "record 1 view 0 light 0 state 76073"));
    EXPECT_FALSE(f.selects_input("program-matrix", "record 1 view 0 light 0 state 0"));
    EXPECT_TRUE(f.selects_input("loader", "3DOBJS.BIN"));
    // A glob with a case part and an input part selects the case, and only those inputs.
    const InputFilter g("program-matrix/record 12 *");
    EXPECT_TRUE(g.selects_case("program-matrix"));
    EXPECT_FALSE(g.selects_case("program-lights"));
    EXPECT_TRUE(g.selects_input("program-matrix", "record 12 view 3 light 0 state 0"));
    EXPECT_FALSE(g.selects_input("program-matrix", "record 120 view 3 light 0 state 0"));
    // Only a negative part: everything else.
    const InputFilter h("-scenes");
    EXPECT_TRUE(h.selects_case("loader"));
    EXPECT_FALSE(h.selects_case("scenes"));
    EXPECT_THROW(InputFilter(":"), std::runtime_error);
}

// Whether a filter narrows a case's inputs at all (a case it does not narrow may split).
TEST(Filter, SelectsEveryInputOnlyWhenNoGlobCouldLeaveOneOut) {
    EXPECT_TRUE(InputFilter("*").selects_every_input("program-matrix"));
    EXPECT_TRUE(InputFilter("*:-coverage-scene-terrain-map").selects_every_input("program-matrix"));
    EXPECT_TRUE(InputFilter("program-*").selects_every_input("program-matrix"));
    EXPECT_TRUE(InputFilter("-scenes").selects_every_input("program-matrix"));
    EXPECT_TRUE(InputFilter("program-matrix/*").selects_every_input("program-matrix"));
    // An input glob, or a negative glob that names some of its inputs, may leave one out.
    EXPECT_FALSE(InputFilter("program-matrix/record 12 *").selects_every_input("program-matrix"));
    EXPECT_FALSE(InputFilter("*:-*/* state 0").selects_every_input("program-matrix"));
    EXPECT_FALSE(InputFilter("*:-program-*/record 1 *").selects_every_input("program-matrix"));
    EXPECT_FALSE(InputFilter("loader").selects_every_input("program-matrix"));
}
