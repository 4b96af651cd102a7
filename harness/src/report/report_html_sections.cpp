#include "report/html_sections.hpp"

#include "refcheck/harness/divergences.hpp"

#include <algorithm>
#include <sstream>

namespace refcheck::harness {

namespace {

std::string text(const ojson& j, const char* key) {
    const ojson& v = member(j, key);
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
}

std::string event_line(const ojson& e) {
    std::string line = text(e, "kind");
    for (const auto& [k, v] : member(e, "fields").items()) line += " " + k + "=" + v.dump();
    return line;
}

std::string event_table(const ojson& d) {
    std::ostringstream h;
    h << "<table class=diff><tr><th>field</th><th>original</th><th>reimpl</th></tr>";
    const ojson& o = member(d, "original");
    const ojson& r = member(d, "reimpl");
    std::vector<std::string> names;
    for (const ojson* e : {&o, &r})
        for (const auto& [k, v] : member(*e, "fields").items())
            if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    for (const auto& n : names) {
        const ojson& a = member(member(o, "fields"), n.c_str());
        const ojson& b = member(member(r, "fields"), n.c_str());
        const std::string x = a.is_null() ? "" : a.dump(), y = b.is_null() ? "" : b.dump();
        h << "<tr" << (x != y ? " class=bad" : "") << "><td>" << escape_markup(n) << "</td><td>"
          << escape_markup(x) << "</td><td>" << escape_markup(y) << "</td></tr>";
    }
    h << "</table>";
    return h.str();
}

std::string context_list(const ojson& events) {
    std::ostringstream h;
    h << "<ol class=ctx>";
    for (const auto& e : events) h << "<li>" << escape_markup(event_line(e)) << "</li>";
    h << "</ol>";
    return h.str();
}

std::string flatten(const ojson& v) {
    if (v.is_object()) {
        std::string out;
        for (const auto& [k, x] : v.items()) out += (out.empty() ? "" : ", ") + k + " " + flatten(x);
        return "(" + out + ")";
    }
    if (v.is_array()) {
        const bool short_scalars =
            v.size() <= 8 && std::all_of(v.begin(), v.end(), [](const ojson& x) { return x.is_primitive(); });
        if (!short_scalars) return std::to_string(v.size()) + " entries";
        std::string out;
        for (const auto& x : v) out += (out.empty() ? "" : " ") + flatten(x);
        return "[" + out + "]";
    }
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::uint64_t count(const ojson& counts, const char* key) {
    const ojson& v = member(counts, key);
    return v.is_number_unsigned() || v.is_number_integer() ? v.get<std::uint64_t>() : 0;
}

std::string link(const std::string& file, const std::string& label) {
    return "<a href=\"" + escape_markup(url_path(file)) + "\">" + escape_markup(label) + "</a>";
}

} // namespace

std::string metrics_text(const ojson& metrics) {
    std::string out;
    for (const auto& [k, v] : metrics.items()) out += (out.empty() ? "" : "; ") + k + " " + flatten(v);
    return out;
}

std::string divergence_headline(const ojson& d) {
    const std::string kind = text(d, "kind");
    const ojson& e = kind == "extra_in_reimpl" ? member(d, "reimpl") : member(d, "original");
    std::string line = kind + " at input " + text(d, "input") + ", original event #" +
                       std::to_string(d.value("original_index", 0ull)) + ", reimpl event #" +
                       std::to_string(d.value("reimpl_index", 0ull));
    if (e.is_object()) {
        std::string key = text(e, "kind");
        std::size_t n = 0;
        for (const auto& [k, v] : member(e, "fields").items())
            if (n++ < 3) key += " " + k + "=" + v.dump();
        line += ": " + key;
    }
    return line;
}

std::string divergence_section(const ojson& d) {
    std::ostringstream h;
    h << "<p class=headline>" << escape_markup(divergence_headline(d)) << "</p>";
    const ojson& fields = member(d, "fields");
    if (!fields.empty()) {
        h << "<ul class=fields>";
        for (const auto& f : fields)
            h << "<li><code>" << escape_markup(text(f, "field")) << "</code>: <code>"
              << escape_markup(text(f, "diff")) << "</code></li>";
        h << "</ul>";
    }
    const ojson& ctx = member(d, "context");
    h << "<div class=side><div><h4>original: before</h4>" << context_list(member(ctx, "original_before"))
      << "</div><div><h4>reimpl: before</h4>" << context_list(member(ctx, "reimpl_before")) << "</div></div>";
    h << event_table(d);
    h << "<div class=side><div><h4>original: after</h4>" << context_list(member(ctx, "original_after"))
      << "</div><div><h4>reimpl: after</h4>" << context_list(member(ctx, "reimpl_after")) << "</div></div>";
    return h.str();
}

std::string cases_table(const ojson& index) {
    std::ostringstream h;
    h << "<table class=cases><tr><th>case</th><th>family</th><th>status</th><th>compared</th><th>matched</th>"
         "<th>known (per cause)</th><th>unexplained (missing / extra / changed / faults)</th>"
         "<th class=metrics>metrics</th><th>report</th></tr>";
    for (const auto& row : index.at("cases")) {
        const ojson& c = member(row, "counts");
        const std::string name = row.at("case").get<std::string>();
        const std::string st = row.at("status").get<std::string>();
        std::string causes;
        for (const auto& [k, v] : member(c, "known_by_cause").items())
            causes += (causes.empty() ? "" : ", ") + k + " " + v.dump();
        // Matched pairs whose documented-fault flags the two sides gave differently.
        std::string flags_differ;
        for (const char* side : {"original_only", "reimpl_only"})
            for (const auto& [k, v] : member(member(c, "flags_disagree"), side).items())
                flags_differ += (flags_differ.empty() ? "" : ", ") + k + " " +
                                (side[0] == 'o' ? "original only " : "reimpl only ") + v.dump();
        h << "<tr class=" << st << "><td><a href=\"#case-" << escape_markup(name) << "\">"
          << escape_markup(name) << "</a></td><td>" << escape_markup(text(row, "family")) << "</td><td>" << st
          << "</td><td>" << count(c, "compared") << "</td><td>" << count(c, "matched")
          << (flags_differ.empty() ? "" : " (flags differ: " + escape_markup(flags_differ) + ")")
          << "</td><td>" << count(c, "known") << (causes.empty() ? "" : " (" + escape_markup(causes) + ")")
          << "</td><td>" << count(c, "unexplained");
        if (count(c, "unexplained"))
            h << " (" << count(c, "missing_in_reimpl") << " / " << count(c, "extra_in_reimpl") << " / "
              << count(c, "changed") << " / " << count(c, "faults") << ")";
        h << "</td><td class=metrics>" << escape_markup(metrics_text(member(row, "metrics"))) << "</td><td>"
          << link(text(row, "report"), text(row, "report")) << "</td></tr>";
    }
    h << "</table>";
    return h.str();
}

std::string known_by_cause_table(const ojson& index) {
    const ojson& total = member(member(member(index, "totals"), "counts"), "known_by_cause");
    std::ostringstream h;
    h << "<h2 id=known>Known divergences per cause</h2>";
    if (total.empty()) return h.str() + "<p>None in this run.</p>";
    h << "<table><tr><th>cause</th><th>events and frames</th><th>rule</th><th>what it "
         "is</th><th>cases</th></tr>";
    for (const auto& [id, n] : total.items()) {
        const KnownDivergence* k = find_known_divergence(id);
        std::string cases;
        for (const auto& row : index.at("cases"))
            if (const ojson& v = member(member(member(row, "counts"), "known_by_cause"), id.c_str());
                !v.is_null())
                cases += (cases.empty() ? "" : ", ") + row.at("case").get<std::string>() + " " + v.dump();
        h << "<tr><td><code>" << escape_markup(id) << "</code></td><td>" << n.dump() << "</td><td>"
          << escape_markup(k ? std::string(k->rule) : "") << "</td><td>"
          << escape_markup(k ? std::string(k->cause) : "(not in this build's registry)") << "</td><td>"
          << escape_markup(cases) << "</td></tr>";
    }
    h << "</table>";
    return h.str();
}

std::string case_files(const ojson& r) {
    const std::string name = r.at("case").get<std::string>();
    std::vector<std::string> links = {link(name + ".json", name + ".json (report)")};
    if (const ojson& drcov = member(member(r, "coverage"), "drcov"); drcov.is_string())
        links.push_back(link(drcov.get<std::string>(), drcov.get<std::string>() + " (drcov)"));
    for (const auto& f : member(r, "frames"))
        for (const char* k : {"original_png", "reimpl_png", "diff_png"})
            if (const ojson& p = member(f, k); p.is_string())
                links.push_back(link(p.get<std::string>(), p.get<std::string>()));
    std::string out = "<p class=files>Files: ";
    for (std::size_t i = 0; i < links.size(); ++i) out += (i ? " · " : "") + links[i];
    return out + "</p>";
}

std::string frames_section(const ojson& r) {
    const ojson& frames = member(r, "frames");
    const ojson& choice = member(r, "frame_selection");
    if (frames.empty() && !choice.is_object()) return "";
    std::ostringstream h;
    h << "<h3>Frames</h3>";
    if (choice.is_object())
        h << "<p>" << count(choice, "compared") << " frames compared, " << count(choice, "differing")
          << " differing. Shown: " << escape_markup(text(choice, "rule")) << " ("
          << count(choice, "shown_differing") << " differing, " << count(choice, "shown_sample")
          << " sampled).</p>";
    h << "<p class=legend>Each frame: the original, the reimplementation, and the difference: "
         "<span class=swatch style=\"background:#555\"></span> equal pixels (the original, dimmed), "
         "<span class=swatch style=\"background:#ffdc00\"></span> differing pixels a known divergence "
         "explains (its cause named), <span class=swatch style=\"background:#f00\"></span> differing pixels "
         "nothing explains.</p>";
    for (const auto& f : frames) {
        const std::uint64_t differing = count(f, "differing_pixels"),
                            unexplained = count(f, "unexplained_pixels");
        std::string causes;
        for (const auto& c : member(f, "explained_by"))
            causes += (causes.empty() ? "" : ", ") + c.get<std::string>();
        h << "<figure class=frame><figcaption><b>" << escape_markup(text(f, "input")) << "</b>: ";
        if (differing == 0)
            h << "identical (a sample)";
        else
            h << differing << " pixels differ; " << (differing - unexplained) << " explained"
              << (causes.empty() ? "" : " by " + escape_markup(causes)) << ", " << unexplained
              << " unexplained";
        h << "</figcaption>";
        for (const char* k : {"original_png", "reimpl_png", "diff_png"})
            if (const ojson& p = member(f, k); p.is_string())
                h << "<a href=\"" << escape_markup(url_path(p.get<std::string>()))
                  << "\"><img width=320 height=200 alt=\"" << escape_markup(k) << "\" src=\""
                  << escape_markup(url_path(p.get<std::string>())) << "\"></a>";
        h << "</figure>";
    }
    return h.str();
}

} // namespace refcheck::harness
