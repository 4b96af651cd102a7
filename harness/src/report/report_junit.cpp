// JUnit XML: one <testcase> per case, so CI systems show each case as a test.
#include <sstream>
#include "refcheck/harness/report.hpp"

#include <fstream>
#include <stdexcept>

namespace refcheck::harness {

namespace {
std::string first_divergence_text(const ojson& report) {
    if (!report.contains("first_unexplained")) return report.value("error", std::string("divergent"));
    const ojson& d = report.at("first_unexplained");
    std::string text = "first unexplained divergence (" + d.value("kind", std::string()) + ") at input " +
                       d.value("input", std::string()) + ", original event #" +
                       std::to_string(d.value("original_index", 0ull)) + "\n";
    for (const auto& f : d.value("fields", ojson::array()))
        text += "  " + f.value("field", std::string()) + ": " + f.value("diff", std::string()) + "\n";
    return text;
}
} // namespace

void write_junit(const std::filesystem::path& file, const ojson& index, const std::vector<ojson>& reports) {
    std::ostringstream out;
    const auto& t = index.at("totals");
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"refcheck\" tests=\"" << t.at("cases").get<std::uint64_t>() << "\" failures=\""
        << t.at("divergent").get<std::uint64_t>() << "\" errors=\"" << t.at("error").get<std::uint64_t>()
        << "\">\n";
    out << " <testsuite name=\"refcheck\" tests=\"" << reports.size() << "\">\n";
    // A run with seeded faults says so where CI shows the suite: one property per modification.
    if (const ojson& seeded = member(index, "seeded_faults"); seeded.is_object()) {
        auto property = [&](const std::string& name, const std::string& value) {
            out << "   <property name=\"" << escape_markup(name) << "\" value=\"" << escape_markup(value)
                << "\"/>\n";
        };
        out << "  <properties>\n";
        property("refcheck.seeded_faults", seeded_fault_summary(seeded));
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
        out << "  </properties>\n";
    }
    for (const auto& r : reports) {
        const std::string name = r.at("case").get<std::string>();
        const std::string family = r.at("family").get<std::string>();
        const auto status = parse_status(r.at("status").get<std::string>());
        out << "  <testcase classname=\"refcheck." << escape_markup(family) << "\" name=\""
            << escape_markup(name) << "\">\n";
        if (status == Status::Divergent)
            out << "   <failure message=\"unexplained divergence\">"
                << escape_markup(first_divergence_text(r)) << "</failure>\n";
        else if (status == Status::Error)
            out << "   <error message=\"" << escape_markup(r.value("error", std::string("error")))
                << "\"/>\n";
        const ojson c = r.value("counts", ojson::object());
        out << "   <system-out>compared " << c.value("compared", 0ull) << ", matched "
            << c.value("matched", 0ull) << ", known " << c.value("known", 0ull) << ", unexplained "
            << c.value("unexplained", 0ull) << "</system-out>\n";
        out << "  </testcase>\n";
    }
    out << " </testsuite>\n</testsuites>\n";
    write_file_atomically(file, out.str());
}

} // namespace refcheck::harness
