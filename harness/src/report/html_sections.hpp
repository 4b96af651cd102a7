// The pieces of the HTML page (report_html.cpp puts them in the order an auditor reads them): a
// divergence side by side, the cases table, known divergences per cause, a case's files and frames.
#pragma once

#include "refcheck/harness/report.hpp"

#include <string>

namespace refcheck::harness {

// "missing_in_reimpl at input X: face_draw record=1 ...": what the divergence is, in one line.
std::string divergence_headline(const ojson& divergence);
// Five events of context each side, then both events field by field.
std::string divergence_section(const ojson& divergence);
// The table of cases: status, counts (unexplained split into missing, extra, changed, faults),
// known divergences per cause, metrics as wrapping text, the report's link.
std::string cases_table(const ojson& run_index);
// Known divergences of the whole run per cause, with the registry's rule and sentence.
std::string known_by_cause_table(const ojson& run_index);
// Links to the case's JSON report, its drcov file and its pictures.
std::string case_files(const ojson& report);
// The frames the report lists: how they were chosen, then each with its differing pixel count,
// the cause explaining them, and the legend of the difference picture. Pictures are linked files
// beside the page.
std::string frames_section(const ojson& report);
// The metrics of a case as short text ("records 1314; frames 752; scenes: ..."), nested objects
// flattened, long lists counted.
std::string metrics_text(const ojson& metrics);

} // namespace refcheck::harness
