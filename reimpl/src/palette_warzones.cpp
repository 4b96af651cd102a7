// Built-in sky, fog and terrain colours per warzone (pal.zone0.* .. pal.zone3.*), RRGGBB.
#include <stdexcept>
#include <string>

#include "refcheck/reimpl/palette.hpp"

namespace refcheck::reimpl {
namespace {

constexpr Rgb hex(std::uint32_t rrggbb) {
    return {static_cast<std::uint8_t>(rrggbb >> 16), static_cast<std::uint8_t>(rrggbb >> 8),
            static_cast<std::uint8_t>(rrggbb)};
}

const std::array<WarzoneColours, kWarzoneCount> kWarzones{{
    {
        // 0 Fort
        {hex(0x183470), hex(0x24427d), hex(0x31518b), hex(0x3d6099), hex(0x4a6fa6), hex(0x567eb4),
         hex(0x638dc2), hex(0x709cd0)},
        {hex(0x545c68), hex(0x616975), hex(0x6e7682), hex(0x7b838f), hex(0x88909c), hex(0x959da9),
         hex(0xa2aab6), hex(0xb0b8c4)},
        {hex(0x243814), hex(0x2e441b), hex(0x395022), hex(0x435c29), hex(0x4e6830), hex(0x587437),
         hex(0x63803e), hex(0x6e8c46), hex(0x3c301e), hex(0x483b28), hex(0x554732), hex(0x62533c),
         hex(0x6f5e46), hex(0x7c6a50), hex(0x89765a), hex(0x968264)},
    },
    {
        // 1 Desert
        {hex(0x3860a0), hex(0x486ea9), hex(0x597db3), hex(0x698cbd), hex(0x7a9bc6), hex(0x8aaad0),
         hex(0x9bb9da), hex(0xacc8e4)},
        {hex(0x968268), hex(0xa08d73), hex(0xab987e), hex(0xb5a48a), hex(0xc0af95), hex(0xcabba1),
         hex(0xd5c6ac), hex(0xe0d2b8)},
        {hex(0x78542c), hex(0x886439), hex(0x987447), hex(0xa88455), hex(0xb89462), hex(0xc8a470),
         hex(0xd8b47e), hex(0xe8c48c), hex(0x5c5040), hex(0x6a5e4c), hex(0x796c58), hex(0x887a64),
         hex(0x978971), hex(0xa6977d), hex(0xb5a589), hex(0xc4b496)},
    },
    {
        // 2 Arctic
        {hex(0x283858), hex(0x394968), hex(0x4a5a78), hex(0x5b6b88), hex(0x6c7c98), hex(0x7d8da8),
         hex(0x8e9eb8), hex(0xa0b0c8)},
        {hex(0x78808c), hex(0x868e99), hex(0x949ca6), hex(0xa2aab4), hex(0xb1b8c1), hex(0xbfc6cf),
         hex(0xcdd4dc), hex(0xdce2ea)},
        {hex(0x606878), hex(0x757c8a), hex(0x8b919d), hex(0xa1a6b0), hex(0xb6bbc3), hex(0xccd0d6),
         hex(0xe2e5e9), hex(0xf8fafc), hex(0x28342c), hex(0x334037), hex(0x3e4c42), hex(0x4a584e),
         hex(0x556459), hex(0x617065), hex(0x6c7c70), hex(0x78887c)},
    },
    {
        // 3 Island
        {hex(0x144896), hex(0x2258a2), hex(0x3069af), hex(0x3e7abc), hex(0x4d8bc9), hex(0x5b9cd6),
         hex(0x69ade3), hex(0x78bef0)},
        {hex(0x506460), hex(0x5d716d), hex(0x6b7f7a), hex(0x798d87), hex(0x869a94), hex(0x94a8a1),
         hex(0xa2b6ae), hex(0xb0c4bc)},
        {hex(0x103418), hex(0x19421d), hex(0x235022), hex(0x2d5e27), hex(0x366c2c), hex(0x407a31),
         hex(0x4a8836), hex(0x54963c), hex(0x1c3c5a), hex(0x244b69), hex(0x2d5b79), hex(0x366b89),
         hex(0x3f7a98), hex(0x488aa8), hex(0x519ab8), hex(0x5aaac8)},
    },
}};

} // namespace

const WarzoneColours& warzone_colours(std::uint32_t warzone) {
    if (warzone >= kWarzoneCount)
        throw std::invalid_argument("warzone " + std::to_string(warzone) + " is not 0..3");
    return kWarzones[warzone];
}

} // namespace refcheck::reimpl
