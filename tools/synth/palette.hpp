// The 224 file colours: 14 ramps of 16, dark to bright (docs/formats/apache-3d.md `pal.ramps`).
#pragma once
#include <cstdint>
#include <vector>

#include "model.hpp"

namespace refcheck::synth {

enum Ramp : uint8_t {
    kGrey,
    kConcrete,
    kBrick,
    kWood,
    kSand,
    kOlive,
    kFoliage,
    kGrass,
    kNaval,
    kBlue,
    kRed,
    kLight,
    kRust,
    kKhaki,
    kRampCount
};

constexpr int kRampLength = 16;
constexpr uint8_t colour(Ramp r, int level) { return static_cast<uint8_t>(r * kRampLength + level); }

std::vector<Rgb> make_palette();

} // namespace refcheck::synth
