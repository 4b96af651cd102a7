#include "golden.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace refcheck::reimpl::testing {

void expect_golden(const std::string& name, const std::string& actual) {
    const std::string path = std::string(REFCHECK_REIMPL_GOLDEN_DIR) + "/" + name;
    if (const char* update = std::getenv("REFCHECK_UPDATE_GOLDEN");
        update != nullptr && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "missing golden file " << path;
    std::stringstream expected;
    expected << in.rdbuf();
    if (expected.str() == actual) return;
    std::istringstream e(expected.str()), a(actual);
    std::string el, al;
    for (int line = 1;; ++line) {
        const bool more_e = static_cast<bool>(std::getline(e, el));
        const bool more_a = static_cast<bool>(std::getline(a, al));
        if (!more_e && !more_a) break;
        if (!more_e || !more_a || el != al) {
            ADD_FAILURE() << path << ":" << line
                          << ": golden differs\n  expected: " << (more_e ? el : "<end>")
                          << "\n  actual:   " << (more_a ? al : "<end>");
            return;
        }
    }
    ADD_FAILURE() << path << ": golden differs in line endings";
}

} // namespace refcheck::reimpl::testing
