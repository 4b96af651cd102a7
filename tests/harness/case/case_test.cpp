// Case files: valid cases load; bad ones fail naming the file and the key.
#include "refcheck/harness/case.hpp"

#include <gtest/gtest.h>

#include <fstream>

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
