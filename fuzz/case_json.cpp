// Case files (harness load_case, schema refcheck-case/1): any bytes give a Case or a CaseError naming
// the file, nothing else (load_case's contract; the CLI prints it and exits 2).
#include "fuzz_support.hpp"
#include "refcheck/harness/case.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = refcheck::fuzz::scratch() / "fuzz-case.json";
    refcheck::fuzz::write_file(file, {data, size});
    try {
        const refcheck::harness::Case c = refcheck::harness::load_case(file);
        if (c.name != "fuzz-case") __builtin_trap();
        (void)refcheck::harness::default_compared_kinds(c.family, !c.run.empty());
    } catch (const refcheck::harness::CaseError&) {}
    return 0;
}
