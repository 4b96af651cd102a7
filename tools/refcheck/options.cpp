// What the subcommands share about their arguments: checks made before any work, and the nearest
// valid name for a misspelt one.
#include "command.hpp"

#include "refcheck/harness/case.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace refcheck::cli {

namespace fs = std::filesystem;

CLI::Validator at_least_one() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            std::size_t used = 0;
            long long n = 0;
            try {
                n = std::stoll(value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != value.size() || value.empty())
                return "'" + value + "' is not a number of worker processes (a whole number, at least 1)";
            if (n < 1)
                return "'" + value +
                       "' worker processes: at least 1 runs anything (the default is the number of cores)";
            return {};
        },
        "N>=1");
}

CLI::Validator whole_number(std::uint64_t least, const std::string& zero_means) {
    const std::string name =
        zero_means.empty() ? "N>=" + std::to_string(least) : "0 or N>=" + std::to_string(least);
    return CLI::Validator(
        [least, zero_means](std::string& value) -> std::string {
            if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
                return "'" + value + "' is not a whole number (digits only, no sign)";
            std::uint64_t n = 0;
            try {
                n = std::stoull(value);
            } catch (const std::out_of_range&) {
                return "'" + value + "' is too large";
            }
            if (n == 0 && !zero_means.empty()) return {};
            if (n < least)
                return "'" + value + "' is below " + std::to_string(least) +
                       (zero_means.empty() ? std::string() : " (or 0: " + zero_means + ")");
            return {};
        },
        name);
}

CLI::Validator finite_number(double lo, double hi) {
    std::ostringstream range;
    range << lo << ".." << hi;
    return CLI::Validator(
        [lo, hi, shown = range.str()](std::string& value) -> std::string {
            std::size_t used = 0;
            double v = 0;
            try {
                v = std::stod(value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (value.empty() || used != value.size() || !std::isfinite(v))
                return "'" + value + "' is not a finite number";
            if (v < lo || v > hi) return "'" + value + "' is outside " + shown;
            return {};
        },
        range.str());
}

void claim_out_folder(const std::string& option, const std::string& dir,
                      const std::vector<fs::path>& case_files, const harness::RunOptions* options,
                      std::vector<harness::GuardedInput> more) {
    std::vector<harness::GuardedInput> inputs;
    for (const fs::path& f : case_files) {
        inputs.push_back({f.parent_path().empty() ? fs::path(".") : f.parent_path(),
                          "the folder of case file " + f.string()});
        if (!options) continue;
        try {
            const fs::path data = harness::resolve_environment(harness::load_case(f), *options).data;
            inputs.push_back({data, "the data root " + data.string(), true});
        } catch (const std::exception&) {
            // a case file that does not load is named when the command loads it
        }
    }
    for (auto& m : more) inputs.push_back(std::move(m));
    harness::claim_output_folder(option, dir, inputs);
}

harness::Patch parse_patch_option(const std::string& text) {
    try {
        return harness::parse_patch(text);
    } catch (const std::exception& e) {
        throw std::runtime_error("--patch '" + text + "': " + e.what());
    }
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}
} // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& names) {
    std::string best;
    std::size_t best_distance = 0;
    for (const auto& n : names) {
        std::size_t d = edit_distance(word, n);
        if (n.size() > word.size() && n.compare(0, word.size(), word) == 0 && word.size() >= 3)
            d = std::min<std::size_t>(d, 1); // a prefix: "--job" for "--jobs"
        if (best.empty() || d < best_distance) best = n, best_distance = d;
    }
    const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
    return best_distance <= allowed ? best : std::string();
}

void set_stand_ins(harness::RunOptions& o) {
    o.defaults = {REFCHECK_DEFAULT_IMAGE, REFCHECK_DEFAULT_PROFILE, REFCHECK_DEFAULT_DATA, std::nullopt,
                  nullptr};
    o.stand_ins["retail"] = {REFCHECK_RETAIL_IMAGE, REFCHECK_RETAIL_PROFILE, REFCHECK_DEFAULT_DATA,
                             std::nullopt, nullptr};
}

harness::RunOptions run_options(const std::string& image, const std::string& profile,
                                const std::string& data) {
    harness::RunOptions o;
    set_stand_ins(o);
    o.rules_document = fs::path(REFCHECK_SOURCE_DIR) / "docs" / "formats" / "apache-3d.md";
    o.coverage_reasons = fs::path(REFCHECK_SOURCE_DIR) / "cases" / "coverage" / "reasons.json";
    if (!image.empty()) o.image = image;
    if (!profile.empty()) o.profile = profile;
    if (!data.empty()) o.data = data;
    return o;
}

std::vector<std::filesystem::path> case_files(const std::vector<std::string>& given, bool second_stand_in) {
    std::vector<fs::path> out;
    if (given.empty()) {
        const fs::path cases = fs::path(REFCHECK_SOURCE_DIR) / "cases";
        out = harness::list_cases(cases);
        if (second_stand_in) {
            auto retail = harness::list_cases(cases / "retail");
            out.insert(out.end(), retail.begin(), retail.end());
        }
        return out;
    }
    for (const auto& g : given) {
        if (std::filesystem::is_directory(g)) {
            auto more = harness::list_cases(g);
            out.insert(out.end(), more.begin(), more.end());
        } else {
            out.emplace_back(g);
        }
    }
    return out;
}

} // namespace refcheck::cli
