// The 256-entry palette and the tables initialise_3d_palette_ builds from 3DPAL.RGB and the chosen
// warzone (spec section 11): palette_rgb, intensity_table, ramp_table, glass_table, haze_table.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace refcheck::reimpl {

inline constexpr std::string_view kPaletteFileName = "3DPAL.RGB";
inline constexpr std::uint32_t kFileColours = 224; // pal.file
inline constexpr std::uint32_t kPaletteFileSize = 3 * kFileColours;
inline constexpr std::uint32_t kPaletteSize = 256;
inline constexpr std::uint32_t kIntensityLevels = 32; // light.level
inline constexpr std::uint32_t kWarzoneCount = 4;     // pal.warzone: 0 Fort .. 3 Island
inline constexpr std::uint8_t kNoRamp = 0xff;

using Rgb = std::array<std::uint8_t, 3>;

// The built-in sky (224..231), fog (232..239) and terrain (240..255) colours of one warzone.
struct WarzoneColours {
    std::array<Rgb, 8> sky;
    std::array<Rgb, 8> fog;
    std::array<Rgb, 16> terrain;
};
const WarzoneColours& warzone_colours(std::uint32_t warzone); // std::invalid_argument past 3

struct PaletteTables {
    std::array<Rgb, kPaletteSize> rgb{};                                   // palette_rgb
    std::array<std::uint8_t, kIntensityLevels * kPaletteSize> intensity{}; // intensity_table, level-major
    std::array<std::uint8_t, kPaletteSize> ramp{};                         // ramp_table
    std::array<std::uint8_t, kPaletteSize> glass{};                        // glass_table
    std::array<std::uint8_t, kPaletteSize> haze{};                         // haze_table

    std::uint8_t shade(std::uint32_t level, std::uint8_t colour) const {
        return intensity[level * kPaletteSize + colour];
    }
};

// The 224 file colours (pal.file.layout: 672 bytes, later bytes ignored). FormatError when short.
std::array<Rgb, kFileColours> read_palette_file(std::span<const std::uint8_t> bytes);

// Every table for a warzone (std::invalid_argument for a warzone past 3).
PaletteTables build_palette(std::span<const std::uint8_t> file_bytes, std::uint32_t warzone);
PaletteTables build_palette(const std::array<Rgb, kFileColours>& file_colours, std::uint32_t warzone);

// The index in 0..223 nearest to `target` (least squared distance, lowest index on ties).
std::uint8_t nearest_file_colour(const std::array<Rgb, kPaletteSize>& rgb,
                                 const std::array<std::int32_t, 3>& target);

} // namespace refcheck::reimpl
