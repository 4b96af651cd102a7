// refcheck show REPORT [--event N]: prints a case report for people: what ran on what (hashes),
// the counts, and a recorded divergence the way FileCheck prints a mismatch; for a divergent case,
// the drill-down `refcheck run` stored with it (the same text `refcheck bisect` prints).
#include "command.hpp"

#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/report.hpp"

#include <iostream>

namespace refcheck::cli {

using harness::ojson;

namespace {

std::string event_line(const ojson& e) {
    std::string line = e.value("kind", std::string());
    for (const auto& [k, v] : harness::member(e, "fields").items()) line += " " + k + "=" + v.dump();
    return line;
}

void print_divergence(const ojson& d) {
    const ojson ctx = d.value("context", ojson::object());
    std::cout << "divergence (" << d.value("kind", std::string()) << ") at input "
              << d.value("input", std::string()) << ": original event #" << d.value("original_index", 0ull)
              << ", reimpl event #" << d.value("reimpl_index", 0ull) << "\n";
    if (d.contains("explained_by"))
        std::cout << "  known divergence: " << d.at("explained_by").dump() << "\n";
    std::cout << "  original, before:\n";
    for (const auto& e : ctx.value("original_before", ojson::array()))
        std::cout << "    " << event_line(e) << "\n";
    std::cout << "  reimpl, before:\n";
    for (const auto& e : ctx.value("reimpl_before", ojson::array()))
        std::cout << "    " << event_line(e) << "\n";
    if (d.contains("original") && !d.at("original").is_null())
        std::cout << "  original: " << event_line(d.at("original")) << "\n";
    if (d.contains("reimpl") && !d.at("reimpl").is_null())
        std::cout << "  reimpl:   " << event_line(d.at("reimpl")) << "\n";
    for (const auto& f : d.value("fields", ojson::array()))
        std::cout << "  field " << f.value("field", std::string()) << ": " << f.value("diff", std::string())
                  << "\n";
    std::cout << "  original, after:\n";
    for (const auto& e : ctx.value("original_after", ojson::array()))
        std::cout << "    " << event_line(e) << "\n";
    std::cout << "  reimpl, after:\n";
    for (const auto& e : ctx.value("reimpl_after", ojson::array()))
        std::cout << "    " << event_line(e) << "\n";
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
                           "Show recorded divergence N (the first unexplained, then the first known)")
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
                std::cout << "case " << r.at("case").get<std::string>() << " ("
                          << r.at("family").get<std::string>() << "): " << r.at("status").get<std::string>()
                          << "\n";
                if (r.contains("error")) std::cout << "error: " << r.at("error").get<std::string>() << "\n";
                for (const auto& [k, v] : harness::member(r, "inputs").items())
                    std::cout << "  " << k << ": " << v.dump() << "\n";
                std::cout << "counts: " << r.value("counts", ojson::object()).dump() << "\n";
                if (r.contains("metrics")) std::cout << "metrics: " << r.at("metrics").dump() << "\n";
                // The recorded divergences: the first unexplained one, then the first known one.
                ojson divs = ojson::array();
                for (const char* k : {"first_unexplained", "first_known"})
                    if (r.contains(k)) divs.push_back(r.at(k));
                if (*event >= 0) {
                    if (static_cast<std::size_t>(*event) >= divs.size()) {
                        std::cerr << "refcheck: show: " << *file << " records " << divs.size()
                                  << " divergence(s)\n";
                        return kError;
                    }
                    print_divergence(divs.at(static_cast<std::size_t>(*event)));
                } else if (r.contains("first_unexplained")) {
                    print_divergence(r.at("first_unexplained"));
                    if (r.contains("bisect"))
                        std::cout << "\n"
                                  << harness::format_drill_down(r.at("case").get<std::string>(),
                                                                r.at("bisect"));
                }
                const std::string st = r.at("status").get<std::string>();
                return st == "equivalent" ? kEquivalent : st == "divergent" ? kDivergent : kError;
            };
        }};
    return command;
}

} // namespace refcheck::cli
