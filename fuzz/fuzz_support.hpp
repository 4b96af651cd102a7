// What the fuzz targets share: a private scratch folder for the readers that take a path, splitting
// one input into several files, and the archives of the small synthetic data root.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refcheck::fuzz {

// Between the files of a multi-file input (report_diff, report_merge); in their dictionaries.
inline constexpr std::string_view kSeparator = "\n--refcheck-fuzz-next-file--\n";

// A folder of this process's own under TMPDIR, removed when the process calls exit(); libFuzzer ends
// with _Exit, so scripts/fuzz.sh and the ctests point TMPDIR at a folder of the build tree they clear.
inline const std::filesystem::path& scratch() {
    static const std::filesystem::path dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/refcheck-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) {
            std::perror("refcheck fuzz: mkdtemp");
            std::abort();
        }
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(scratch(), ec);
        });
        return std::filesystem::path(pattern);
    }();
    return dir;
}

inline void write_file(const std::filesystem::path& file, std::span<const std::uint8_t> bytes) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "refcheck fuzz: cannot write %s\n", file.c_str());
        std::abort();
    }
}

// The input cut at each kSeparator, into at most `parts` pieces (the last one keeps the rest).
inline std::vector<std::span<const std::uint8_t>> split(std::span<const std::uint8_t> data,
                                                        std::size_t parts) {
    std::vector<std::span<const std::uint8_t>> out;
    const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
    std::size_t begin = 0;
    while (out.size() + 1 < parts) {
        const std::size_t at = all.find(kSeparator, begin);
        if (at == std::string_view::npos) break;
        out.push_back(data.subspan(begin, at - begin));
        begin = at + kSeparator.size();
    }
    out.push_back(data.subspan(begin));
    return out;
}

// parse() when it returns, nullopt when it refuses the bytes with `Refusal` (a parser's contract: the
// target then has nothing more to walk). Anything else it throws escapes, and libFuzzer reports it.
template <class Refusal, class Parse>
auto unless_refused(Parse&& parse) -> std::optional<decltype(parse())> {
    try {
        return std::forward<Parse>(parse)();
    } catch (const Refusal&) {
        return std::nullopt;
    }
}

// A file of the small synthetic data root (the build writes it; REFCHECK_SMALL_DATA names it).
inline std::vector<std::uint8_t> small_data_file(const char* relative) {
    const std::filesystem::path file = std::filesystem::path(REFCHECK_SMALL_DATA) / relative;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "refcheck fuzz: cannot read %s (build the data_small target)\n", file.c_str());
        std::abort();
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace refcheck::fuzz
