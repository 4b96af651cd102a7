// The drill-down for people: FileCheck-style text (refcheck bisect) and an HTML section (index.html).
#include "refcheck/harness/bisect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace refcheck::harness {

namespace {

// The program offset of a disassembly line ("> 0012  02 00 ..." or "  0012 ..."), if it is one.
std::optional<std::uint32_t> line_offset(const std::string& line) {
    if (line.size() < 5 || (line[0] != ' ' && line[0] != '>')) return std::nullopt;
    std::uint32_t v = 0;
    for (std::size_t i = 1; i < 5; ++i) {
        const char c = line[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return std::nullopt;
        v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
}

std::string value_text(const ojson& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// j[key] as a string; empty when j is not an object or has no such string.
std::string text_of(const ojson& j, const char* key) {
    const ojson& v = member(j, key);
    return v.is_string() ? v.get<std::string>() : std::string();
}

std::string event_line(const ojson& e) {
    if (!e.is_object()) return "(none)";
    std::string line = e.value("kind", std::string());
    for (const auto& [k, v] : member(e, "fields").items()) line += " " + k + "=" + value_text(v);
    return line;
}

std::string kind_words(const std::string& kind) {
    if (kind == "missing_in_reimpl") return "the original's event has no counterpart in the reimplementation";
    if (kind == "extra_in_reimpl") return "the reimplementation's event has no counterpart in the original";
    return "the events differ";
}

void context_lines(std::ostringstream& s, const char* side, const ojson& events, std::size_t index) {
    s << "note: " << (events.empty() ? "no" : std::to_string(events.size())) << " event"
      << (events.size() == 1 ? "" : "s") << " before it, " << side << (events.empty() ? "" : ":") << "\n";
    std::size_t n = index - std::min(index, events.size());
    for (const auto& e : events) s << fmt::format("  #{:<4} {}\n", n++, event_line(e));
}

void listing_text(std::ostringstream& s, const ojson& l) {
    s << fmt::format("note: draw program of record {} around +0x{:04x} ({}):\n",
                     l.at("record").get<std::uint32_t>(), l.at("offset").get<std::uint32_t>(),
                     l.value("centred_on", std::string()));
    for (const auto& line : l.at("lines")) s << "  " << line.get<std::string>() << "\n";
}

void window_text(std::ostringstream& s, const ojson& w) {
    s << "note: the original's instructions from " << w.at("from").get<std::string>() << " to "
      << w.at("to").get<std::string>() << ": " << w.at("executed").get<std::uint64_t>() << " executed\n";
    for (const auto& line : w.at("lines")) s << "  " << line.get<std::string>() << "\n";
    std::string routines;
    for (const auto& r : w.at("routines"))
        routines += (routines.empty() ? "" : ", ") + r.at("routine").get<std::string>() + " " +
                    std::to_string(r.at("instructions").get<std::uint64_t>());
    if (!routines.empty()) s << "note: instructions per routine, in order of first use: " << routines << "\n";
}

// The kind of the event a divergence is about.
std::string divergent_kind(const ojson& d) {
    const ojson& o = member(d, "original");
    return text_of(o.is_object() ? o : member(d, "reimpl"), "kind");
}

std::string frame_text(const ojson& f) {
    const std::string how = f.value("found_by", std::string());
    return f.value("address", std::string()) + " " + f.value("symbol", std::string()) +
           (how == "eip"          ? ""
            : how == "stack scan" ? "  (stack scan: may be stale)"
                                  : "  (" + how + ")");
}

std::string registers_line(const ojson& r) {
    std::string line;
    const ojson& args = member(r, "arguments");
    for (const auto& [name, v] : member(r, "values").items()) {
        line += (line.empty() ? "" : " ") + name + "=" + v.get<std::string>();
        if (args.contains(name)) line += " (" + args.at(name).get<std::string>() + ")";
    }
    return line;
}

// A frame divergence's pixel, one line per side: how often each wrote it, and its last writes
// ("#33 face_draw 0x00403608 <plot+0x58> = 3"; the reimplementation's without an instruction).
std::vector<std::string> pixel_lines(const ojson& px) {
    std::vector<std::string> out;
    const std::string where =
        fmt::format("({},{})", px.at("x").get<std::uint32_t>(), px.at("y").get<std::uint32_t>());
    for (const char* side : {"original", "reimpl"}) {
        const ojson& w = member(px, side);
        if (!w.is_object()) continue;
        const auto writes = w.at("writes").get<std::uint64_t>();
        const ojson& last = w.at("last");
        std::string line = fmt::format("pixel {} of the {} ({}): written {} time{}", where,
                                       side == std::string("original") ? "original" : "reimplementation",
                                       w.at("value").get<int>(), writes, writes == 1 ? "" : "s");
        if (writes == 0) line += ", so it is the background's";
        if (last.size() < writes) line += fmt::format(", the last {} shown", last.size());
        for (const auto& e : last) {
            const ojson& k = member(e, "event");
            line += "; " + (k.is_null() ? std::string("before event #0")
                                        : "#" + k.dump() + " " + text_of(e, "kind"));
            if (e.contains("at")) line += " " + text_of(e, "eip") + " <" + text_of(e, "at") + ">";
            line += " = " + e.at("value").dump();
        }
        if (!w.value("accounts_for_value", false))
            line += " (the last write is not the value compared: writes were missed)";
        out.push_back(line);
    }
    for (const auto& u : member(px, "unavailable"))
        out.push_back("pixel " + where + ": not available: " + u.get<std::string>());
    return out;
}

} // namespace

std::vector<std::string> listing_around(const std::string& disassembly, std::uint32_t offset,
                                        std::size_t context) {
    std::vector<std::string> lines;
    std::istringstream in(disassembly);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::size_t at = lines.size();
    for (std::size_t i = 0; i < lines.size() && at == lines.size(); ++i)
        if (const auto o = line_offset(lines[i]); o && *o >= offset) at = i;
    const bool exact = at < lines.size() && line_offset(lines[at]) == offset;
    std::vector<std::string> out;
    const std::size_t from = at - std::min(at, context);
    const std::size_t to = std::min(lines.size(), at + (exact ? 1 : 0) + context);
    for (std::size_t i = from; i < to; ++i) {
        if (i == at && !exact) out.push_back(fmt::format("-> +0x{:04x}: no instruction starts here", offset));
        out.push_back((i == at && exact ? "-> " : "   ") + lines[i]);
    }
    if (at == lines.size() && !exact)
        out.push_back(fmt::format("-> +0x{:04x}: no instruction starts here", offset));
    return out;
}

std::vector<std::string> field_diff_lines(const ojson& original, const ojson& reimpl) {
    std::vector<std::string> names;
    for (const ojson* e : {&original, &reimpl})
        for (const auto& [k, v] : member(*e, "fields").items())
            if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    std::vector<std::string> out;
    for (const auto& n : names) {
        const ojson& a = member(member(original, "fields"), n.c_str());
        const ojson& b = member(member(reimpl, "fields"), n.c_str());
        const std::string ta = a.is_null() ? "(none)" : value_text(a),
                          tb = b.is_null() ? "(none)" : value_text(b);
        out.push_back(a == b ? "  " + n + ": " + ta : "! " + n + ": " + ta + " -> " + tb);
    }
    return out;
}

std::string format_drill_down(const std::string& case_name, const ojson& dd) {
    std::ostringstream s;
    const ojson& d = dd.at("divergence");
    const std::size_t i = d.value("original_index", std::size_t{0}),
                      j = d.value("reimpl_index", std::size_t{0});
    const std::string kind = d.value("kind", std::string());
    const std::string at =
        i == j ? fmt::format("event #{}", i) : fmt::format("event #{} (original) / #{} (reimpl)", i, j);
    s << "error: first divergence at " << at << " (case " << case_name << ", input "
      << dd.at("input").get<std::string>() << "): " << kind_words(kind) << " (" << kind << ")\n";
    if (d.contains("explained_by")) s << "note: explained by " << d.at("explained_by").dump() << "\n";
    s << "note: "
      << dd.value("note", std::string(dd.value("confirmed", false)
                                          ? "the narrowed re-run (this input only) diverges at the same event"
                                          : "not confirmed by the narrowed re-run"))
      << "\n";
    const ojson& ctx = member(d, "context");
    context_lines(s, "original", member(ctx, "original_before"), i);
    context_lines(s, "reimpl", member(ctx, "reimpl_before"), j);
    const ojson& near = member(dd, "near_miss");
    const ojson& near_event = member(near, "event");
    auto side_line = [&](const char* side) {
        const ojson& e = member(d, side);
        if (e.is_object() || text_of(near, "side") != side) return event_line(e);
        return "(none; the " + std::string(side) +
               "'s next event, the nearest near miss: " + event_line(near_event) + ")";
    };
    s << fmt::format("original #{:<4} {}\n", i, side_line("original"));
    s << fmt::format("reimpl   #{:<4} {}\n", j, side_line("reimpl"));
    ojson a = member(d, "original"), b = member(d, "reimpl");
    const bool against_near = near_event.is_object() && text_of(near_event, "kind") == divergent_kind(d);
    if (against_near) (a.is_object() ? b : a) = near_event;
    if (against_near) s << "note: field by field against the near miss:\n";
    for (const auto& line : field_diff_lines(a, b)) s << "  " << line << "\n";
    // Differences the comparison found beyond the events' own fields (a frame's pixels).
    auto has = [](const ojson& e, const std::string& n) {
        return !member(member(e, "fields"), n.c_str()).is_null();
    };
    for (const auto& f : member(d, "fields")) {
        const std::string n = text_of(f, "field");
        if (!has(a, n) && !has(b, n)) s << "  ! " << n << ": " << text_of(f, "diff") << "\n";
    }
    if (dd.contains("listing")) listing_text(s, dd.at("listing"));
    if (dd.contains("pixel"))
        for (const auto& line : pixel_lines(dd.at("pixel"))) s << "note: " << line << "\n";
    if (dd.contains("instructions")) window_text(s, dd.at("instructions"));
    if (dd.contains("registers"))
        s << "note: registers at " << dd.at("registers").at("at").get<std::string>()
          << " (the hook of the divergent "
          << "event):\n  " << registers_line(dd.at("registers")) << "\n";
    if (dd.contains("call_stack")) {
        const ojson& cs = dd.at("call_stack");
        s << "note: guest call stack, innermost first (" << cs.at("method").get<std::string>() << "):\n";
        std::size_t n = 0;
        for (const auto& f : cs.at("frames")) s << "  #" << n++ << " " << frame_text(f) << "\n";
    }
    for (const auto& u : member(dd, "unavailable"))
        s << "note: not available: " << u.get<std::string>() << "\n";
    s << "reproduce: " << dd.at("reproduce").get<std::string>() << "\n";
    return s.str();
}

std::string drill_down_html(const ojson& dd, bool open) {
    std::ostringstream h;
    if (dd.contains("error")) {
        h << "<p class=error>drill-down failed: " << escape_markup(dd.at("error").get<std::string>())
          << "</p>";
        return h.str();
    }
    const ojson& d = dd.at("divergence");
    h << "<details class=bisect" << (open ? " open" : "") << "><summary>Drill-down (refcheck bisect): event #"
      << d.value("original_index", 0ull) << " of input <code>"
      << escape_markup(dd.at("input").get<std::string>()) << "</code>"
      << (dd.value("confirmed", false) ? ", reproduced alone" : "") << "</summary>";
    if (dd.contains("note")) h << "<p>" << escape_markup(dd.at("note").get<std::string>()) << "</p>";
    if (dd.contains("reproduce_pasteable"))
        h << "<p>reproduce (paste into a shell in the project's root):</p><pre class=reproduce>"
          << escape_markup(dd.at("reproduce_pasteable").get<std::string>()) << "</pre>";
    else
        h << "<p>reproduce: <code>" << escape_markup(dd.at("reproduce").get<std::string>()) << "</code></p>";
    if (const ojson& near = member(dd, "near_miss"); near.is_object())
        h << "<p>the " << escape_markup(text_of(near, "side")) << "'s next event #"
          << near.value("index", 0ull) << " (the nearest near miss): <code>"
          << escape_markup(event_line(member(near, "event"))) << "</code></p>";
    if (dd.contains("listing")) {
        const ojson& l = dd.at("listing");
        h << fmt::format("<h4>draw program of record {} around +0x{:04x}</h4><pre>",
                         l.at("record").get<std::uint32_t>(), l.at("offset").get<std::uint32_t>());
        for (const auto& line : l.at("lines")) {
            const std::string t = escape_markup(line.get<std::string>());
            h << (t.rfind("-&gt;", 0) == 0 ? "<b class=mark>" + t + "</b>" : t) << "\n";
        }
        h << "</pre>";
    }
    if (dd.contains("pixel")) {
        h << "<h4>who wrote the first differing pixel</h4><pre>";
        for (const auto& line : pixel_lines(dd.at("pixel"))) h << escape_markup(line) << "\n";
        h << "</pre>";
    }
    if (dd.contains("instructions")) {
        const ojson& w = dd.at("instructions");
        h << "<h4>the original's instructions: " << w.at("executed").get<std::uint64_t>() << " executed from "
          << escape_markup(w.at("from").get<std::string>()) << " to "
          << escape_markup(w.at("to").get<std::string>()) << "</h4><pre>";
        for (const auto& line : w.at("lines")) h << escape_markup(line.get<std::string>()) << "\n";
        h << "</pre>";
    }
    if (dd.contains("registers"))
        h << "<h4>registers at " << escape_markup(dd.at("registers").at("at").get<std::string>())
          << "</h4><pre>" << escape_markup(registers_line(dd.at("registers"))) << "</pre>";
    if (dd.contains("call_stack")) {
        h << "<h4>guest call stack</h4><pre>";
        std::size_t n = 0;
        for (const auto& f : dd.at("call_stack").at("frames"))
            h << "#" << n++ << " " << escape_markup(frame_text(f)) << "\n";
        h << "</pre>";
    }
    for (const auto& u : member(dd, "unavailable"))
        h << "<p>not available: " << escape_markup(u.get<std::string>()) << "</p>";
    h << "</details>";
    return h.str();
}

} // namespace refcheck::harness
