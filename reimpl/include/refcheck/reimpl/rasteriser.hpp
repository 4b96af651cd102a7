// The rasteriser (spec section 12): draws face events into an 8-bit 320 x 200 frame, bit-exact to
// the spec's rules (rows, edges, span, attribute interpolation, texture addressing, mesh patterns,
// glass and haze remaps), and keeps the per-pixel flag sets of div.taint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "refcheck/events.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint8_t kClearColour = 224; // fb.clear: sky colour 0

// The pixels of a frame (either side's) that are not the clear colour: what was drawn.
inline std::size_t drawn_pixels(std::span<const std::uint8_t> pixels) {
    std::size_t n = 0;
    for (const std::uint8_t p : pixels) n += p != kClearColour;
    return n;
}

struct Frame {
    explicit Frame(std::uint8_t fill = kClearColour)
        : pixels(kFrameWidth * kFrameHeight, fill), taint(kFrameWidth * kFrameHeight, 0) {}
    std::uint8_t at(std::int32_t x, std::int32_t y) const { return pixels[y * kFrameWidth + x]; }
    events::FaceFlags flags_at(std::int32_t x, std::int32_t y) const {
        return events::FaceFlags::from_bits(taint[y * kFrameWidth + x]);
    }

    std::vector<std::uint8_t> pixels; // palette indices, pitch 320 (fb.size)
    std::vector<std::uint8_t> taint;  // per pixel FaceFlags bits (div.taint)
};

// One row of a filled polygon (rast.rows, rast.edge, rast.span): edge i runs from vertex i to
// vertex (i + 1) mod n; `left` and `right` are the chosen crossings (the least and the greatest,
// the edge earliest in order on equal crossings). The row's pixels are x = x_begin .. x_end - 1
// (none when x_end <= x_begin).
struct PolygonRow {
    std::int32_t y = 0;
    std::size_t left_edge = 0;
    std::size_t right_edge = 0;
    std::int32_t left = 0;
    std::int32_t right = 0;
    std::int32_t x_begin() const { return left > 0 ? left : 0; }
    std::int32_t x_end() const { return right < kFrameWidth ? right : kFrameWidth; }
};

// The rows of a polygon with at least one edge crossing, top to bottom, clipped to the frame's rows
// (y = max(0, ymin) .. min(200, ymax) - 1). Shared by the face rasteriser and the shadow renderer.
std::vector<PolygonRow> polygon_rows(std::span<const events::ScreenVertex> screen);

class Rasteriser {
public:
    // The tables and textures must outlive the rasteriser.
    Rasteriser(const PaletteTables& palette, const TextureArchive& textures);

    // Draws one face. A face with the missing_normal flag is drawn as its unshaded counterpart
    // (fault.normal.flag). A texture sample at v*stride+u >= stride*height is omitted and its pixel
    // marked tex_past_alloc; a sample at u >= stride inside the image is taken and marked
    // tex_right_edge. std::invalid_argument when the face names a texture the archive lacks.
    void draw(const events::FaceDraw& face, Frame& frame) const;

private:
    const PaletteTables& palette_;
    const TextureArchive& textures_;
};

// A sink that rasterises every face event into a frame (other events are ignored).
class FrameSink final : public events::EventSink {
public:
    FrameSink(const Rasteriser& rasteriser, Frame& frame) : rasteriser_(rasteriser), frame_(frame) {}
    void emit(events::Event event) override;

private:
    const Rasteriser& rasteriser_;
    Frame& frame_;
};

} // namespace refcheck::reimpl
