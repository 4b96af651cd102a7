// A run: cases executed (optionally sharded and in parallel), one report per case, then the run
// index, JUnit XML and the HTML page. Exit status: 0 nothing unexplained differs, 1 something does,
// 2 an error (bad case, missing image, a profile lacking a routine a case needs).
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {

class InputFilter; // refcheck/harness/filter.hpp

struct RuleIndex; // ledger.hpp

// A case whose family needs a record the data root lacks (a receiver, a named model): the data may be
// valid, it just cannot serve this case. An error (exit 2) that says so, apart from "the data root
// is invalid" (the reimplementation's validator rejects it).
struct PreconditionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a case runs on once "default" is resolved.
struct Environment {
    std::filesystem::path image;
    std::filesystem::path profile;
    std::filesystem::path data;
    // Why blocks of the original stay unreached (coverage_reasons.hpp); used when it names the image.
    std::optional<std::filesystem::path> coverage_reasons;
    // The rule index whose predicates the case report's "exercised" counts (ledger.hpp); none: no
    // "exercised" section.
    std::shared_ptr<const RuleIndex> rules;
};

// Where the reimplementation reads an archive of the data root `data`, given by the name the guest
// uses ("3DDATA\\3DOBJS.BIN"): resolved as the guest's files are (emu::DataRoot: case-insensitive,
// symbolic links confined), so both sides read the same file; a lower-case copy of the game's folder
// was read by the original and called missing by the reimplementation. A name the root lacks gives
// the path as written (read_archive then says it is missing); one the root refuses throws a
// reimpl::FormatError naming `archive`.
std::filesystem::path archive_file(const std::filesystem::path& data, std::string_view guest_name,
                                   std::string_view archive);
// The bytes of that archive: archive_file, then reimpl::read_archive (a regular file only; a missing
// or refused one throws a reimpl::FormatError naming `archive`). What run, bisect, dump and
// workbench read. `watch`, when given, stamps the file before it is read (run_case's InputWatch).
class InputWatch;
std::vector<std::uint8_t> read_data_archive(const std::filesystem::path& data, std::string_view guest_name,
                                            std::string_view archive, InputWatch* watch = nullptr);
// The SHA-256 of each archive a case reads from `data`, as a case report's "inputs"."archives"
// names them ("3DDATA/3DOBJS.BIN": hex, or null for one read_data_archive refuses).
ojson archive_hashes(const std::filesystem::path& data);

// Seeded faults, to show that a comparison finds a difference (tests, experiments). A run with one
// says so everywhere: a banner on stdout before any case runs (seeded_fault_banner), "seeded_faults"
// near the top of run.json, <properties> in JUnit, a red banner on the HTML page, and every case
// report's "injected" (with the bytes each patch replaced).
struct Patch {
    std::string where;               // "symbol+0x1c" (export or COFF symbol of the image) or "0x00401234"
    std::vector<std::uint8_t> bytes; // written over the original's code or data after loading
    // The bytes the patch states it replaces (WHERE:OLD->NEW), empty when not stated. When stated,
    // other bytes at WHERE are an error naming the address, the expected and the found bytes: an
    // old offset applied to a rebuilt image never overwrites another instruction silently.
    std::vector<std::uint8_t> expected;
    std::string text() const; // as --patch takes it: "WHERE:NEW" or "WHERE:OLD->NEW"
};
struct Injection {
    std::vector<Patch> patches;        // bytes of the original changed under emulation
    bool reimpl_light_swapped = false; // the reimplementation gets the light with x and z swapped
    bool empty() const { return patches.empty() && !reimpl_light_swapped; }
};
// "WHERE:HEXBYTES" or "WHERE:OLDHEX->NEWHEX" (OLD and NEW of the same length); throws
// std::invalid_argument.
Patch parse_patch(const std::string& text);
// A number of a patch's place as parse_patch accepts it: 0x-hex, else decimal (never octal).
std::uint64_t patch_number(const std::string& text);
std::string hex_string(std::span<const std::uint8_t> bytes); // "0f85", as patches are written

// A patch as applied to one image: where it resolved and the bytes it replaced.
struct AppliedPatch {
    Patch patch;
    std::uint32_t address = 0;
    std::vector<std::uint8_t> replaced; // the image's bytes at `address` before the patch
};
// Thrown when a patch's stated bytes are not the image's (Patch::expected).
struct PatchMismatch : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The lines a run with seeded faults prints first on stdout, before any case runs (none without).
std::vector<std::string> seeded_fault_banner(const Injection& injection);

struct Shard {
    unsigned index = 0;
    unsigned count = 1;
};

struct RunOptions {
    Environment defaults; // the stand-in, its profile, the default archives
    // Other images a case may name by a word instead of a path ("image": "retail", "profile":
    // "retail"): the second stand-in (built like a retail image) and its profile imported from
    // its map. --image/--profile/--data override these too.
    std::map<std::string, Environment> stand_ins;
    std::optional<std::filesystem::path> image, profile, data; // --image/--profile/--data overrides
    std::filesystem::path out = "out";
    unsigned jobs = 1; // worker processes (workers.hpp); a worker's crash is its case's error
    // `refcheck run --case-timeout`: the wall-clock seconds a worker has for one case (or part);
    // past it the worker is killed and the case is an error naming the limit, and the run goes on
    // (0: no limit). Generous: the guest's own limits (instructions, wall time per call) end an
    // emulated hang first; this ends one outside the guest.
    double case_timeout = 3600;
    Shard shard;
    std::function<void(std::string_view)> progress; // one call per finished case (may be empty)
    Injection injection;
    // The format specification whose rule index becomes the evidence ledger (docs/formats/apache-3d.md).
    // When set, a case naming a rule id the document lacks is a preflight problem (exit 2), and every
    // case report carries the index ("evidence") so that run.json holds the ledger.
    std::optional<std::filesystem::path> rules_document;
    // The coverage reasons file (cases/coverage/reasons.json); a bad file is a preflight problem.
    std::optional<std::filesystem::path> coverage_reasons;
    // Narrows every case to the input of this name (Case::only): `refcheck run --only`.
    std::string only;
    // `refcheck run --filter`: cases and inputs by a gtest-style pattern (filter.hpp; Case::filter).
    std::shared_ptr<const InputFilter> filter;
    // Told when a case starts in a worker (its index among the run's cases, sorted by name) and when
    // it is done: `refcheck run`'s progress (may be empty).
    std::function<void(std::size_t index, std::string_view name)> started;
    // Called about once a second while cases run (a progress display redraws; may be empty).
    std::function<void()> tick;
};

// The cases of a run in the order it runs them (sorted by name), each with its inputs, as
// `refcheck run --list` prints them: the cases the filter selects, each booted and walked with every
// input skipped (nothing is compared), listing the inputs the filter selects.
std::vector<std::pair<std::string, std::vector<std::string>>>
list_inputs(const std::vector<std::filesystem::path>& case_files, const RunOptions& options);
// The cases a run would run (the shard's, the filter's), loaded and sorted by name.
std::vector<Case> run_cases(const std::vector<std::filesystem::path>& case_files, const RunOptions& options);
// The case names a run would run (the shard's, the filter's), sorted: progress totals and ETAs.
std::vector<std::string> run_case_names(const std::vector<std::filesystem::path>& case_files,
                                        const RunOptions& options);

struct RunSummary {
    int exit_code = 2;
    std::vector<std::string> problems; // from preflight(); nothing ran when not empty
    std::string interrupted; // SIGINT/SIGTERM stopped the run: what did not finish (exit 128 + signal)
    // Cases split below the case (case_part.hpp), one line each in case order: "frames ran as 2 parts
    // over its records, merged", or why the parts could not be merged and the case ran whole.
    std::vector<std::string> splits;
    std::vector<CaseResult> results;
    ojson index;
    double seconds = 0;
    std::uint64_t events = 0;
    std::filesystem::path html;
};

// Resolves a case's image/profile/data: explicit overrides, then the case's own paths (relative to
// the case file), then the defaults.
Environment resolve_environment(const Case& c, const RunOptions& options);

// Runs one case; never throws: a bad environment or a failed boot is a report with status "error".
CaseResult run_case(const Case& c, const Environment& env, const Injection& injection = {});

// Checks before anything runs: every case's image, data root and profile exist, and its profile has
// an address for every routine and global the case's family needs; with a rules document, the
// document's index parses and lists every rule id the cases name. One line per problem; a
// profile's missing names are listed together.
// With seeded patches, each is resolved on every image the cases run on (the image loaded, nothing
// called) and a patch stating its old bytes (WHERE:OLD->NEW) that finds others is a problem naming
// the image, the address, the expected and the found bytes, so no case runs with a wrong patch.
// `sites`, when given, receives where each patch lands on each image.
struct PatchSite {
    std::string image; // the image's file name
    AppliedPatch applied;
};
std::vector<std::string> preflight(const std::vector<Case>& cases, const RunOptions& options,
                                   std::vector<PatchSite>* sites = nullptr);

// run.json's "seeded_faults": every patch on every image (where, address, bytes, replaced,
// expected when stated) and the reimplementation's changed input; null when nothing is seeded.
ojson seeded_faults_json(const Injection& injection, const std::vector<PatchSite>& sites);

// Loads, runs and reports. Case files that don't parse give exit code 2 before anything runs. A
// case with an unexplained divergence gets its drill-down (bisect.hpp) in its report ("bisect").
// Cases run in forked worker processes (harness/src/run/workers.hpp): a case whose worker dies (a
// signal, an abort, an exit without a result) is an error report naming the crash ("crash"), and
// the other cases run and report as usual.
RunSummary run(const std::vector<std::filesystem::path>& case_files, const RunOptions& options);

// Joins shard outputs (each a folder with run.json and case reports) into `out`, producing the same
// run index, JUnit XML and HTML an unsharded run would. Throws std::runtime_error when a shard of
// the split is missing, given twice, or from another split.
// A case split across the shards (run.json "parts": each shard ran a share of its inputs) is
// finished here as a run finishes a case split across its workers: every part must be there once,
// of the same case file (by SHA-256), found by name among `case_files`; the original boots once more
// in a worker on `finish`'s environment, and the parts must have run on the same image, profile and
// archives (by SHA-256), or the case is an error. Parts that cannot be merged (one not equivalent)
// make the case run again whole, as a run does. `splits` gets one line per such case. Without
// `finish`, shard outputs holding parts are refused.
int merge(const std::vector<std::filesystem::path>& shard_dirs, const std::filesystem::path& out,
          const RunOptions* finish = nullptr, const std::vector<std::filesystem::path>& case_files = {},
          std::vector<std::string>* splits = nullptr);

// Writes index, JUnit and HTML for reports already in `out`.
// A shard of a split run (count > 1) says which it is in run.json ("shard"), so that merge can
// refuse an incomplete or mixed set of shard outputs.
// A run with seeded faults carries them ("seeded_faults", near the top of run.json; a JUnit
// property each; a red banner in the HTML header). merge keeps them and refuses shards whose
// seeded faults differ.
// `seconds` (case name -> wall time) goes into junit.xml's time attributes only. `reports` are the
// case reports as the run holds them (SharedCoverage::restore of what was written);
// `image_coverage` (SharedCoverage::json) becomes run.json's "image_coverage". `parts` (a shard's
// parts of cases split across the shards, for merge) becomes "parts", and counts in "status".
// `plan` (a shard's: the whole run's cases and narrowing) becomes "shard"."plan".
ojson write_run_outputs(const std::filesystem::path& out, const std::vector<ojson>& reports,
                        const Shard& shard = {}, const ojson& seeded_faults = nullptr,
                        const std::map<std::string, double>& seconds = {},
                        const ojson& image_coverage = ojson::array(), const ojson& parts = nullptr,
                        const ojson& plan = nullptr);

} // namespace refcheck::harness
