// `refcheck show REPORT`: a case report read as refcheck show reads it (read_json, the schema, the
// header fields), its drill-down ("bisect") as text (format_drill_down) and as the HTML fragment of the
// run page (drill_down_html). Bad bytes are a std::exception the CLI prints (exit 2); never a crash,
// hang or sanitizer finding.
#include "fuzz_support.hpp"
#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/report.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace h = refcheck::harness;
    const auto file = refcheck::fuzz::scratch() / "case.json";
    refcheck::fuzz::write_file(file, {data, size});
    try {
        const h::ojson r = h::read_json(file);
        if (r.value("schema", std::string()) != h::kCaseReportSchema) return 0;
        std::string out = r.at("case").get<std::string>() + r.at("family").get<std::string>() +
                          r.at("status").get<std::string>();
        for (const auto& [k, v] : h::member(r, "inputs").items()) out += k + v.dump();
        out += r.value("counts", h::ojson::object()).dump();
        if (r.contains("bisect")) {
            out += h::format_drill_down(r.at("case").get<std::string>(), r.at("bisect"));
            out += h::drill_down_html(r.at("bisect"));
        }
        (void)h::parse_status(r.at("status").get<std::string>());
    } catch (const std::exception&) {}
    return 0;
}
