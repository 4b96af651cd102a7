// Worker processes for `refcheck run`: cases run in forked workers, so that a crash inside the
// emulator (a Unicorn fault, an abort, a host exception escaping everything) ends that one case
// as an error instead of the whole run.
//
// The parent forks up to `jobs` workers and hands them case indices over a pipe, one at a time; a
// worker runs the case and sends back its CaseResult (report JSON, files beside it, events, status,
// seconds) over another pipe. When a worker dies (a signal, or an exit without its result), the
// parent turns the case it was running into an error report naming the death, the case's input and
// routine and the last guest EIP known, and the command that reproduces it, and starts another
// worker for the remaining cases.
//
// The worker keeps a breadcrumb in memory shared with the parent: the case it runs, the input it is
// in (CaseContext::selected calls note_input), and emu's crash note (crash_note.hpp: the routine
// being called and the last EIP known at a call or hook boundary). Nothing is added per instruction.
//
// Test hook (tests/cli): REFCHECK_TEST_WORKER_CRASH=CASE:HOW makes the worker running case CASE die
// when that case's first input begins (note_input), HOW being "segv" (raise SIGSEGV), "abort"
// (std::abort) or "exit" (_exit(3) without a result), or "term-parent" (the worker sends SIGTERM to
// the parent and waits to be killed: an interruption at a known point). CASE@K:HOW dies only in part
// K (1-based) of a case split into parts, not in its other parts nor when it runs whole. Only worker
// processes read it.
//
// SIGINT and SIGTERM: while run_in_workers runs, the parent catches them, kills its workers and
// throws RunInterrupted naming the cases that did not finish; nothing has been written yet.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// A run stopped by SIGINT or SIGTERM before every case finished.
struct RunInterrupted : std::runtime_error {
    RunInterrupted(int signal, std::vector<std::size_t> unfinished)
        : std::runtime_error("interrupted"), signal(signal), unfinished(std::move(unfinished)) {}
    int signal;
    std::vector<std::size_t> unfinished; // case indices without a result
};

// The input a family is about to run on the original (the breadcrumb of a worker; nothing elsewhere).
void note_input(std::string_view input);

// How a worker ended while it ran a case, and what its breadcrumb said.
struct WorkerDeath {
    int signal = 0;                   // the signal that killed it (0: it exited)
    int exit_code = 0;                // its exit status when it exited
    std::string input;                // the input it was in (empty: none named yet)
    std::string routine;              // the routine of the original it called last
    bool in_call = false;             // it died inside that call (the guest was running)
    std::optional<std::uint32_t> eip; // the last guest EIP known
    double seconds = 0;               // from when the case was handed to it
    // Set when the parent killed it: it sent no result within this many seconds of wall-clock time
    // (WorkerCallbacks::case_seconds), a hang the emulator's own limits did not end.
    double timed_out_after = 0;
    std::string what() const; // "killed by signal 11 (SIGSEGV)", "exited with status 3 ...", the limit
};

struct WorkerCallbacks {
    std::function<CaseResult(std::size_t)> run;                      // in a worker: runs case i
    std::function<CaseResult(std::size_t, const WorkerDeath&)> died; // in the parent: case i's error
    std::function<void(std::size_t)> done;        // in the parent: case i's result is in (may be empty)
    std::function<void(std::size_t)> handed;      // in the parent: case i went to a worker (may be empty)
    std::function<void()> tick;                   // in the parent: about once a second (may be empty)
    std::function<std::string(std::size_t)> name; // case i's name (the breadcrumb)
    // The wall-clock seconds a worker has for one case from when it is handed (0: no limit): past
    // it the parent kills the worker (SIGKILL) and the case is `died` with timed_out_after set; a
    // new worker takes the cases left. What ends a hang outside the guest (a blocking host call,
    // a loop of the harness or the reimplementation) without stopping the run.
    double case_seconds = 0;
};

// A result as a worker sends it to the parent (a length, then the fields; its index, e.g. a part's),
// and back: refcheck run --shard writes the parts it holds so, and refcheck merge reads them.
// decode_result throws std::runtime_error on bytes that are not one whole message.
std::string encode_result(std::size_t index, const CaseResult& r);
std::pair<std::size_t, CaseResult> decode_result(std::string_view message);

// The error report of a case whose worker died: status "error", "error" naming the death, the input,
// the routine and the last guest EIP known, and "crash" with the same as fields and the command that
// reproduces it (the case's files by file name, like every report: no host path).
CaseResult crash_result(const Case& c, const RunOptions& options, const WorkerDeath& death);

// The order a run hands its cases to the workers, longest first (longest processing time first, the
// classic bound on the last worker's finish): by `previous` (case name -> seconds, the output
// folder's last junit.xml, as CTest orders tests by its cost data), cases it lacks first as if
// longest (a new case may be long), ties in case order. Only the order changes: results are kept
// by case, so every output is the same for any order.
std::vector<std::size_t> hand_order(const std::vector<Case>& cases,
                                    const std::map<std::string, double>& previous);
// The same for work items that may be shares of a case (a case run as parts, case_part.hpp): item i
// is one of parts[i] parts of the case named names[i], and counts as its previous time over parts[i].
std::vector<std::size_t> hand_order(const std::vector<std::string>& names,
                                    const std::vector<std::size_t>& parts,
                                    const std::map<std::string, double>& previous);

// Runs cases 0..n-1 in min(jobs, n) forked workers (at least one) and returns their results by index.
std::vector<CaseResult> run_in_workers(std::size_t n, unsigned jobs, const WorkerCallbacks& callbacks);

} // namespace refcheck::harness
