// refcheck bench's "identical" column (same_outputs): it finds a one-byte difference, a missing and
// an extra file, and ignores only junit.xml (whose `time` attributes are wall times).
#include "refcheck/harness/bench.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

fs::path run_folder(const std::string& name) {
    fs::path dir = fs::path(testing::TempDir()) / "bench-same-outputs" / name;
    fs::remove_all(dir);
    put(dir / "run.json", "{\"status\": \"equivalent\"}\n");
    put(dir / "loader.json", "{\"case\": \"loader\"}\n");
    put(dir / "program" / "frame-0.png", "PNG");
    put(dir / "junit.xml", "<testsuite time=\"1.5\"/>\n");
    return dir;
}

} // namespace

TEST(BenchSameOutputs, FindsEveryDifferenceButJunitTimes) {
    const fs::path a = run_folder("a");
    fs::path b = run_folder("b");
    EXPECT_TRUE(same_outputs(a, b));
    put(b / "junit.xml", "<testsuite time=\"9.25\"/>\n"); // another wall time
    EXPECT_TRUE(same_outputs(a, b));
    put(b / "junit.xml", "<testsuite time=\"1.5\" failures=\"1\"/>\n"); // another verdict: not a time
    EXPECT_FALSE(same_outputs(a, b));
    b = run_folder("b");

    put(b / "program" / "frame-0.png", "PNh"); // one byte
    EXPECT_FALSE(same_outputs(a, b));
    b = run_folder("b");
    fs::remove(b / "loader.json");
    EXPECT_FALSE(same_outputs(a, b));
    b = run_folder("b");
    put(b / "extra.json", "{}");
    EXPECT_FALSE(same_outputs(a, b));
    EXPECT_FALSE(same_outputs(a, a / "absent"));
}
