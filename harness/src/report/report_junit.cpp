// JUnit XML: one <testcase> per case, so CI systems show each case as a test, and in a shard's
// output one per part of a case split across the shards (run.json "parts"). The suite carries the
// usual counts (tests, failures, errors) and times; its properties name the image(s) by SHA-256 and
// every seeded fault; a divergent case's failure message names its first divergent event and the
// body holds the reproduce line.
#include "refcheck/harness/report.hpp"

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace refcheck::harness {

namespace {

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s < 0 ? 0.0 : s);
    return buf;
}

// "field_mismatch of face_draw at input 'record 3 view 1 light 0 state 0', field colour: 12 -> 13".
std::string first_divergence_message(const ojson& report) {
    if (!report.contains("first_unexplained")) return report.value("error", std::string("divergent"));
    const ojson& d = report.at("first_unexplained");
    const ojson& ev = member(d, "original").is_object() ? member(d, "original") : member(d, "reimpl");
    std::string text = "first unexplained divergence: " + d.value("kind", std::string("divergence"));
    if (ev.is_object() && ev.contains("kind")) text += " of " + ev.at("kind").get<std::string>() + " event";
    text += " at input '" + d.value("input", std::string()) + "'";
    const ojson fields = d.value("fields", ojson::array());
    if (!fields.empty()) {
        const ojson& f = fields.front();
        text += ", field " + f.value("field", std::string());
        if (f.contains("original") && f.contains("reimpl"))
            text += ": " + f.value("original", std::string()) + " -> " + f.value("reimpl", std::string());
        if (fields.size() > 1) text += " (+" + std::to_string(fields.size() - 1) + " more)";
    }
    return text;
}

std::string first_divergence_body(const ojson& report) {
    if (!report.contains("first_unexplained")) return report.value("error", std::string("divergent"));
    const ojson& d = report.at("first_unexplained");
    std::string text = first_divergence_message(report) + "\n" + "original event #" +
                       std::to_string(d.value("original_index", 0ull)) + ", reimpl event #" +
                       std::to_string(d.value("reimpl_index", 0ull)) + "\n";
    for (const auto& f : d.value("fields", ojson::array()))
        text += "  " + f.value("field", std::string()) + ": " + f.value("diff", std::string()) + "\n";
    if (const ojson& b = member(report, "bisect"); b.contains("reproduce"))
        text += "reproduce: " + b.at("reproduce").get<std::string>() + "\n";
    else if (const ojson& c = member(report, "crash"); c.contains("reproduce"))
        text += "reproduce: " + c.at("reproduce").get<std::string>() + "\n";
    return text;
}

} // namespace

std::string part_testcase_name(const std::string& case_name, std::size_t part, std::size_t of) {
    return case_name + " (part " + std::to_string(part + 1) + " of " + std::to_string(of) + ")";
}

