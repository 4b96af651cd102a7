// 3DPAL.RGB and the tables built from it (palette.hpp): a short file is a FormatError, any 672 bytes
// build every table. The byte after the file colours, when present, picks the warzone (0..3).
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/palette.hpp"

#include <cstddef>
#include <cstdint>

using namespace refcheck::reimpl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto colours = read_palette_file({data, size});
        const std::uint32_t warzone = size > kPaletteFileSize ? data[kPaletteFileSize] % kWarzoneCount : 0;
        const PaletteTables tables = build_palette(colours, warzone);
        unsigned sum = 0;
        for (std::uint32_t level = 0; level < kIntensityLevels; ++level)
            for (std::uint32_t c = 0; c < kPaletteSize; ++c)
                sum += tables.shade(level, static_cast<std::uint8_t>(c));
        if (sum > kIntensityLevels * kPaletteSize * 255u) __builtin_trap();
    } catch (const FormatError&) {
        if (size >= kPaletteFileSize) __builtin_trap(); // later bytes are ignored: 672 always read
    }
    return 0;
}
