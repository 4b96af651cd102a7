#include "refcheck/reimpl/rasteriser.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/face_event.hpp"
#include "refcheck/reimpl/primitive.hpp"

namespace refcheck::reimpl {
namespace {

using events::FaceFlag;
using events::FaceFlags;

struct Attributes {
    std::int32_t u = 0;
    std::int32_t v = 0;
    std::int32_t level = 0;
};

// One face painted into one frame.
class FacePainter {
public:
    FacePainter(const PaletteTables& palette, const TextureArchive& textures, const events::FaceDraw& face,
                Frame& frame);
    void paint();

private:
    std::uint8_t material(std::optional<std::uint8_t> at) const { return at ? face_.material[*at - 2] : 0; }
    Attributes vertex_attributes(std::size_t k) const;
    std::uint8_t shade(std::int32_t level, std::uint8_t colour) const;
    void write(std::int32_t x, std::int32_t y, std::uint8_t value, FaceFlags extra = {});
    void remap(std::int32_t x, std::int32_t y, const std::array<std::uint8_t, kPaletteSize>& table);
    void texel(std::int32_t x, std::int32_t y, const Attributes& a);
    void pixel(std::int32_t x, std::int32_t y, const Attributes& a);
    void points();
    void polyline();
    void polygon();
    Attributes edge_attributes(std::size_t edge, std::int32_t y) const;

