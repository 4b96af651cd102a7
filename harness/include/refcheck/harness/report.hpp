// Reports: one JSON report per case (schema reports/case-report.schema.json), a run index (JSON),
// JUnit XML and one self-contained HTML page. Everything here is deterministic: same results, same bytes.
#pragma once

#include "refcheck/harness/compare.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace refcheck::harness {

using ojson = nlohmann::ordered_json;

inline constexpr const char* kCaseReportSchema = "refcheck-case-report/1";
inline constexpr const char* kRunIndexSchema = "refcheck-run/1";

enum class Status { Equivalent, Divergent, Error };
std::string_view status_name(Status s);
Status parse_status(std::string_view s);

struct CaseResult {
    std::string name;
    Status status = Status::Error;
    ojson report;       // the whole case report (deterministic)
    double seconds = 0; // wall time; printed, never written into reports
    std::uint64_t events = 0;
    // Files beside the report (frame pictures), relative to the run's output folder.
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
};

// j[key] when present, else an empty (null) value: safe to iterate with items() or a range-for
// (j.value(key, default).items() would iterate a destroyed temporary).
const ojson& member(const ojson& j, const char* key);

// Escapes &, <, > and " for HTML and XML text and attributes.
std::string escape_markup(const std::string& s);

// A relative file path as a URL path: every byte but letters, digits, '-', '.', '_', '~' and '/'
// percent-encoded. A case named "mob#1" linked its report as href="mob#1.json", a page "mob" with a
// fragment. (escape_markup still applies for the attribute.)
std::string url_path(const std::string& s);

ojson to_json(const Value& v);
ojson to_json(const EventRecord& e);
ojson to_json(const Counts& c);
Counts counts_from_json(const ojson& j); // to_json's inverse; throws on a missing or mistyped count
ojson to_json(const Divergence& d);

void write_json(const std::filesystem::path& file, const ojson& j);
// Writes `bytes` to a temporary file beside `file` and renames it over `file`, so that a reader
// (or a run killed mid-way) never sees a half-written file. Creates the parent folders.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);
// Reads one of refcheck's own documents (a run index, a case report, a registry). They hold whole
// numbers only, so a fractional number, or an integer too wide for 64 bits (nlohmann reads it as a
// float), is an error naming the file and the number's JSON pointer: read as a count it would be
// undefined behaviour (a float out of an integer's range; found by fuzz/report_diff).
ojson read_json(const std::filesystem::path& file);

// The run index: one row per case (name, family, status, counts, report file) and totals.
// `seeded_faults` (seeded_faults_json in run.hpp), when not null, is written right after "status".
ojson make_run_index(const std::vector<ojson>& case_reports, const ojson& seeded_faults = nullptr);
// run.json's "seeded_effect": what the seeded faults did, by the case reports' "injected" (each case's
// own evidence, never the banner's word): "cases", the reports counted; one row per patch of
// `seeded_faults`' "given", in that order, with "where" and how many cases ran its bytes ("ran"),
// did not ("not_run") or cannot tell ("cannot_tell", the bytes outside the covered routines), so a
// patch no case applied (every case stopped before) has a row of zeros; with the light swap,
// "reimpl_light_changed_in": how many cases gave the reimplementation another light. Throws when a
// report's patches are not the ones given (another number, or another WHERE at a position).
ojson seeded_effect(const std::vector<ojson>& case_reports, const ojson& seeded_faults);
// One line for run.json's "seeded_faults" and "seeded_effect": what was modified and what it changed
// ("the original is modified (1 patch; draw_3d_object_+0x10 ran in 3 of 15 case(s)); the
// reimplementation's input is modified (light x and z swapped; another light in 0 of 15 case(s))").
std::string seeded_fault_summary(const ojson& seeded_faults, const ojson& seeded_effect);
// JUnit XML: one testsuite, one testcase per case, and in a shard's output one per part of a case
// split across the shards it holds (run.json "parts"; named by part_testcase_name), failing or in
// error as the part is, so a CI job that reads only the JUnit file sees a part that diverged.
// `seconds` (case or part testcase name -> wall time) becomes the `time` attributes, the one thing
// in a run's outputs that varies between runs of the same inputs (CI tools read it); a testcase
// without an entry gets time="0".
void write_junit(const std::filesystem::path& file, const ojson& run_index, const std::vector<ojson>& reports,
                 const std::map<std::string, double>& seconds = {});
// The JUnit testcase name of part `part` (from 0) of `of` of a case held by a shard: "CASE (part 1 of 2)".
std::string part_testcase_name(const std::string& case_name, std::size_t part, std::size_t of);
// The `time` of each testcase of a junit.xml written by write_junit (case name -> seconds); empty
// when the file is missing. merge carries the shards' times into the merged junit.xml.
std::map<std::string, double> read_junit_times(const std::filesystem::path& file);
// refcheck's version: the CMake project version, with `git describe` of the source tree at configure
// time when there was one ("0.1.0 (aad05f0)"); fixed per build, recorded in run.json.
const char* refcheck_version();
// The SHA-256 of the reimplementation's sources (every file under reimpl/; see
// cmake/reimpl_source_hash.cmake for the command that recomputes it), recorded in run.json.
const char* reimpl_source_sha256();
// A case report as written and as read back (report_store.cpp): what every case report of a run
// would repeat is written once, in run.json. store() is the report to write: its evidence without
// the rule index (the ledger's rows hold it) and its coverage without the routines it never entered
// (kept: their count, "not_entered"), which it collects, with the coverage reasons' header, for
// run.json's "image_coverage" (json()). merge add()s each shard's and restore()s every report to
// what the run held in memory, so that the merged run.json is the unsharded one's.
class SharedCoverage {
public:
    ojson store(const ojson& report);
    void add(const ojson& image_coverage);
    ojson json() const;
    ojson restore(const ojson& stored, const ojson& evidence) const;

private:
    struct Image {
        ojson reasons;
        std::map<std::string, ojson> routines;
    };
    std::map<std::pair<std::string, std::string>, Image> images_; // (image file name, SHA-256)
};
// The evidence (document, SHA-256, rules with level, section, predicate) a ledger was made from.
ojson evidence_from_ledger(const ojson& ledger);

void write_html(const std::filesystem::path& file, const ojson& run_index, const std::vector<ojson>& reports,
                const std::filesystem::path& out_dir);

} // namespace refcheck::harness
