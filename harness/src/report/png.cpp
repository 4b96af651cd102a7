#include "report/png.hpp"

#include <png.h>

#include <stdexcept>

namespace refcheck::harness {

namespace {
void append(png_structp png, png_bytep data, png_size_t size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(png));
    out->insert(out->end(), data, data + size);
}
void flush(png_structp) {}
} // namespace

std::vector<std::uint8_t> encode_png(std::uint32_t width, std::uint32_t height,
                                     std::span<const std::uint8_t> rgb) {
    if (rgb.size() != std::size_t{width} * height * 3)
        throw std::invalid_argument("encode_png: size mismatch");
    std::vector<std::uint8_t> out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        throw std::runtime_error("libpng: cannot create a writer");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw std::runtime_error("libpng: encoding failed");
    }
    png_set_write_fn(png, &out, append, flush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (std::uint32_t y = 0; y < height; ++y)
        png_write_row(png, const_cast<png_bytep>(rgb.data() + std::size_t{y} * width * 3));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

std::vector<std::uint8_t> to_rgb(std::span<const std::uint8_t> indices,
                                 std::span<const std::uint8_t> palette) {
    std::vector<std::uint8_t> out;
    out.reserve(indices.size() * 3);
    for (std::uint8_t i : indices)
        for (int c = 0; c < 3; ++c) out.push_back(palette.size() >= 768 ? palette[i * 3u + c] : i);
    return out;
}

std::vector<std::uint8_t> difference_rgb(std::span<const std::uint8_t> original_rgb,
                                         std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                                         std::span<const std::uint8_t> explained) {
    std::vector<std::uint8_t> out(a.size() * 3);
    for (std::size_t p = 0; p < a.size(); ++p) {
        std::uint8_t* px = &out[p * 3];
        if (a[p] == b[p]) {
            const unsigned grey =
                (original_rgb[p * 3] + original_rgb[p * 3 + 1] + original_rgb[p * 3 + 2]) / 9;
            px[0] = px[1] = px[2] = static_cast<std::uint8_t>(grey);
        } else if (explained[p]) {
            px[0] = 255, px[1] = 220, px[2] = 0;
        } else {
            px[0] = 255, px[1] = 0, px[2] = 0;
        }
    }
    return out;
}

} // namespace refcheck::harness
