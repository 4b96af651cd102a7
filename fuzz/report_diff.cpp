// `refcheck diff OLD NEW`: two run indexes (run.json; the input's two files are cut at kSeparator)
// read by load_run_index, compared by diff_runs and printed by diff_text. Bad bytes are a DiffError,
// or another std::exception the CLI prints (exit 2); never a crash, hang or sanitizer finding.
#include "fuzz_support.hpp"
#include "refcheck/harness/diff.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace h = refcheck::harness;
    const auto parts = refcheck::fuzz::split({data, size}, 2);
    const auto old_file = refcheck::fuzz::scratch() / "old" / "run.json";
    const auto new_file = refcheck::fuzz::scratch() / "new.json";
    refcheck::fuzz::write_file(old_file, parts[0]);
    refcheck::fuzz::write_file(new_file, parts.size() > 1 ? parts[1] : parts[0]);
    try {
        const h::ojson d =
            h::diff_runs(h::load_run_index(old_file.parent_path()), h::load_run_index(new_file));
        (void)h::diff_text(d);
        (void)h::regressed(d);
        (void)d.dump(1);
    } catch (const std::exception&) {}
    return 0;
}