    const PaletteTables& palette_;
    const events::FaceDraw& face_;
    Frame& frame_;
    const PrimitiveInfo& info_; // the type drawn (the unshaded counterpart for a missing normal)
    FaceFlags flags_;           // added to every written pixel
    std::uint8_t colour_ = 0, colour_b_ = 0, mask_ = 0;
    const Texture* texture_ = nullptr;
};

FacePainter::FacePainter(const PaletteTables& palette, const TextureArchive& textures,
                         const events::FaceDraw& face, Frame& frame)
    : palette_(palette), face_(face), frame_(frame),
      info_(*primitive_info(face.flags.has(FaceFlag::MissingNormal) ? unshaded_counterpart(face.type)
                                                                    : face.type)) {
    const PrimitiveInfo& authored = *primitive_info(face.type);
    if (face.flags.has(FaceFlag::MissingNormal)) flags_.set(FaceFlag::MissingNormal);
    colour_ = material(authored.material.colour);
    colour_b_ = material(authored.material.colour_b);
    mask_ = material(authored.material.mask);
    if (authored.textured()) {
        texture_ = textures.find(static_cast<std::uint32_t>(face.texture));
        if (!texture_)
            throw std::invalid_argument(
                fmt::format("face names texture {}, absent from {}", face.texture, kTextureArchiveName));
    }
}

Attributes FacePainter::vertex_attributes(std::size_t k) const {
    return {face_.u[k], face_.v[k], face_.vertex_levels[k]};
}

std::uint8_t FacePainter::shade(std::int32_t level, std::uint8_t colour) const {
    if (info_.shading == Shading::None) return colour;
    return palette_.shade(static_cast<std::uint32_t>(std::clamp(level, 0, kBrightestLevel)), colour);
}

// A direct write: a flagged one adds its flags to the pixel's set, an unflagged one clears it.
void FacePainter::write(std::int32_t x, std::int32_t y, std::uint8_t value, FaceFlags extra) {
    const std::size_t at = static_cast<std::size_t>(y) * kFrameWidth + x;
    frame_.pixels[at] = value;
    const FaceFlags flags = flags_ | extra;
    frame_.taint[at] = static_cast<std::uint8_t>(flags.empty() ? 0 : (frame_.taint[at] | flags.bits()));
}

// A remap write keeps the pixel's flag set.
void FacePainter::remap(std::int32_t x, std::int32_t y, const std::array<std::uint8_t, kPaletteSize>& table) {
    std::uint8_t& p = frame_.pixels[static_cast<std::size_t>(y) * kFrameWidth + x];
    p = table[p];
}

// tex.sample, fault.tex.right_edge.flag, fault.tex.past_alloc.flag, rast.mask.
void FacePainter::texel(std::int32_t x, std::int32_t y, const Attributes& a) {
    const std::int64_t index = std::int64_t{a.v} * texture_->stride + a.u;
    if (a.u < 0 || a.v < 0 || index >= static_cast<std::int64_t>(texture_->pixels.size())) {
        std::uint8_t& taint = frame_.taint[static_cast<std::size_t>(y) * kFrameWidth + x];
        taint = static_cast<std::uint8_t>(taint | static_cast<std::uint32_t>(FaceFlag::TexturePastImage));
        return;
    }
    const std::uint8_t t = texture_->pixels[static_cast<std::size_t>(index)];
    if (info_.shape == Shape::MaskedTexture && t == mask_) return;
    const FaceFlags extra = static_cast<std::uint32_t>(a.u) >= texture_->stride
                                ? FaceFlags(FaceFlag::TextureRightEdge)
                                : FaceFlags();
    write(x, y, shade(a.level, t), extra);
}

void FacePainter::pixel(std::int32_t x, std::int32_t y, const Attributes& a) {
    const bool even = ((x + y) & 1) == 0;
    switch (info_.shape) {
        case Shape::Polygon: return write(x, y, shade(a.level, colour_));
        case Shape::TwoColour: return write(x, y, shade(a.level, even ? colour_ : colour_b_));
        case Shape::FineMesh:
            if (even) write(x, y, shade(a.level, colour_));
            return;
        case Shape::CoarseMesh:
            if ((x & 1) == 0 && (y & 1) == 0) write(x, y, shade(a.level, colour_));
            return;
        case Shape::Glass: return remap(x, y, palette_.glass);
        case Shape::Haze: return remap(x, y, palette_.haze);
        case Shape::Texture:
        case Shape::MaskedTexture: return texel(x, y, a);
        case Shape::Points:
        case Shape::Polyline: return; // not polygons
    }
}

bool inside(std::int64_t x, std::int64_t y) {
    return x >= 0 && x < kFrameWidth && y >= 0 && y < kFrameHeight;
}

// rast.point: one pixel per vertex, at its own level.
void FacePainter::points() {
    for (std::size_t k = 0; k < face_.screen.size(); ++k) {
        const auto& s = face_.screen[k];
        if (inside(s.sx, s.sy)) write(s.sx, s.sy, shade(face_.vertex_levels[k], colour_));
    }
}

// rast.line: open segments between consecutive vertices, at the face level.
void FacePainter::polyline() {
    const std::uint8_t value = shade(face_.face_level, colour_);
    for (std::size_t k = 0; k + 1 < face_.screen.size(); ++k) {
        const std::int64_t x0 = face_.screen[k].sx, y0 = face_.screen[k].sy;
        const std::int64_t dx = face_.screen[k + 1].sx - x0, dy = face_.screen[k + 1].sy - y0;
        const std::int64_t n = std::max(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy);
        for (std::int64_t i = 0; i <= n; ++i) {
            const std::int64_t x = n == 0 ? x0 : x0 + dx * i / n;
            const std::int64_t y = n == 0 ? y0 : y0 + dy * i / n;
            if (inside(x, y)) write(static_cast<std::int32_t>(x), static_cast<std::int32_t>(y), value);
        }
    }
}

// rast.attr: u, v and level on an edge at row y, interpolated exactly as x.
Attributes FacePainter::edge_attributes(std::size_t edge, std::int32_t y) const {
    const std::size_t next = (edge + 1) % face_.screen.size();
    const std::int64_t dy = std::int64_t{y} - face_.screen[edge].sy;
    const std::int64_t span = std::int64_t{face_.screen[next].sy} - face_.screen[edge].sy;
    const Attributes a = vertex_attributes(edge), b = vertex_attributes(next);
    const auto along = [&](std::int32_t from, std::int32_t to) {
        return static_cast<std::int32_t>(from + dy * (std::int64_t{to} - from) / span);
    };
    return {along(a.u, b.u), along(a.v, b.v), along(a.level, b.level)};
}

// rast.rows, rast.span, rast.attr: rows top to bottom, pixels left to right.
void FacePainter::polygon() {
    for (const PolygonRow& row : polygon_rows(face_.screen)) {
        const std::int32_t y = row.y, left = row.left, right = row.right;
        const Attributes l = edge_attributes(row.left_edge, y), r = edge_attributes(row.right_edge, y);
        const auto across = [&](std::int32_t x, std::int32_t from, std::int32_t to) {
            return from + static_cast<std::int32_t>((std::int64_t{x - left} * (std::int64_t{to} - from)) /
                                                    (right - left));
        };
        for (std::int32_t x = row.x_begin(); x < row.x_end(); ++x) {
            pixel(x, y, {across(x, l.u, r.u), across(x, l.v, r.v), across(x, l.level, r.level)});
        }
    }
}

void FacePainter::paint() {
    if (face_.screen.empty()) return;
    switch (info_.shape) {
        case Shape::Points: return points();
        case Shape::Polyline: return polyline();
        default: return polygon();
    }
}

} // namespace

namespace {

// rast.edge: edge i -> i+1 covers min(ya, yb) <= y < max(ya, yb); its crossing at row y.
bool crossing(std::span<const events::ScreenVertex> screen, std::size_t edge, std::int32_t y,
              std::int32_t& x) {
    const auto& a = screen[edge];
    const auto& b = screen[(edge + 1) % screen.size()];
    if (a.sy == b.sy || y < std::min(a.sy, b.sy) || y >= std::max(a.sy, b.sy)) return false;
    x = a.sx + static_cast<std::int32_t>((std::int64_t{y - a.sy} * (b.sx - a.sx)) / (b.sy - a.sy));
    return true;
}

} // namespace

// rast.rows, rast.span: rows top to bottom; the least and the greatest crossing, first edge on ties.
std::vector<PolygonRow> polygon_rows(std::span<const events::ScreenVertex> screen) {
    std::vector<PolygonRow> rows;
    if (screen.empty()) return rows;
    const auto [lo, hi] = std::minmax_element(screen.begin(), screen.end(),
                                              [](const auto& p, const auto& q) { return p.sy < q.sy; });
    const std::int32_t y_end = std::min(kFrameHeight, hi->sy);
    for (std::int32_t y = std::max(0, lo->sy); y < y_end; ++y) {
        std::optional<std::size_t> left_edge, right_edge;
        std::int32_t left = 0, right = 0;
        for (std::size_t edge = 0; edge < screen.size(); ++edge) {
            std::int32_t x = 0;
            if (!crossing(screen, edge, y, x)) continue;
            if (!left_edge || x < left) left_edge = edge, left = x;
            if (!right_edge || x > right) right_edge = edge, right = x;
        }
        if (left_edge) rows.push_back({y, *left_edge, *right_edge, left, right});
    }
    return rows;
}

Rasteriser::Rasteriser(const PaletteTables& palette, const TextureArchive& textures)
    : palette_(palette), textures_(textures) {}

void Rasteriser::draw(const events::FaceDraw& face, Frame& frame) const {
    const std::size_t n = face.screen.size();
    const PrimitiveInfo* info = primitive_info(face.type);
    if (!info || face.material.size() + 2 != info->header_size || face.u.size() != n || face.v.size() != n ||
        face.vertex_levels.size() != n) {
        throw std::invalid_argument(fmt::format(
            "face at +0x{:x} of record {} is malformed for the rasteriser", face.offset, face.record));
    }
    FacePainter(palette_, textures_, face, frame).paint();
}

void FrameSink::emit(events::Event event) {
    if (const auto* face = std::get_if<events::FaceDraw>(&event)) rasteriser_.draw(*face, frame_);
}

} // namespace refcheck::reimpl
