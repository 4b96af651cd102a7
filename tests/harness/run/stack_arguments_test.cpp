// Where a routine's stack arguments are, for the bytes it pops on return: its profile "args" place
// each one (a register, "stack", or the convention's place when "reg" is empty). The return
// watchers (Original::on_return) match a return by its address and stack pointer, so the popped
// bytes must be those the routine pops: counted by position (the arguments past the convention's
// registers), a watcall routine with an explicit stack argument and fewer than four register ones
// popped none, and every return of it was dropped as abandoned, its events lost.
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

Profile with_routines(const std::string& routines) {
    const fs::path file =
        fs::temp_directory_path() / ("refcheck-stack-args-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file) << R"({"schema": "refcheck-profile/1", "routines": [)" + routines + "]}";
    Profile p = load_profile(file);
    fs::remove(file);
    return p;
}

} // namespace

TEST(StackArguments, ARoutinePopsTheStackArgumentsItsProfilePlaces) {
    const Profile p = with_routines(R"(
      {"name": "two_then_stack", "convention": "watcall",
       "args": [{"reg": "eax", "name": "a"}, {"reg": "stack", "name": "b"}]},
      {"name": "five", "convention": "watcall",
       "args": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}, {"name": "e"}]},
      {"name": "registers_only", "convention": "watcall",
       "args": [{"reg": "ecx", "name": "a"}, {"reg": "eax", "name": "b"}]},
      {"name": "std", "convention": "stdcall", "args": [{"name": "a"}, {"name": "b"}]},
      {"name": "c", "convention": "cdecl", "args": [{"reg": "stack", "name": "a"}]})");
    EXPECT_EQ(callee_popped_bytes(p, "two_then_stack"), 4u) << "by position it was 0";
    EXPECT_EQ(callee_popped_bytes(p, "five"), 4u);
    EXPECT_EQ(callee_popped_bytes(p, "registers_only"), 0u);
    EXPECT_EQ(callee_popped_bytes(p, "std"), 8u);
    EXPECT_EQ(callee_popped_bytes(p, "c"), 0u) << "the caller pops a cdecl call's arguments";
    // The slot a tap reads agrees: b is the first stack slot, above the return address.
    EXPECT_EQ(arg_slot(p, "two_then_stack", "b").where(), "stack+4");
}
