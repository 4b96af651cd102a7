// refcheck workbench [--out DIR] [--records LIST] [--data DIR]: the model workbench, a static site
// that opens from file:// (harness/include/refcheck/harness/workbench.hpp does the work).
#include "command.hpp"

#include <chrono>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "refcheck/harness/workbench.hpp"

namespace refcheck::cli {
namespace {

// "16,17,100-120": record indices and inclusive ranges, each record once, in the order given. Every
// item is whole decimal digits within 32 bits: "4294967297" wrapped to record 1, "1-2x" read as
// 1-2, "1,1" exported record 1 twice (its faces counted twice), and "1," said only "stoul".
constexpr std::uint32_t kMostRecords = 1'000'000;

std::vector<std::uint32_t> parse_records(const std::string& list) {
    const auto bad = [&list](const std::string& why) {
        return std::invalid_argument("--records " + list + ": " + why +
                                     " (give record numbers and ranges, e.g. 16,17,100-120)");
    };
    const auto number = [&](const std::string& text) -> std::uint32_t {
        if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
            throw bad("\"" + text + "\" is not a record number");
        const unsigned long long v = std::stoull(text);
        if (v > 0xffffffffULL) throw bad(text + " is past the last possible record");
        return static_cast<std::uint32_t>(v);
    };
    std::vector<std::uint32_t> out;
    std::set<std::uint32_t> seen;
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t end = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, end - at);
        const std::size_t dash = item.find('-');
        const std::uint32_t from = number(item.substr(0, dash));
        const std::uint32_t to = dash == std::string::npos ? from : number(item.substr(dash + 1));
        if (to < from) throw bad("the range " + item + " runs backwards");
        if (to - from >= kMostRecords) throw bad("the range " + item + " is longer than any archive");
        for (std::uint64_t r = from; r <= to; ++r)
            if (!seen.insert(static_cast<std::uint32_t>(r)).second)
                throw bad("record " + std::to_string(r) + " is given twice");
            else
                out.push_back(static_cast<std::uint32_t>(r));
        at = end + 1;
    }
    return out;
}

} // namespace

const Command& workbench_command() {
    static const Command command{
        "workbench", "Write the model workbench: every record in 3D in the browser, from file://",
        [](CLI::App& app) -> std::function<int()> {
            auto out = std::make_shared<std::string>("out/workbench");
            auto records = std::make_shared<std::string>();
            auto data = std::make_shared<std::string>(REFCHECK_DEFAULT_DATA);
            app.add_option("--out", *out, "Folder of the site (index.html, record.html?r=N)")
                ->capture_default_str();
            app.add_option("--records", *records, "Records to export, e.g. 16,17,100-120 (default: all)");
            app.add_option("--data", *data, "Data root holding 3DDATA/ and 3DPAL.RGB")->capture_default_str();
            return [out, records, data] {
                harness::WorkbenchOptions options;
                options.data = *data;
                options.out = *out;
                try {
                    if (!records->empty()) options.records = parse_records(*records);
                    claim_out_folder("--out", *out, {}, nullptr, {{*data, "the data root " + *data, true}});
                    const auto start = std::chrono::steady_clock::now();
                    const harness::WorkbenchSummary s = harness::write_workbench(options);
                    const double seconds =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                    for (const auto& [record, error] : s.errors)
                        std::cerr << kPrefix << "workbench: record " << record << ": " << error << "\n";
                    std::cout << fmt::format(
                        "workbench: {} records, {} faces, {} triangles, {:.1f} MB in {:.1f} s\n", s.records,
                        s.faces, s.triangles, double(s.bytes) / 1e6, seconds);
                    std::cout << "open " << (std::filesystem::absolute(options.out) / "index.html").string()
                              << "\n";
                    return s.errors.empty() ? kEquivalent : kError;
                } catch (const std::exception& e) {
                    std::cerr << kPrefix << "workbench: " << e.what() << "\n";
                    return kError;
                }
            };
        }};
    return command;
}

} // namespace refcheck::cli
