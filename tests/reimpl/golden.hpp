// Golden text files under tests/reimpl/golden/. Set REFCHECK_UPDATE_GOLDEN=1 to rewrite them
// (then read the diff before keeping it).
#pragma once

#include <string>

namespace refcheck::reimpl::testing {

// Fails the current test with the first differing line when `actual` differs from golden/<name>.
void expect_golden(const std::string& name, const std::string& actual);

} // namespace refcheck::reimpl::testing
