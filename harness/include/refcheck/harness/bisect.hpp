// Bisect: from a case's first unexplained divergence to its drill-down. The case is re-run narrowed
// to the divergence's input (Case::only), which must still diverge at the same event; in that
// re-run a probe on the original's side records the instructions it executed between the last
// event before the divergent one and the divergent one, its registers and its call stack at the
// hook of the divergent event. With the draw-program listing around the divergent packet and a
// command that reproduces just that input, this is the drill-down: printed FileCheck-style by
// `refcheck bisect`, kept in a divergent case's report ("bisect") by `refcheck run` and shown in
// the HTML page.
//
// What each family offers: program (draw events and frames) everything; shadow the narrowed input,
// the frame event and the reproduce line (a shadow frame is one event per input: there is no event
// inside the call to start a window from); mobile and receiver the narrowed input, the event diff
// and the reproduce line (their events are read after the original's call returns); loader,
// palette and construct the same as mobile.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace refcheck::harness {

struct DrillDownOptions {
    std::size_t listing_context = 6;     // draw-program instructions shown each side of the packet
    std::size_t instructions_head = 40;  // window instructions shown from its start...
    std::size_t instructions_tail = 200; // ...and before its end; the middle is elided
    std::size_t trace_capacity = std::size_t{1} << 22; // window instructions kept (the last ones)
    // Files in the reproduce line: as the run was given them (refcheck bisect's output), or by file
    // name only (reports, which name no host path: "files by name" says so beside the line).
    bool host_paths = true;
};

// The one-line command that reproduces just `input` of the case (the whole case when `input` is
// empty): `refcheck run CASE --only INPUT --out out/bisect` with the run's --image/--profile/--data
// overrides and seeded faults, every argument quoted for sh where it needs to be. Files are named
// as the run was given them, or with `host_paths` false by their file names.
// The same command as a shell pastes it in the project's root: refcheck's executable as the build
// put it, and each file inside the project by its path from the root (outside it, by its file name,
// as the report names it; no host path). The HTML page shows this one.
std::string pasteable_command(const Case& c, const RunOptions& options, const std::string& input);
std::string reproduce_command(const Case& c, const RunOptions& options, const std::string& input,
                              bool host_paths = true);

// Re-runs `c` narrowed to the input of `divergence` (a case report's "first_unexplained") with the
// probe, and returns the drill-down: {"input", "confirmed", "divergence", "listing", "instructions",
// "registers", "call_stack", "unavailable", "reproduce"} (see docs/architecture.md). When the
// narrowed re-run diverges elsewhere it is probed again at its own divergence; when it is
// equivalent ("confirmed": false) the reproduce line runs the whole case. Throws on a bad
// environment (the caller has run the case already).
ojson drill_down(const Case& c, const RunOptions& options, const ojson& divergence,
                 const DrillDownOptions& dd = {});

// For run(): puts drill_down() into a divergent result's report as "bisect", files in its reproduce
// line by name (an error computing it becomes {"error": ...} there; the case's status is unchanged).
void attach_drill_down(CaseResult& result, const Case& c, const RunOptions& options);

// The drill-down as text, the way FileCheck prints a mismatch ("error: first divergence at event N
// (case C, input I)", both events with a per-field diff, five events before it on each side, the
// listing, the instruction window, registers, call stack, "reproduce: ..."); and as an HTML
// fragment (a collapsible <details> section) for the run's page.
std::string format_drill_down(const std::string& case_name, const ojson& drill_down);
std::string drill_down_html(const ojson& drill_down, bool open = false);

// Pieces, tested by themselves.
// Lines of a draw-program disassembly (reimpl::disassemble) from `context` instructions before the
// instruction at `offset` to `context` after it, that one marked "->", the others indented.
std::vector<std::string> listing_around(const std::string& disassembly, std::uint32_t offset,
                                        std::size_t context);
// Both events field by field: "  name: value" when equal, "! name: original -> reimpl" when not;
// a side without the event prints "(none)".
std::vector<std::string> field_diff_lines(const ojson& original, const ojson& reimpl);
// `text` quoted for sh when it holds anything but [A-Za-z0-9_./:+=,-].
std::string shell_quote(const std::string& text);

} // namespace refcheck::harness
