// The folders refcheck writes its outputs into (run, merge, mutate, chaos, bench --work, workbench):
// which it may write, and which files in them are its own. refcheck replaces files there (a case
// report by its case's name, pictures beside it), so a folder that holds anything else, or holds
// the inputs of the run, could lose a person's files.
#pragma once

#include <filesystem>
#include <string_view>
#include <string>
#include <vector>

namespace refcheck::harness {

// The file refcheck leaves in every output folder it claims: the folder is refcheck's to rewrite.
inline constexpr const char* kOutputMarker = ".refcheck-output";

// An input of the command that its output folder must not be, or hold: a case file's folder, a
// data root, a shard output merge reads. `what` names it in the message ("the folder of case file
// cases/x.json").
struct GuardedInput {
    std::filesystem::path path;
    std::string what;
    // A folder the guest reads as a whole (a data root, whose listings the guest sees): the
    // outputs may not lie inside it either.
    bool nothing_inside = false;
};

// Checks `dir` (given as option `option`, e.g. "--out") before any work and claims it, or throws a
// std::runtime_error naming the option, the folder and why. Refused: an empty name; a path that is
// (or lies under) something other than a folder; a folder that equals or holds one of `inputs`;
// an existing folder that is not empty and is neither marked by kOutputMarker nor an earlier
// refcheck's output (an index refcheck writes: run.json, mutate.json or chaos.json with its schema,
// or jobs-1/run.json of refcheck bench, or the workbench's workbench.js). Claimed: the folder is
// created if needed and kOutputMarker written into it, so reruns into it are accepted.
void claim_output_folder(const std::string& option, const std::filesystem::path& dir,
                         const std::vector<GuardedInput>& inputs);

// Removes what an earlier run wrote for case `name` in `out`: the files of `out/name/` refcheck
// writes there (coverage.drcov, frame-N-{original,reimpl,diff}.png), and the folder when that
// leaves it empty. Anything else there is left as it is.
void remove_case_files(const std::filesystem::path& out, const std::string& name);
// Removes the part files of an earlier shard in `out/parts/` (NAME.part-K-of-N), and the folder
// when that leaves it empty; anything else there is left.
void remove_part_files(const std::filesystem::path& out);
// Writes `bytes` to `out / rel` (atomically), where `rel` is a relative path without "..": a
// symbolic link among the folders between `out` and the file (a case's folder) is removed and a
// folder made in its place, so nothing is written through it outside `out`. A link there was
// followed: a case folder made a link to another folder got the case's files written there.
// std::runtime_error for a `rel` that is absolute or climbs.
void write_output_file(const std::filesystem::path& out, const std::filesystem::path& rel,
                       std::string_view bytes);

} // namespace refcheck::harness
