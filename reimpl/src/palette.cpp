#include "refcheck/reimpl/palette.hpp"

#include <fmt/format.h>

#include "refcheck/reimpl/format_error.hpp"

namespace refcheck::reimpl {
namespace {

using Target = std::array<std::int32_t, 3>;

template <class F>
std::array<std::uint8_t, kPaletteSize> remap_table(const std::array<Rgb, kPaletteSize>& rgb, F target_of) {
    std::array<std::uint8_t, kPaletteSize> out{};
    for (std::uint32_t c = 0; c < kPaletteSize; ++c) out[c] = nearest_file_colour(rgb, target_of(rgb[c]));
    return out;
}

void fill_palette(PaletteTables& t, const std::array<Rgb, kFileColours>& file, const WarzoneColours& zone) {
    std::copy(file.begin(), file.end(), t.rgb.begin());
    std::copy(zone.sky.begin(), zone.sky.end(), t.rgb.begin() + 224);
    std::copy(zone.fog.begin(), zone.fog.end(), t.rgb.begin() + 232);
    std::copy(zone.terrain.begin(), zone.terrain.end(), t.rgb.begin() + 240);
}

void fill_intensity(PaletteTables& t) {
    for (std::uint32_t level = 0; level < kIntensityLevels; ++level) {
        for (std::uint32_t c = 0; c < kPaletteSize; ++c) {
            Target target{};
            for (int ch = 0; ch < 3; ++ch)
                target[ch] = (t.rgb[c][ch] * static_cast<std::int32_t>(level + 1)) >> 5;
            t.intensity[level * kPaletteSize + c] = nearest_file_colour(t.rgb, target);
        }
    }
}

} // namespace

std::uint8_t nearest_file_colour(const std::array<Rgb, kPaletteSize>& rgb, const Target& target) {
    std::uint32_t best = 0;
    std::int64_t best_distance = INT64_MAX;
    for (std::uint32_t i = 0; i < kFileColours; ++i) {
        std::int64_t d = 0;
        for (int ch = 0; ch < 3; ++ch) {
            const std::int64_t delta = std::int64_t{rgb[i][ch]} - target[ch];
            d += delta * delta;
        }
        if (d < best_distance) {
            best_distance = d;
            best = i;
        }
    }
    return static_cast<std::uint8_t>(best);
}

std::array<Rgb, kFileColours> read_palette_file(std::span<const std::uint8_t> bytes) {
    if (bytes.size() < kPaletteFileSize) {
        fail(Location{std::string(kPaletteFileName), std::nullopt, bytes.size(), Check::open},
             fmt::format("the palette needs {} bytes ({} colours), the file has {}", kPaletteFileSize,
                         kFileColours, bytes.size()));
    }
    std::array<Rgb, kFileColours> out{};
    for (std::uint32_t i = 0; i < kFileColours; ++i)
        out[i] = {bytes[3 * i], bytes[3 * i + 1], bytes[3 * i + 2]};
    return out;
}

PaletteTables build_palette(const std::array<Rgb, kFileColours>& file_colours, std::uint32_t warzone) {
    PaletteTables t;
    fill_palette(t, file_colours, warzone_colours(warzone));
    fill_intensity(t);
    for (std::uint32_t c = 0; c < kPaletteSize; ++c)
        t.ramp[c] = c < kFileColours ? static_cast<std::uint8_t>(c >> 4) : kNoRamp;
    t.glass = remap_table(t.rgb, [](const Rgb& c) {
        return Target{(3 * c[0] + 64) / 4, (3 * c[1] + 96) / 4, (3 * c[2] + 128) / 4};
    });
    t.haze = remap_table(t.rgb, [](const Rgb& c) {
        return Target{c[0] + ((255 - c[0]) >> 3), c[1] + ((255 - c[1]) >> 3), c[2] + ((255 - c[2]) >> 3)};
    });
    return t;
}

PaletteTables build_palette(std::span<const std::uint8_t> file_bytes, std::uint32_t warzone) {
    return build_palette(read_palette_file(file_bytes), warzone);
}

} // namespace refcheck::reimpl
