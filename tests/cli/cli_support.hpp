// Support for the end-to-end tests of the refcheck CLI: each test runs the built `refcheck` as a
// child process in its own temporary folder, with case files it writes itself, on the stand-in
// original and the small synthetic archives.
#pragma once

#include "refcheck/events.hpp"
#include "refcheck/harness/case.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace refcheck::cli_test {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// Paths given by the build (tests/cli/CMakeLists.txt).
inline const fs::path kRefcheck = REFCHECK_CLI;
inline const fs::path kImage = REFCHECK_CLI_IMAGE;
inline const fs::path kProfile = REFCHECK_CLI_PROFILE;
inline const fs::path kSmallData = REFCHECK_CLI_SMALL_DATA;
inline const fs::path kCasesDir = REFCHECK_CLI_CASES;
inline const fs::path kTemplate = REFCHECK_CLI_TEMPLATE;

// The face routines a program case replaces by recorders (or runs, for frames).
inline const std::vector<std::string> kFaceRoutines = {
    "draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
    "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_"};

// A program case over the small archives, in the words of a case file.
struct ProgramCase {
    std::vector<std::uint32_t> records;
    std::vector<harness::View> views;
    std::vector<std::vector<std::int32_t>> lights; // Q14 directions
    std::vector<std::uint32_t> states;
    bool run_faces = false; // frames: the face routines run instead of being replaced
    std::vector<std::string> allow;
    ojson to_json() const;
};

// The small program case most tests use: three records (a grid city block, two s16 records with
// attached models), two views, a symmetric and an asymmetric light, two animation states.
ProgramCase small_program();
// Frames of two records, one with a missing normal (a known divergence with pictures).
ProgramCase small_frames();
// The palette family for one warzone (the shipped palette case runs four).
ojson small_palette();
// The receiver family: `queries` scripted queries from `seed` (receiver_script).
ojson small_receivers(std::uint32_t queries, std::uint32_t seed);

struct Result {
    int code = -1; // exit status (-1: did not exit normally)
    std::string out, err;
};

// The base of every CLI test: a fresh folder per test (kept when the test fails, for a look).
class CliTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // Runs `refcheck ARGS` in the test's folder, with the GoogleTest sharding variables removed
    // from its environment and `env` ("NAME=value ...") added. Captures stdout and stderr.
    Result refcheck(const std::string& args, const std::string& env = "");
    // Writes a case file into the test's cases/ folder and returns its path.
    fs::path write_case(const std::string& name, const ojson& j);
    fs::path path(const std::string& rel) const { return dir_ / rel; }

    fs::path dir_;
    int runs_ = 0;
};

std::string quote(const fs::path& p);                 // single-quoted for /bin/sh
std::string join(const std::vector<fs::path>& paths); // quoted, space-separated
fs::path shipped_case(const std::string& name);       // cases/<name>.json of the project
// The project's cases/*.json whose file name starts with `prefix`, sorted.
std::vector<fs::path> shipped_cases_starting(const std::string& prefix);
std::string read_text(const fs::path& file);
ojson read_json(const fs::path& file);

// The stand-in's profile (kProfile), read for what a test patches or checks: a data entry by name,
// its address, and a struct field's offset. Each throws naming what the profile lacks.
ojson profile_data(const std::string& name);
std::uint32_t profile_data_address(const std::string& name);
std::uint32_t profile_offset(const std::string& structure, const std::string& field);
// Every regular file under `dir`, by path relative to it, with its bytes.
std::map<std::string, std::string> tree(const fs::path& dir);
// The same, with junit.xml's `time` attributes blanked (time=""): the wall times CI tools read are
// the only bytes of a run's outputs that vary between runs of the same inputs.
std::map<std::string, std::string> tree_without_junit_times(const fs::path& dir);
std::string without_junit_times(const std::string& junit);
// SHA-256 of a file as lower-case hex (OpenSSL, independently of the harness).
std::string sha256_of(const fs::path& file);
// A copy of the stand-in with `patches` (guest address, bytes) written over its file, in `dir`, and a
// profile tied to the copy's hash: an original of its own, as a user's rebuilt image would be.
std::pair<fs::path, fs::path>
patched_original(const fs::path& dir,
                 const std::vector<std::pair<std::uint32_t, std::vector<std::uint8_t>>>& patches);
std::size_t count_of(const std::string& text, const std::string& needle);
// The mutants of a mutate.json killed by a divergence (not a fault, budget or error) whose
// killed_by satisfies `caught` (its "event": divergence, original and reimpl kinds, indices).
std::size_t killed_by_divergence(const ojson& mutate,
                                 const std::function<bool(const ojson& killed_by)>& caught);

// The input name a program run gives one input (record, view, light and state indices).
std::string input_name(std::uint32_t record, std::size_t view, std::size_t light, std::uint32_t state);

// One input of a program case, drawn by the reimplementation as a run draws it (same construction,
// camera and light), with ControlFlow events left out: the stream the harness compares.
std::vector<events::Event> reimpl_stream(std::uint32_t record, const harness::View& view,
                                         const std::vector<std::int32_t>& light, std::uint32_t state,
                                         bool swap_light_xz = false);
// An event as a report writes it: {"kind", "fields"} with the fields the harness compares (no flags;
// winding and attach events without offset and opcode).
ojson report_event(const events::Event& e);
// A report event without its flags (the original's side carries none).
ojson without_flags(const ojson& e);

} // namespace refcheck::cli_test
