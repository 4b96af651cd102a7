#include "palette.hpp"

namespace refcheck::synth {

// Index 0 is black: shadows are drawn with palette index 0 (`shadow.colour`).
std::vector<Rgb> make_palette() {
    struct Ends {
        Rgb dark, bright;
    };
    static const Ends kEnds[kRampCount] = {
        {{0, 0, 0}, {248, 248, 248}},   {{20, 18, 14}, {232, 224, 204}}, {{30, 8, 4}, {240, 152, 120}},
        {{24, 14, 6}, {222, 172, 112}}, {{40, 32, 16}, {250, 232, 184}}, {{16, 20, 8}, {192, 202, 124}},
        {{4, 20, 4}, {122, 222, 102}},  {{10, 30, 6}, {182, 242, 122}},  {{10, 14, 20}, {192, 206, 226}},
        {{4, 10, 40}, {162, 212, 255}}, {{40, 0, 0}, {255, 122, 102}},   {{40, 20, 0}, {255, 250, 172}},
        {{30, 10, 2}, {250, 172, 92}},  {{30, 26, 14}, {236, 216, 162}},
    };
    std::vector<Rgb> pal;
    for (const Ends& e : kEnds)
        for (int i = 0; i < kRampLength; ++i) {
            auto lerp = [&](uint8_t a, uint8_t b) {
                return static_cast<uint8_t>(a + (b - a) * i / (kRampLength - 1));
            };
            pal.push_back(
                {lerp(e.dark.r, e.bright.r), lerp(e.dark.g, e.bright.g), lerp(e.dark.b, e.bright.b)});
        }
    return pal;
}

} // namespace refcheck::synth
