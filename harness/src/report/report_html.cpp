// One self-contained HTML page for people: a table of cases with status and counts; for a divergent
// case its first divergence side by side; for frames the original, the reimplementation and a
// difference picture, embedded as PNG data URIs.
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

std::string base64(const std::string& bytes) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v =
            (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 | (unsigned char)bytes[i + 2];
        out += t[v >> 18], out += t[(v >> 12) & 63], out += t[(v >> 6) & 63], out += t[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = (unsigned char)bytes[i] << 16;
        if (i + 1 < bytes.size()) v |= (unsigned char)bytes[i + 1] << 8;
        out += t[v >> 18], out += t[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? t[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string embed_png(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "<em>missing " + escape_markup(file.filename().string()) + "</em>";
    std::stringstream ss;
    ss << in.rdbuf();
    return "<img alt=\"" + escape_markup(file.filename().string()) + "\" src=\"data:image/png;base64," +
           base64(ss.str()) + "\">";
}

std::string event_table(const ojson& d) {
    std::ostringstream h;
    h << "<table class=diff><tr><th>field</th><th>original</th><th>reimpl</th></tr>";
    const ojson o = d.value("original", ojson());
    const ojson r = d.value("reimpl", ojson());
    std::vector<std::string> names;
    for (const ojson* e : {&o, &r})
        if (e->is_object())
            for (const auto& [k, v] : member(*e, "fields").items())
                if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    for (const auto& n : names) {
        const std::string a = o.is_object() && o["fields"].contains(n) ? o["fields"][n].dump() : "";
        const std::string b = r.is_object() && r["fields"].contains(n) ? r["fields"][n].dump() : "";
        h << "<tr" << (a != b ? " class=bad" : "") << "><td>" << escape_markup(n) << "</td><td>"
          << escape_markup(a) << "</td><td>" << escape_markup(b) << "</td></tr>";
    }
    h << "</table>";
    return h.str();
}

std::string context_list(const ojson& events) {
    std::ostringstream h;
    h << "<ol class=ctx>";
    for (const auto& e : events) {
        std::string line = e.value("kind", std::string());
        for (const auto& [k, v] : member(e, "fields").items()) line += " " + k + "=" + v.dump();
        h << "<li>" << escape_markup(line) << "</li>";
    }
    h << "</ol>";
    return h.str();
}

std::string divergence_section(const ojson& d) {
    std::ostringstream h;
    h << "<p>" << escape_markup(d.value("kind", std::string())) << " at input <code>"
      << escape_markup(d.value("input", std::string())) << "</code>, original event #"
      << d.value("original_index", 0ull) << ", reimpl event #" << d.value("reimpl_index", 0ull) << "</p>";
    const ojson ctx = d.value("context", ojson::object());
    h << "<div class=side><div><h4>original: before</h4>"
      << context_list(ctx.value("original_before", ojson::array())) << "</div><div><h4>reimpl: before</h4>"
      << context_list(ctx.value("reimpl_before", ojson::array())) << "</div></div>";
    h << event_table(d);
    h << "<div class=side><div><h4>original: after</h4>"
      << context_list(ctx.value("original_after", ojson::array())) << "</div><div><h4>reimpl: after</h4>"
      << context_list(ctx.value("reimpl_after", ojson::array())) << "</div></div>";
    return h.str();
}

const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
    "padding:2px "
    "6px;font-size:13px}.equivalent{background:#dfd}.divergent{background:#fdd}.error{background:#fd9}"
    ".bad "
    "td{background:#fcc}.side{display:flex;gap:2em}.side>div{flex:1}.ctx{font-family:monospace;font-size:"
    "12px}"
    "img{image-rendering:pixelated;width:640px;border:1px solid #999;margin-right:8px}"
    ".bisect{margin:1em 0}.bisect summary{cursor:pointer;font-weight:bold}.bisect pre{font-size:12px}"
    ".mark{background:#fe9}"
    ".seeded{color:#fff;background:#c00;padding:.6em 1em;border:2px solid #800;font-weight:bold}"
    ".seeded code{font-weight:normal}";

// The red banner of a run with seeded faults: what was modified, patch by patch.
std::string seeded_banner(const ojson& seeded) {
    std::ostringstream h;
    h << "<div class=seeded id=seeded-faults><p>SEEDED FAULTS: "
      << escape_markup(seeded_fault_summary(seeded))
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
                const std::filesystem::path& out_dir) {
    std::ostringstream h;
    const auto& t = index.at("totals");
    h << "<!DOCTYPE html><html><head><meta charset=utf-8><title>refcheck run</title><style>" << kStyle
      << "</style></head><body><h1>refcheck run: " << escape_markup(index.at("status").get<std::string>())
      << "</h1>";
    if (const ojson& seeded = member(index, "seeded_faults"); seeded.is_object()) h << seeded_banner(seeded);
    const ojson& tc = t.at("counts");
    h << "<p>" << t.at("cases").get<std::uint64_t>() << " cases: " << t.at("equivalent").get<std::uint64_t>()
      << " equivalent, " << t.at("divergent").get<std::uint64_t>() << " divergent, "
      << t.at("error").get<std::uint64_t>() << " errors. Events compared " << tc.value("compared", 0ull)
      << ", matched " << tc.value("matched", 0ull) << ", known divergences " << tc.value("known", 0ull)
      << ", unexplained " << tc.value("unexplained", 0ull) << ".</p>";
    h << "<table><tr><th>case</th><th>family</th><th>status</th><th>compared</th><th>matched</th><th>known</"
         "th>"
         "<th>unexplained</th><th>metrics</th></tr>";
    for (const auto& row : index.at("cases")) {
        const ojson c = row.value("counts", ojson::object());
        const std::string st = row.at("status").get<std::string>();
        std::string metrics;
        for (const auto& [k, v] : member(row, "metrics").items()) metrics += k + " " + v.dump() + "; ";
        h << "<tr class=" << st << "><td><a href=\"#" << escape_markup(row.at("case").get<std::string>())
          << "\">" << escape_markup(row.at("case").get<std::string>()) << "</a></td><td>"
          << escape_markup(row.at("family").get<std::string>()) << "</td><td>" << st << "</td><td>"
          << c.value("compared", 0ull) << "</td><td>" << c.value("matched", 0ull) << "</td><td>"
          << c.value("known", 0ull) << "</td><td>" << c.value("unexplained", 0ull) << "</td><td>"
          << escape_markup(metrics) << "</td></tr>";
    }
    h << "</table>";
    if (index.contains("ledger")) h << ledger_html(index.at("ledger"));
    if (index.contains("coverage")) h << coverage_html(index.at("coverage"));
    for (const auto& r : reports) {
        const std::string name = r.at("case").get<std::string>();
        h << "<h2 id=\"" << escape_markup(name) << "\">" << escape_markup(name) << " — "
          << escape_markup(r.at("status").get<std::string>()) << "</h2><p>"
          << escape_markup(r.value("description", std::string())) << "</p>";
        if (r.contains("error"))
            h << "<p class=error>" << escape_markup(r.at("error").get<std::string>()) << "</p>";
        if (r.contains("first_unexplained"))
            h << "<h3>First unexplained divergence</h3>" << divergence_section(r.at("first_unexplained"))
              << workbench_link_html(r.at("first_unexplained"));
        if (r.contains("bisect")) h << drill_down_html(r.at("bisect"));
        for (const auto& f : r.value("frames", ojson::array())) {
            h << "<h3>frame " << escape_markup(f.value("input", std::string()))
              << "</h3><p>original / reimplementation / "
                 "difference</p><div>";
            for (const char* k : {"original_png", "reimpl_png", "diff_png"})
                if (f.contains(k)) h << embed_png(out_dir / f.at(k).get<std::string>());
            h << "</div>";
        }
        if (r.contains("faults") && !r.at("faults").empty())
            h << "<h3>Faults of the original</h3><pre>" << escape_markup(r.at("faults").dump(1)) << "</pre>";
    }
    h << "</body></html>\n";
    write_file_atomically(file, h.str());
}

} // namespace refcheck::harness
