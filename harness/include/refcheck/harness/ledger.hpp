// The evidence ledger: every rule id of the format specification (docs/formats/apache-3d.md) with
// its documented evidence level, its observable predicate (rule_predicates.hpp) and what the run
// proves about it. Proven means exercised: a rule is Proven when some case that lists it in its
// "rules" ran equivalent, carries no seeded fault ("injected"), and compared at least one matched
// event satisfying the rule's predicate (its report's "exercised" count is nonzero); otherwise its
// status is its level, unproven ("Chosen-unproven", "Sourced-unproven") or "Unknown". A rule a case
// claims but whose predicate none of its matched events satisfied is "claimed, not exercised".
//
// The rule index (the table at the end of the document) is copied into every case report
// ("evidence"), so the run's ledger is computed from the case reports alone and a merge of shard
// outputs gives the same ledger as an unsharded run.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/rule_predicates.hpp"

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
    std::string id;          // "op.primary"
    std::string level;       // "Sourced", "Chosen" or "Unknown"
    std::string section;     // "8. Draw program"
    RulePredicate predicate; // what a compared event must show (rule_predicates.hpp)
};

struct RuleIndex {
    std::filesystem::path file;
    std::string sha256;
    std::vector<RuleEntry> rules; // in document order
    const RuleEntry* find(std::string_view id) const;
};

// Parses the "| id | level | section | predicate |" table that follows the document's "Index of
// rule ids" heading (ids in backticks, predicates optionally in backticks). Throws LedgerError
// naming the file and line of a bad row, a duplicate id, an unknown level, a predicate that does not
// parse (rule_predicates.hpp), or a missing table.
RuleIndex load_rule_index(const std::filesystem::path& document);

// One line per rule id that `c` names but the index lacks: "case C names rule id "X" ...".
std::vector<std::string> unknown_rule_ids(const Case& c, const RuleIndex& index);

// The "evidence" section of a case report: the document's name, hash and rule index (level,
// section and predicate per id).
ojson evidence_json(const RuleIndex& index);

// The counter of the rules `c` claims (ids the index lacks are left out), for the case report's
// "exercised" ({rule id: count}).
ExerciseCounter exercise_counter(const Case& c, const RuleIndex& index);

// The run's ledger from the case reports (null when no report carries an "evidence" section):
// document, counts per status, "claimed_not_exercised" [{rule, case}], "injected" (cases with
// seeded faults, when any), and one row per rule {id, level, section, predicate, status, exercised
// (matched events satisfying the predicate, over the proving cases), proven_by, exercised_by (count
// > 0, whatever the status), claimed_by, claimed_not_exercised} in document order; case lists are
// sorted.
ojson make_ledger(const std::vector<ojson>& case_reports);

// The ledger as an HTML section (heading, counts, one table row per rule) for index.html.
std::string ledger_html(const ojson& ledger);
// One line for the CLI summary: "evidence ledger (apache-3d.md): 302 rule ids: 61 Proven, ...",
// then "; N claimed, not exercised: case:rule, ..." and a note on cases with seeded faults.
std::string ledger_summary(const ojson& ledger);

// "Proven", "Chosen-unproven", "Sourced-unproven" or "Unknown".
std::string ledger_status(const std::string& level, bool proven);

} // namespace refcheck::harness
