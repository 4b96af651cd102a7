// The evidence ledger: every rule id of the format specification (docs/formats/apache-3d.md) with
// its documented evidence level and what the run proves about it. A rule is Proven when some case
// that lists it in its "rules" ran equivalent; otherwise its status is its level, unproven
// ("Chosen-unproven", "Sourced-unproven") or "Unknown".
//
// The rule index (the table at the end of the document) is copied into every case report
// ("evidence"), so the run's ledger is computed from the case reports alone and a merge of shard
// outputs gives the same ledger as an unsharded run.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// A rule document that cannot be read or whose index table is malformed (exit code 2).
struct LedgerError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RuleEntry {
    std::string id;       // "op.primary"
    std::string level;    // "Sourced", "Chosen" or "Unknown"
    std::string section;  // "8. Draw program"
};

struct RuleIndex {
    std::filesystem::path file;
    std::string sha256;
    std::vector<RuleEntry> rules;  // in document order
    const RuleEntry* find(std::string_view id) const;
};

// Parses the "| id | level | section |" table that follows the document's "Index of rule ids"
// heading (ids in backticks). Throws LedgerError naming the file and line of a bad row, a
// duplicate id, an unknown level, or a missing table.
RuleIndex load_rule_index(const std::filesystem::path& document);

// One line per rule id that `c` names but the index lacks: "case C names rule id "X" ...".
std::vector<std::string> unknown_rule_ids(const Case& c, const RuleIndex& index);

// The "evidence" section of a case report: the document's name, hash and rule index.
ojson evidence_json(const RuleIndex& index);

// The run's ledger from the case reports (null when no report carries an "evidence" section):
// document, counts per status, and one row per rule {id, level, section, status, proven_by,
// exercised_by} in document order; case lists are sorted.
ojson make_ledger(const std::vector<ojson>& case_reports);

// The ledger as an HTML section (heading, counts, one table row per rule) for index.html.
std::string ledger_html(const ojson& ledger);
// One line for the CLI summary: "evidence ledger (apache-3d.md): 274 rule ids: 61 Proven, ...".
std::string ledger_summary(const ojson& ledger);

// "Proven", "Chosen-unproven", "Sourced-unproven" or "Unknown".
std::string ledger_status(const std::string& level, bool proven);

}  // namespace refcheck::harness
