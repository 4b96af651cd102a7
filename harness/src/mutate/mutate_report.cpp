// The text summary and the HTML section of a mutate report (from mutate.json's content).
#include "refcheck/harness/mutate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace refcheck::harness {

namespace {

std::string esc(const std::string& s) {
    std::string o;
    for (const char ch : s) {
        switch (ch) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            default: o += ch;
        }
    }
    return o;
}

std::uint64_t n(const ojson& t, const char* k) { return t.value(k, std::uint64_t{0}); }

// A score as a percentage, or "n/a" when there was nothing to score (null).
std::string percent(const ojson& t) {
    const ojson score = t.value("score", ojson(nullptr));
    if (score.is_null()) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * score.get<double>());
    return buf;
}

std::string figures(const ojson& t) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%6llu mutants %6llu killed %llu undecided %6llu survived (%llu covered, %llu not covered) "
                  "%5llu equivalent; %llu more argued but never run (no input reaches them)  score %6s",
                  (unsigned long long)n(t, "mutants"), (unsigned long long)n(t, "killed"),
                  (unsigned long long)n(t, "undecided"), (unsigned long long)n(t, "survived"),
                  (unsigned long long)n(t, "survived_covered"), (unsigned long long)n(t, "not_covered"),
                  (unsigned long long)n(t, "equivalent"), (unsigned long long)n(t, "argued_untested"),
                  percent(t).c_str());
    return buf;
}

} // namespace

std::string mutate_text(const ojson& r) {
    std::string out;
    const ojson& t = r.at("totals");
    out += "refcheck mutate on " + r.at("image").at("file").get<std::string>() + "\n";
    out += "total " + figures(t) + "\n";
    const ojson& timing = r.at("timing");
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "time %.1f s (baseline %.1f s, mutants %.1f s): %llu mutants run, %.1f mutants/s\n",
                  timing.value("seconds", 0.0), timing.value("baseline_seconds", 0.0),
                  timing.value("mutant_seconds", 0.0), (unsigned long long)n(timing, "mutants_run"),
                  timing.value("mutants_per_second", 0.0));
    out += buf;
    for (const auto& c : r.at("cases"))
        if (c.contains("note"))
            out += "  case " + c.at("case").get<std::string>() +
                   " not used: " + c.at("note").get<std::string>() + "\n";
    out += "\nper routine (by survivors):\n";
    std::vector<std::pair<std::string, const ojson*>> rs;
    for (const auto& [name, v] : r.at("routines").items()) rs.emplace_back(name, &v);
    std::stable_sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) {
        return n(*a.second, "survived") > n(*b.second, "survived");
    });
    for (const auto& [name, v] : rs) {
        std::snprintf(buf, sizeof buf, "  %-40s ", name.c_str());
        out += buf + figures(*v) + "\n";
    }
    // Survivors by the kind of their reason (its words before the first ':' or ','; the JSON has
    // each survivor's whole reason).
    std::map<std::string, std::uint64_t> kinds;
    for (const auto& m : r.at("mutants"))
        if (m.contains("reason")) {
            const std::string why = m.at("reason").get<std::string>();
            ++kinds[why.substr(0, why.find_first_of(":,"))];
        }
    if (!kinds.empty()) {
        out += "\nsurvivors by reason (mutate.json gives each one's):\n";
        for (const auto& [kind, count] : kinds) {
            std::snprintf(buf, sizeof buf, "  %6llu  ", (unsigned long long)count);
            out += buf + kind + "\n";
        }
    }
    out += "\nslowest mutants:\n";
    for (const auto& s : r.at("slowest")) {
        std::snprintf(buf, sizeof buf, "  %6.2f s %-9s %6llu inputs  ", s.value("seconds", 0.0),
                      s.at("status").get<std::string>().c_str(), (unsigned long long)n(s, "inputs_run"));
        out += buf + s.at("id").get<std::string>() + "\n";
    }
    const ojson& stale = r.at("equivalents").at("stale");
    for (const auto& e : stale)
        out += "stale equivalent entry (" + e.at("reason").get<std::string>() +
               "): " + e.at("routine").get<std::string>() + " " + e.at("operator").get<std::string>() + ": " +
               e.at("instruction").get<std::string>() + "\n";
    if (const std::string note = r.at("equivalents").value("note", std::string()); !note.empty())
        out += "equivalents not applied: " + note + "\n";
    return out;
}

