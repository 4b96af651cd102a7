// One HTML page for people, in the order an auditor reads it: status (a red banner for seeded
// faults), the first divergence of each divergent case with its drill-down open, the cases table and
// known divergences per cause, the cases (files linked, frames as pictures beside the page), then
// the evidence ledger and coverage, folded.
#include "report/html_sections.hpp"
#include "workbench/workbench_link.hpp"
#include "refcheck/harness/report.hpp"

#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/ledger.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace refcheck::harness {

namespace {

const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
    "padding:2px "
    "6px;font-size:13px}.equivalent{background:#dfd}.divergent{background:#fdd}.error{background:#fd9}"
    ".bad "
    "td{background:#fcc}.side{display:flex;gap:2em}.side>div{flex:1}.ctx{font-family:monospace;font-size:"
    "12px}"
    "img{image-rendering:pixelated;width:320px;height:200px;border:1px solid #999;margin-right:8px}"
    "td.metrics,th.metrics{max-width:32em;white-space:normal;overflow-wrap:anywhere}"
    "p.metrics{overflow-wrap:anywhere}.headline{font-weight:bold}nav{margin:.5em 0;line-height:1.6}"
    ".swatch{display:inline-block;width:1em;height:1em;border:1px solid #999;vertical-align:middle}"
    "figure.frame{margin:.5em 0}details.fold>summary h2{display:inline}h1.divergent{color:#a00}"
    // Nothing wider than the window: long event lines, listings and paths wrap.
    "pre{white-space:pre-wrap;overflow-wrap:anywhere}.side>div{min-width:0}.ctx li,table.diff td,code{"
    "overflow-wrap:anywhere}table{max-width:100%}"
    ".bisect{margin:1em 0}.bisect summary{cursor:pointer;font-weight:bold}.bisect pre{font-size:12px}"
    ".mark{background:#fe9}"
    ".seeded{color:#fff;background:#c00;padding:.6em 1em;border:2px solid #800;font-weight:bold}"
    ".seeded code{font-weight:normal}";

// The red banner of a run with seeded faults: what was modified, patch by patch, and what it changed.
std::string seeded_banner(const ojson& seeded, const ojson& effect) {
    std::ostringstream h;
    h << "<div class=seeded id=seeded-faults><p>SEEDED FAULTS: "
      << escape_markup(seeded_fault_summary(seeded, effect))
      << ". This run does not test the unmodified original and reimplementation.</p><ul>";
    for (const auto& p : member(seeded, "patches")) {
        h << "<li>patch <code>" << escape_markup(p.at("where").get<std::string>()) << "</code> at <code>"
          << escape_markup(p.at("address").get<std::string>()) << "</code> in "
          << escape_markup(p.at("image").get<std::string>()) << ": wrote <code>"
          << escape_markup(p.at("bytes").get<std::string>()) << "</code> over <code>"
          << escape_markup(p.at("replaced").get<std::string>()) << "</code>";
        if (p.contains("expected"))
            h << " (stated <code>" << escape_markup(p.at("expected").get<std::string>()) << "</code>)";
        h << "</li>";
    }
    if (seeded.contains("reimpl_light"))
        h << "<li>the reimplementation's light: "
          << escape_markup(seeded.at("reimpl_light").get<std::string>()) << "</li>";
    h << "</ul></div>";
    return h.str();
}

} // namespace

