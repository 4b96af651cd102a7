// `refcheck merge --out DIR SHARD...`: one shard folder made from the input's files, cut at
// kSeparator: run.json, a case report (a.json) and its drcov file (a/coverage.drcov, copied as bytes
// like the frame pictures). merge reads them, checks the shard set, copies the files beside each
// report and writes the merged run (reports, run.json, JUnit, HTML). Bad bytes are a std::exception
// the CLI prints (exit 2); never a crash, a hang, a sanitizer finding or a file outside the folders.
#include "fuzz_support.hpp"
#include "refcheck/harness/run.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    const fs::path root = refcheck::fuzz::scratch() / "merge";
    const fs::path shard = root / "shard", out = root / "out";
    fs::remove_all(root);
    const auto parts = refcheck::fuzz::split({data, size}, 3);
    refcheck::fuzz::write_file(shard / "run.json", parts[0]);
    if (parts.size() > 1) refcheck::fuzz::write_file(shard / "a.json", parts[1]);
    if (parts.size() > 2) refcheck::fuzz::write_file(shard / "a" / "coverage.drcov", parts[2]);
    try {
        (void)refcheck::harness::merge({shard}, out);
    } catch (const std::exception&) {}
    return 0;
}
