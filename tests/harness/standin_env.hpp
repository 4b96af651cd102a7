// The environment most harness tests run a case in: the stand-in, its profile and the small
// archives (paths the test build defines).
#pragma once

#include "refcheck/harness/run.hpp"

namespace refcheck::harness::test {

inline Environment small_standin() {
    Environment env;
    env.image = REFCHECK_STANDIN_EXE;
    env.profile = REFCHECK_STANDIN_PROFILE;
    env.data = REFCHECK_SMALL_DATA;
    return env;
}

} // namespace refcheck::harness::test
