// From a report to the workbench (issue 16): the link of a divergence's record to its workbench
// view with the divergent faces highlighted, for the HTML report.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace refcheck::harness {

// Where the HTML report expects the workbench: `refcheck workbench --out out/workbench` beside
// `refcheck run --out out/run`.
inline constexpr const char* kWorkbenchFromReport = "../workbench/";

// "record.html?r=12&state=0&faces=26,40&objs=SHA256" for a divergence (a case report's
// "first_unexplained"): its record from either side's event (or from its input, "record 12 view ..."),
// the program offsets of either side's face event, and the SHA-256 of the 3DOBJS.BIN the run read
// (the case report's "inputs"; left out when absent), which the record page compares with the
// site's own and warns on a mismatch; empty when the divergence names no record.
std::string workbench_query(const nlohmann::ordered_json& divergence,
                            const nlohmann::ordered_json& inputs = nlohmann::ordered_json());

// A paragraph with that link (escaped), or empty.
std::string workbench_link_html(const nlohmann::ordered_json& divergence,
                                const nlohmann::ordered_json& inputs = nlohmann::ordered_json());

} // namespace refcheck::harness