std::string mutate_html(const ojson& r) {
    std::string h;
    const ojson& t = r.at("totals");
    h += "<section id=\"mutate\"><h2>Mutants of " + esc(r.at("image").at("file").get<std::string>()) +
         "</h2>\n";
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "<p>%llu mutants: %llu killed, %llu undecided (refcheck's own process crashed or overran, or "
        "the unmutated original diverged too on the same narrowed inputs: no difference of the "
        "mutant's found), %llu survived (%llu covered, %llu not covered), %llu argued "
        "equivalent (and %llu argued but never run: not covered, their arguments untested). "
        "<b>Score %s</b> = killed / (total &minus; equivalent).</p>\n",
        (unsigned long long)n(t, "mutants"), (unsigned long long)n(t, "killed"),
        (unsigned long long)n(t, "undecided"), (unsigned long long)n(t, "survived"),
        (unsigned long long)n(t, "survived_covered"), (unsigned long long)n(t, "not_covered"),
        (unsigned long long)n(t, "equivalent"), (unsigned long long)n(t, "argued_untested"),
        percent(t).c_str());
    h += buf;
    h += "<table><tr><th>routine</th><th>mutants</th><th>killed</th><th>survived (covered)</th><th>not "
         "covered</th>"
         "<th>equivalent</th><th>score</th></tr>\n";
    for (const auto& [name, v] : r.at("routines").items()) {
        std::snprintf(buf, sizeof buf,
                      "<td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%s</td>",
                      (unsigned long long)n(v, "mutants"), (unsigned long long)n(v, "killed"),
                      (unsigned long long)n(v, "survived_covered"), (unsigned long long)n(v, "not_covered"),
                      (unsigned long long)n(v, "equivalent"), percent(v).c_str());
        h += "<tr><td>" + esc(name) + "</td>" + buf + "</tr>\n";
    }
    h += "</table>\n<h3>Survivors</h3>\n<table><tr><th>mutant</th><th>covered</th><th>inputs run</th></tr>\n";
    for (const auto& m : r.at("mutants")) {
        const std::string s = m.at("status").get<std::string>();
        if (s != "survived" && s != "not_covered") continue;
        h += "<tr><td><code>" + esc(m.at("id").get<std::string>()) + "</code></td><td>" +
             (m.at("covered").get<bool>() ? "yes" : "no") + "</td><td>" + std::to_string(n(m, "inputs_run")) +
             "</td></tr>\n";
    }
    bool undecided = false;
    for (const auto& m : r.at("mutants")) {
        if (m.at("status") != "undecided") continue;
        if (!undecided)
            h += "</table>\n<h3>Undecided</h3>\n<table><tr><th>mutant</th><th>case</th><th>input</"
                 "th><th>how</th>"
                 "<th>detail</th></tr>\n";
        undecided = true;
        const ojson& u = m.at("undecided_by");
        h += "<tr><td><code>" + esc(m.at("id").get<std::string>()) + "</code></td><td>" +
             esc(u.value("case", std::string())) + "</td><td>" + esc(u.value("input", std::string())) +
             "</td><td>" + esc(u.value("how", std::string())) + "</td><td>" +
             esc(u.value("detail", std::string())) + "</td></tr>\n";
    }
    h += "</table>\n<details><summary>Killed "
         "mutants</summary><table><tr><th>mutant</th><th>case</th><th>input</th><th>how</th><th>detail</th></"
         "tr>\n";
    for (const auto& m : r.at("mutants")) {
        if (m.at("status") != "killed") continue;
        const ojson& k = m.at("killed_by");
        h += "<tr><td><code>" + esc(m.at("id").get<std::string>()) + "</code></td><td>" +
             esc(k.value("case", std::string())) + "</td><td>" + esc(k.value("input", std::string())) +
             "</td><td>" + esc(k.value("how", std::string())) + "</td><td>" +
             esc(k.value("detail", std::string())) + "</td></tr>\n";
    }
    h += "</table></details>\n";
    const ojson& stale = r.at("equivalents").at("stale");
    if (!stale.empty()) {
        h += "<h3>Stale equivalence arguments</h3><ul>\n";
        for (const auto& e : stale)
            h += "<li>" + esc(e.at("reason").get<std::string>()) + ": <code>" +
                 esc(e.at("routine").get<std::string>() + " " + e.at("operator").get<std::string>() + ": " +
                     e.at("instruction").get<std::string>()) +
                 "</code></li>\n";
        h += "</ul>\n";
    }
    h += "</section>\n";
    return h;
}

} // namespace refcheck::harness
