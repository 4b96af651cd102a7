// PNG encoding of 8-bit indexed frames (libpng), for the HTML report's frame pictures.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace refcheck::harness {

// RGB triples, row-major, width * height * 3 bytes. Deterministic: no time or text chunks.
std::vector<std::uint8_t> encode_png(std::uint32_t width, std::uint32_t height,
                                     std::span<const std::uint8_t> rgb);

// Palette indices through a 256-colour palette (768 bytes) to RGB.
std::vector<std::uint8_t> to_rgb(std::span<const std::uint8_t> indices,
                                 std::span<const std::uint8_t> palette);

// The difference picture: equal pixels as a dim grey of the original, differing pixels yellow when
// explained by a known divergence, red when not.
std::vector<std::uint8_t> difference_rgb(std::span<const std::uint8_t> original_rgb,
                                         std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                                         std::span<const std::uint8_t> explained);

} // namespace refcheck::harness