void write_html(const std::filesystem::path& file, const ojson& index, const std::vector<ojson>& reports,
                const std::filesystem::path& /*out_dir*/) {
    std::ostringstream h;
    const auto& t = index.at("totals");
    const std::string status = index.at("status").get<std::string>();
    h << "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
         "<meta name=viewport content=\"width=device-width, initial-scale=1\"><title>refcheck run: "
      << escape_markup(status) << "</title><style>" << kStyle << "</style></head><body>";
    // 1. Status, and the red banner of seeded faults.
    h << "<h1 id=status class=" << escape_markup(status) << ">refcheck run: " << escape_markup(status)
      << "</h1>";
    if (const ojson& seeded = member(index, "seeded_faults"); seeded.is_object())
        h << seeded_banner(seeded, member(index, "seeded_effect"));
    const ojson& tc = t.at("counts");
    h << "<p>" << t.at("cases").get<std::uint64_t>() << " cases: " << t.at("equivalent").get<std::uint64_t>()
      << " equivalent, " << t.at("divergent").get<std::uint64_t>() << " divergent, "
      << t.at("error").get<std::uint64_t>() << " errors. Events compared " << tc.value("compared", 0ull)
      << ", matched " << tc.value("matched", 0ull) << ", known divergences " << tc.value("known", 0ull)
      << ", unexplained " << tc.value("unexplained", 0ull) << " (missing in the reimplementation "
      << tc.value("missing_in_reimpl", 0ull) << ", extra " << tc.value("extra_in_reimpl", 0ull)
      << ", changed " << tc.value("changed", 0ull) << ", faults " << tc.value("faults", 0ull) << ").</p>";
    std::vector<const ojson*> divergent;
    for (const auto& r : reports)
        if (r.contains("first_unexplained")) divergent.push_back(&r);
    h << "<nav id=toc><b>Contents:</b> ";
    if (!divergent.empty()) h << "<a href=\"#first-divergences\">first divergences</a> · ";
    h << "<a href=\"#cases\">cases</a> · <a href=\"#known\">known divergences per cause</a> · ";
    for (const auto& r : reports) {
        const std::string name = r.at("case").get<std::string>();
        h << "<a href=\"#case-" << escape_markup(name) << "\">" << escape_markup(name) << "</a> · ";
    }
    h << "<a href=\"#ledger\">evidence ledger</a> · <a href=\"#coverage\">coverage</a> · files: "
         "<a href=\"run.json\">run.json</a> <a href=\"junit.xml\">junit.xml</a></nav>";
    // 2. The first divergence of each divergent case, its drill-down open.
    if (!divergent.empty()) {
        h << "<h2 id=first-divergences>First divergences</h2>";
        for (const ojson* r : divergent) {
            const std::string name = r->at("case").get<std::string>();
            h << "<section class=first id=\"first-" << escape_markup(name) << "\"><h3><a href=\"#case-"
              << escape_markup(name) << "\">" << escape_markup(name)
              << "</a>: first unexplained divergence</h3>" << divergence_section(r->at("first_unexplained"))
              << workbench_link_html(r->at("first_unexplained"), r->value("inputs", ojson()));
            if (r->contains("bisect")) h << drill_down_html(r->at("bisect"), true);
            h << "</section>";
        }
    }
    // 3. The cases table, the parts a shard holds (its status counts them), and known divergences
    // per cause.
    h << "<h2 id=cases>Cases</h2>" << cases_table(index);
    if (const ojson& parts = member(index, "parts"); parts.is_array() && !parts.empty()) {
        h << "<h2 id=parts>Parts of split cases this shard holds</h2><p>refcheck merge finishes each case "
             "from all the shards' "
             "parts.</p><table><tr><th>case</th><th>part</th><th>status</th><th>file</th></tr>";
        for (const ojson& p : parts) {
            const std::string part_status = p.at("status").get<std::string>();
            h << "<tr><td>" << escape_markup(p.at("case").get<std::string>()) << "</td><td>"
              << p.at("part").get<std::uint64_t>() + 1 << " of " << p.at("of").get<std::uint64_t>()
              << "</td><td class=" << escape_markup(part_status) << ">" << escape_markup(part_status)
              << "</td><td><code>" << escape_markup(p.at("file").get<std::string>()) << "</code></td></tr>";
        }
        h << "</table>";
    }
    h << known_by_cause_table(index);
    // 4. The cases.
    for (const auto& r : reports) {
        const std::string name = r.at("case").get<std::string>();
        h << "<section class=case><h2 id=\"case-" << escape_markup(name) << "\">" << escape_markup(name)
          << " — " << escape_markup(r.at("status").get<std::string>()) << "</h2><p>"
          << escape_markup(r.value("description", std::string())) << "</p>" << case_files(r);
        if (r.contains("error"))
            h << "<p class=error>" << escape_markup(r.at("error").get<std::string>()) << "</p>";
        if (r.contains("first_unexplained"))
            h << "<p>First unexplained divergence: <a href=\"#first-" << escape_markup(name) << "\">"
              << escape_markup(divergence_headline(r.at("first_unexplained"))) << "</a></p>";
        if (r.contains("metrics"))
            h << "<p class=metrics>" << escape_markup(metrics_text(r.at("metrics"))) << "</p>";
        h << frames_section(r);
        if (r.contains("faults") && !r.at("faults").empty())
            h << "<h3>Faults of the original</h3><pre>" << escape_markup(r.at("faults").dump(1)) << "</pre>";
        h << "</section>";
    }
    // 5. The ledger and coverage, folded.
    h << "<details class=fold><summary><h2 id=ledger>Evidence ledger</h2></summary>";
    if (index.contains("ledger")) h << ledger_html(index.at("ledger"));
    h << "</details><details class=fold><summary><h2 id=coverage>Coverage of the original</h2></summary>";
    if (index.contains("coverage")) h << coverage_html(index.at("coverage"));
    h << "</details></body></html>\n";
    write_file_atomically(file, h.str());
}

} // namespace refcheck::harness
