// PE32 loading (emu::Machine::load: LIEF's parse, then our mapping of headers and sections, base
// relocations, import binding to shims, exports and COFF symbols). An input of odd size is loaded at
// 0x30000000 instead of its preferred base, so the relocations run. The contract (machine.hpp): a bad
// file is an EmuError (LIEF's own exceptions are std::exceptions too; the CLI prints them, exit 2).
#include "fuzz_support.hpp"
#include "refcheck/emu/image.hpp"
#include "refcheck/emu/machine.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>

// Unicorn 2.1.1 leaks one 32-byte allocation per engine (tests/lsan_suppressions.cpp).
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the name LSan looks up
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = refcheck::fuzz::scratch() / "fuzz-image.exe";
    refcheck::fuzz::write_file(file, {data, size});
    try {
        refcheck::emu::Machine m;
        const std::optional<refcheck::emu::Address> base =
            size % 2 ? std::optional<refcheck::emu::Address>(0x30000000u) : std::nullopt;
        const refcheck::emu::Image& image = m.load(file, base);
        (void)refcheck::emu::address_names(image);
        for (const auto& s : image.sections) (void)image.section_at(s.range.begin);
        (void)image.is_code(image.entry);
        (void)m.stack();
    } catch (const std::exception&) {}
    return 0;
}
