// Mutation testing of the cases (`refcheck mutate`): what would the cases miss if the original
// computed something else? Mutants of the profile's routines and every routine they reach
// (discover_routines) are enumerated with Capstone, each one small change of one instruction
// applied as a seeded fault (Patch, WHERE:OLD->NEW). A baseline run records which inputs reach
// which instruction (per-input block coverage) and how many instructions each routine's calls
// needed; each covered mutant then runs only on the inputs that reach it, with a per-call
// instruction budget, in forked workers, and stops at its first divergence, fault, error or budget
// overrun: a kill. A mutant no input reaches is "not covered" and does not run.
#pragma once

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace refcheck::harness {

// The operators, in the order a site's mutants are listed.
inline constexpr const char* kMutationOperators[] = {
    "negate_jcc",    // Jcc (short 7x and near 0F 8x) with the opposite condition
    "negate_setcc",  // SETcc (0F 9x) with the opposite condition
    "negate_cmovcc", // CMOVcc (0F 4x) with the opposite condition
    "imm_plus_one",  // the immediate of CMP ADD SUB AND OR XOR TEST shifts IMUL, plus one
    "imm_minus_one", // ... minus one
    "add_to_sub",    "sub_to_add", "and_to_or", "or_to_and",
    "store_nop", // a store (MOV family to memory) replaced by NOPs
};

struct Mutant {
    std::string routine; // the routine (profile name, export, symbol or sub_XXXXXXXX)
    std::uint32_t routine_address = 0;
    std::uint32_t address = 0; // of the instruction
    std::string op;            // one of kMutationOperators
    std::string instruction;   // Capstone's text of the original instruction
    std::vector<std::uint8_t> old_bytes, new_bytes;
    std::uint32_t offset() const { return address - routine_address; }
    // Stable: "routine+0xOFF op: instruction".
    std::string id() const;
    Patch patch() const; // "0xADDRESS:OLD->NEW"
};

// Every mutant of the routines' static blocks, by address, then operator order. ESP/EBP frame
// arithmetic (add/sub/and/or with ESP or EBP as destination) is left out.
std::vector<Mutant> enumerate_mutants(const emu::Machine& machine,
                                      const std::vector<RoutineBlocks>& routines);

// Argued-equivalent mutants (cases/mutants/equivalent.json): for one image (file and SHA-256),
// entries keyed by routine + operator + instruction text, each with its argument. An entry with an
// "offset" (from the routine's start, "0x1a") covers only the mutant there: for an instruction text
// that occurs at several sites of which only some are equivalent.
struct EquivalentEntry {
    std::string routine, op, instruction, argument;
    std::optional<std::uint32_t> offset;
    bool covers(const Mutant& m) const {
        return routine == m.routine && op == m.op && instruction == m.instruction &&
               (!offset || *offset == m.offset());
    }
};
struct EquivalentRegistry {
    std::string image, sha256;
    std::vector<EquivalentEntry> entries;
};
EquivalentRegistry load_equivalent_registry(const std::filesystem::path& file); // throws std::runtime_error

// The fewest reaching inputs a mutant runs on in a case (when it has that many): a cap below it
// (--inputs-per-mutant 1) is refused rather than raised silently.
inline constexpr std::size_t kMinInputsPerMutant = 4;

struct MutateOptions {
    RunOptions run;                     // environment (defaults, --image/--profile/--data), out, jobs
    std::string routines;               // ECMAScript regex over routine names (empty: all)
    std::vector<std::string> operators; // empty: all
    std::optional<std::size_t> sample;  // run a deterministic sample of N mutants
    std::uint64_t seed = 0;
    // Per case, a mutant runs on at most this many of the inputs that reach it, spread evenly over
    // the case's order (0: all of them). A survivor is then a survivor of those inputs. Never below
    // kMinInputsPerMutant (a run gets at least that many; mutate throws std::invalid_argument).
    // A case whose state carries from input to input plays a prefix of its inputs, every reaching
    // input in it run: as many as the run's instructions allow, at most this many when
    // whole_cheap_cases is false.
    std::size_t inputs_per_mutant = 32;
    // A case whose inputs together cost the original at most kWholeCaseInstructions (receivers,
    // mobiles, construct: a fraction of a second) runs every reaching input, inputs_per_mutant
    // notwithstanding; false when --inputs-per-mutant is given.
    bool whole_cheap_cases = true;
    std::optional<double> min_score;                  // exit 1 when the score is below
    std::optional<std::filesystem::path> equivalents; // the registry
    // Why blocks stay unreached (cases/coverage/reasons.json): a not-covered survivor's reason names
    // its block's cause. Not passed to the cases' runs (they need no coverage annotations).
    std::optional<std::filesystem::path> coverage_reasons;
    std::function<void(std::string_view)> progress; // one line now and then (may be empty)
};

struct MutateSummary {
    int exit_code = 2;
    ojson report;     // mutate.json (reports/mutate-report.schema.json)
    std::string text; // the text summary
    std::filesystem::path json, html;
};

// Baseline, mutants, report (mutate.json and mutate.html in options.run.out). Throws
// std::runtime_error for an error (bad case, registry, regex, no equivalent baseline case).
MutateSummary mutate(const std::vector<std::filesystem::path>& case_files, const MutateOptions& options);

// The control of a kill by an error: case `c` run on the unmutated image, narrowed to `inputs` (a
// fresh boot), as the mutant's run was. Why it is not clean (its status and error), or nullopt when
// it is equivalent or compares nothing there. An error that stopped a mutant's run is a kill only
// when its control is clean: the same error from the unmutated original (a data root changed during
// the run, a narrowing the case cannot take) is not the mutant's, and counted as a kill it raised the
// score silently.
std::optional<std::string> unmutated_failure(const Case& c, const Environment& env,
                                             const std::set<std::string>& inputs);

// The report's parts, from mutate.json's content.
std::string mutate_text(const ojson& report);
std::string mutate_html(const ojson& report);

inline constexpr const char* kMutateReportSchema = "refcheck-mutate/1";

} // namespace refcheck::harness
