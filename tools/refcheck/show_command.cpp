// refcheck show REPORT [--event N]: prints a case report for people: what ran on what (hashes),
// the counts, and a recorded divergence the way FileCheck prints a mismatch; for a divergent case,
// the drill-down `refcheck run` stored with it (the same text `refcheck bisect` prints).
#include "command.hpp"

#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/report.hpp"

#include <iostream>
#include <sstream>

namespace refcheck::cli {

using harness::ojson;

namespace {

std::string event_line(const ojson& e) {
    std::string line = e.value("kind", std::string());
    for (const auto& [k, v] : harness::member(e, "fields").items()) line += " " + k + "=" + v.dump();
    return line;
}

void print_divergence(std::ostream& out, const ojson& d) {
    const ojson ctx = d.value("context", ojson::object());
    out << "divergence (" << d.value("kind", std::string()) << ") at input "
        << d.value("input", std::string()) << ": original event #" << d.value("original_index", 0ull)
        << ", reimpl event #" << d.value("reimpl_index", 0ull) << "\n";
    if (d.contains("explained_by")) out << "  known divergence: " << d.at("explained_by").dump() << "\n";
    out << "  original, before:\n";
    for (const auto& e : ctx.value("original_before", ojson::array())) out << "    " << event_line(e) << "\n";
    out << "  reimpl, before:\n";
    for (const auto& e : ctx.value("reimpl_before", ojson::array())) out << "    " << event_line(e) << "\n";
    if (d.contains("original") && !d.at("original").is_null())
        out << "  original: " << event_line(d.at("original")) << "\n";
    if (d.contains("reimpl") && !d.at("reimpl").is_null())
        out << "  reimpl:   " << event_line(d.at("reimpl")) << "\n";
    for (const auto& f : d.value("fields", ojson::array()))
        out << "  field " << f.value("field", std::string()) << ": " << f.value("diff", std::string())
            << "\n";
    out << "  original, after:\n";
    for (const auto& e : ctx.value("original_after", ojson::array())) out << "    " << event_line(e) << "\n";
    out << "  reimpl, after:\n";
    for (const auto& e : ctx.value("reimpl_after", ojson::array())) out << "    " << event_line(e) << "\n";
}

// nlohmann's message without its "[json.exception.type_error.302] " prefix, which says nothing to a
// person.
std::string json_message(const nlohmann::json::exception& e) {
    const std::string what = e.what();
    const auto end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

// The members of a case report show reads, checked before anything is printed, so that a malformed
// report is named with its file and the member that is wrong (a JSON pointer, "/first_known/kind"):
// they were read with at(), get() and value(), and a string where an object belongs gave nlohmann's
// bare "cannot use at() with string".
void check_report_shape(const ojson& r, const std::string& file) {
    const auto bad = [&](const std::string& where, const ojson& v, const char* wanted) {
        throw std::runtime_error(file + ": " + where + " is " +
                                 (v.is_null() ? std::string("missing") : v.dump().substr(0, 80)) + ", not " +
                                 wanted + "; a case report refcheck run writes has it so");
    };
    const auto check = [&](const ojson& j, const char* key, const std::string& where, bool required,
                           bool (ojson::*is)() const noexcept, const char* wanted) {
        const ojson& v = harness::member(j, key);
        if ((required || !v.is_null()) && !(v.*is)()) bad(where + "/" + key, v, wanted);
    };
    for (const char* key : {"case", "family", "status"})
        check(r, key, "", true, &ojson::is_string, "a string");
    const std::string status = r.at("status").get<std::string>();
    if (status != "equivalent" && status != "divergent" && status != "error")
        bad("/status", r.at("status"), "equivalent, divergent or error");
    check(r, "error", "", false, &ojson::is_string, "a string");
    check(r, "stopped", "", false, &ojson::is_string, "a string");
    check(r, "counts", "", false, &ojson::is_object, "an object");
    check(r, "bisect", "", false, &ojson::is_object, "an object (the drill-down)");
    const auto event = [&](const ojson& e, const std::string& where) {
        if (!e.is_object()) bad(where, e, "an event (an object)");
        check(e, "kind", where, false, &ojson::is_string, "a string");
    };
    for (const char* d : {"first_unexplained", "first_known"}) {
        const ojson& div = harness::member(r, d);
        if (div.is_null()) continue;
        const std::string where = std::string("/") + d;
        if (!div.is_object()) bad(where, div, "a divergence (an object)");
        check(div, "kind", where, false, &ojson::is_string, "a string");
        check(div, "input", where, false, &ojson::is_string, "a string");
        check(div, "original_index", where, false, &ojson::is_number_unsigned, "an event index");
        check(div, "reimpl_index", where, false, &ojson::is_number_unsigned, "an event index");
        for (const char* side : {"original", "reimpl"})
            if (!harness::member(div, side).is_null()) event(div.at(side), where + "/" + side);
        check(div, "context", where, false, &ojson::is_object, "an object");
        for (const char* k : {"original_before", "reimpl_before", "original_after", "reimpl_after"}) {
            const ojson& events = harness::member(harness::member(div, "context"), k);
            const std::string at = where + "/context/" + k;
            if (events.is_null()) continue;
            if (!events.is_array()) bad(at, events, "an array of events");
            for (std::size_t i = 0; i < events.size(); ++i) event(events[i], at + "/" + std::to_string(i));
        }
        check(div, "fields", where, false, &ojson::is_array, "an array");
        const ojson& fields = harness::member(div, "fields");
        for (std::size_t i = 0; i < fields.size() && fields.is_array(); ++i) {
            const std::string at = where + "/fields/" + std::to_string(i);
            if (!fields[i].is_object()) bad(at, fields[i], "a field (an object)");
            check(fields[i], "field", at, false, &ojson::is_string, "a string");
            check(fields[i], "diff", at, false, &ojson::is_string, "a string");
        }
    }
}

// The report as show prints it, whole: nothing is printed of a report that turns out malformed.
std::string show_text(const ojson& r, const std::string& file, int event) {
    std::ostringstream out;
    out << "case " << r.at("case").get<std::string>() << " (" << r.at("family").get<std::string>()
        << "): " << r.at("status").get<std::string>() << "\n";
    if (r.contains("error")) out << "error: " << r.at("error").get<std::string>() << "\n";
    // Why the case ended before its last input: its counts cover only what ran until then.
    if (r.contains("stopped")) out << "stopped: " << r.at("stopped").get<std::string>() << "\n";
    // A verdict on a modified original is not a verdict on the image: every seeded patch is named.
    for (const auto& p : harness::member(harness::member(r, "injected"), "patches")) {
        const auto text = [&p](const char* k) {
            const ojson& v = harness::member(p, k);
            return v.is_string() ? v.get<std::string>() : v.dump();
        };
        out << "seeded patch (the original was modified): " << text("where") << " at " << text("address")
            << ", " << text("replaced") << " -> " << text("bytes") << ", "
            << (!p.contains("executed")
                    ? std::string("the case stopped before its coverage could tell whether it ran")
                : p.at("executed").is_null()
                    ? (p.contains("executed_unknown")
                           ? "coverage cannot tell whether it ran: " +
                                 p.at("executed_unknown").get<std::string>()
                           : std::string(
                                 "outside the covered routines, where coverage cannot tell whether it ran"))
                : p.at("executed") == true ? std::string("it ran in this case")
                                           : std::string("it never ran in this case"))
            << "\n";
    }
    if (const ojson& light = harness::member(harness::member(r, "injected"), "reimpl_light");
        light.is_string())
        out << "seeded for the reimplementation: " << light.get<std::string>() << "\n";
    for (const auto& [k, v] : harness::member(r, "inputs").items())
        out << "  " << k << ": " << v.dump() << "\n";
    out << "counts: " << r.value("counts", ojson::object()).dump() << "\n";
    if (r.contains("metrics")) out << "metrics: " << r.at("metrics").dump() << "\n";
    // The recorded divergences: the first unexplained one, then the first known one.
    ojson divs = ojson::array();
    std::vector<std::string> which;
    for (const char* k : {"first_unexplained", "first_known"})
        if (r.contains(k)) {
            divs.push_back(r.at(k));
            which.push_back(k == std::string("first_unexplained") ? "the first unexplained"
                                                                  : "the first known");
        }
    if (event >= 0) {
        if (static_cast<std::size_t>(event) >= divs.size())
            throw std::runtime_error(file + " records " + std::to_string(divs.size()) +
                                     " divergence(s): --event " + std::to_string(event) +
                                     " is not one of them");
        // Which one it is: with no unexplained divergence, 0 is the first known.
        out << "divergence " << event << " of " << divs.size()
            << " recorded: " << which.at(static_cast<std::size_t>(event)) << "\n";
        print_divergence(out, divs.at(static_cast<std::size_t>(event)));
    } else if (r.contains("first_unexplained")) {
        print_divergence(out, r.at("first_unexplained"));
        if (r.contains("bisect")) {
            out << "\n";
            try {
                out << harness::format_drill_down(r.at("case").get<std::string>(), r.at("bisect"));
            } catch (const nlohmann::json::exception& e) {
                throw std::runtime_error(file +
                                         ": its drill-down (/bisect) is not one refcheck run writes (" +
                                         json_message(e) + ")");
            }
        }
    }
    return out.str();
}

} // namespace

const Command& show_command() {
    static const Command command{
        "show", "Print a case report: inputs by hash, counts, and its divergences",
        [](CLI::App& app) -> std::function<int()> {
            auto file = std::make_shared<std::string>();
            auto event = std::make_shared<int>(-1);
            app.add_option("report", *file, "A case report (JSON) written by refcheck run")->required();
            app.add_option("--event", *event,
                           "Show recorded divergence N, in order: the first unexplained (when there is one), "
                           "then the first known; the output names which")
                ->check(whole_number(0));
            return [file, event] {
                const std::string wanted =
                    "refcheck show reads a case report, out/run/CASE.json, written by refcheck run";
                ojson r;
                try {
                    r = harness::read_json(*file);
                } catch (const std::exception& e) {
                    throw std::runtime_error(std::string(e.what()) + "; " + wanted);
                }
                if (!r.is_object() || !r.contains("schema") || !r.at("schema").is_string())
                    throw std::runtime_error(
                        *file + " is JSON but has no \"schema\": not a refcheck case report; " + wanted);
                if (r.at("schema").get<std::string>() != harness::kCaseReportSchema)
                    throw std::runtime_error(*file + " is a " + r.at("schema").get<std::string>() +
                                             " document, not a case report (" + harness::kCaseReportSchema +
                                             "); " + wanted);
                check_report_shape(r, *file);
                std::cout << show_text(r, *file, *event);
                const std::string st = r.at("status").get<std::string>();
                return st == "equivalent" ? kEquivalent : st == "divergent" ? kDivergent : kError;
            };
        }};
    return command;
}

} // namespace refcheck::cli