void write_junit(const std::filesystem::path& file, const ojson& index, const std::vector<ojson>& reports,
                 const std::map<std::string, double>& seconds) {
    auto time_of = [&](const std::string& name) {
        const auto it = seconds.find(name);
        return it == seconds.end() ? 0.0 : it->second;
    };
    // A shard's parts of cases split across the shards: testcases too, counted with the cases.
    struct HeldPart {
        std::string name, case_name, status, file;
    };
    std::vector<HeldPart> parts;
    for (const ojson& row : member(index, "parts"))
        parts.push_back(
            {part_testcase_name(row.at("case").get<std::string>(), row.at("part").get<std::size_t>(),
                                row.at("of").get<std::size_t>()),
             row.at("case").get<std::string>(), row.at("status").get<std::string>(),
             row.at("file").get<std::string>()});
    double total_time = 0;
    for (const auto& r : reports) total_time += time_of(r.at("case").get<std::string>());
    std::uint64_t part_failures = 0, part_errors = 0;
    for (const HeldPart& p : parts) {
        total_time += time_of(p.name);
        part_failures += p.status == "divergent";
        part_errors += p.status == "error";
    }
    std::ostringstream out;
    const auto& t = index.at("totals");
    const std::string counts =
        "tests=\"" + std::to_string(t.at("cases").get<std::uint64_t>() + parts.size()) + "\" failures=\"" +
        std::to_string(t.at("divergent").get<std::uint64_t>() + part_failures) + "\" errors=\"" +
        std::to_string(t.at("error").get<std::uint64_t>() + part_errors) + "\" skipped=\"0\" time=\"" +
        seconds_text(total_time) + "\"";
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"refcheck\" " << counts << ">\n";
    out << " <testsuite name=\"refcheck\" " << counts << ">\n";
    auto property = [&](const std::string& name, const std::string& value) {
        out << "   <property name=\"" << escape_markup(name) << "\" value=\"" << escape_markup(value)
            << "\"/>\n";
    };
    out << "  <properties>\n";
    property("refcheck.version", refcheck_version());
    // The image(s) the cases ran on, by SHA-256, in the order the cases name them.
    std::set<std::string> seen;
    for (const auto& r : reports) {
        const ojson& image = member(member(r, "inputs"), "image");
        if (!image.is_object() || !image.contains("sha256")) continue;
        const std::string name = image.value("file", std::string("image"));
        if (seen.insert(name + "\n" + image.at("sha256").get<std::string>()).second)
            property("refcheck.image.sha256." + name, image.at("sha256").get<std::string>());
    }
    // A run with seeded faults says so where CI shows the suite: one property per modification.
    if (const ojson& seeded = member(index, "seeded_faults"); seeded.is_object()) {
        property("refcheck.seeded_faults", seeded_fault_summary(seeded, member(index, "seeded_effect")));
        std::size_t n = 0;
        for (const auto& p : member(seeded, "patches")) {
            std::string value = p.at("where").get<std::string>() + " at " +
                                p.at("address").get<std::string>() + " in " +
                                p.at("image").get<std::string>() + ": " + p.at("bytes").get<std::string>() +
                                " written over " + p.at("replaced").get<std::string>();
            if (p.contains("expected")) value += " (stated: " + p.at("expected").get<std::string>() + ")";
            property("refcheck.seeded_fault.patch." + std::to_string(n++), value);
        }
        if (seeded.contains("reimpl_light"))
            property("refcheck.seeded_fault.reimpl_light", seeded.at("reimpl_light").get<std::string>());
    }
    out << "  </properties>\n";
    for (const auto& r : reports) {
        const std::string name = r.at("case").get<std::string>();
        const std::string family = r.at("family").get<std::string>();
        const auto status = parse_status(r.at("status").get<std::string>());
        out << "  <testcase classname=\"refcheck." << escape_markup(family) << "\" name=\""
            << escape_markup(name) << "\" time=\"" << seconds_text(time_of(name)) << "\">\n";
        if (status == Status::Divergent)
            out << "   <failure type=\"divergence\" message=\"" << escape_markup(first_divergence_message(r))
                << "\">" << escape_markup(first_divergence_body(r)) << "</failure>\n";
        else if (status == Status::Error)
            out << "   <error message=\"" << escape_markup(r.value("error", std::string("error")))
                << "\"/>\n";
        const ojson c = r.value("counts", ojson::object());
        out << "   <system-out>compared " << c.value("compared", 0ull) << ", matched "
            << c.value("matched", 0ull) << ", known " << c.value("known", 0ull) << ", unexplained "
            << c.value("unexplained", 0ull) << "</system-out>\n";
        out << "  </testcase>\n";
    }
    for (const HeldPart& p : parts) {
        out << "  <testcase classname=\"refcheck.part\" name=\"" << escape_markup(p.name) << "\" time=\""
            << seconds_text(time_of(p.name)) << "\">\n";
        const std::string where = "this shard's part of case " + p.case_name + " (" + p.file +
                                  "); refcheck merge finishes the case from all the shards' parts";
        if (p.status == "divergent")
            out << "   <failure type=\"divergence\" message=\""
                << escape_markup("the part diverged: " + where) << "\"/>\n";
        else if (p.status != "equivalent")
            out << "   <error message=\"" << escape_markup("the part's status is " + p.status + ": " + where)
                << "\"/>\n";
        out << "  </testcase>\n";
    }
    out << " </testsuite>\n</testsuites>\n";
    write_file_atomically(file, out.str());
}

std::map<std::string, double> read_junit_times(const std::filesystem::path& file) {
    std::map<std::string, double> times;
    std::ifstream in(file);
    if (!in) return times;
    static const std::regex testcase(R"re(<testcase [^>]*name="([^"]*)" time="([0-9.]+)")re");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, testcase)) continue;
        std::string name = m[1].str();
        // escape_markup's entities, undone for the names refcheck writes
        for (const auto& [entity, ch] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                         {"&gt;", ">"},
                                         {"&quot;", "\""},
                                         {"&amp;", "&"}})
            for (std::size_t at; (at = name.find(entity)) != std::string::npos;)
                name.replace(at, entity.size(), ch);
        times[name] = std::stod(m[2].str());
    }
    return times;
}

} // namespace refcheck::harness
