#include "textures.hpp"

#include <stdexcept>

#include "palette.hpp"
#include "rng.hpp"

namespace refcheck::synth {
namespace {

constexpr int N = 64;

// 3 x 5 digit glyphs, one row per 3 bits (bit 2 = left).
constexpr uint8_t kDigits[10][5] = {{7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 3, 1, 7},
                                    {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 2, 2, 2},
                                    {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};

struct Canvas {
    std::vector<uint8_t> px = std::vector<uint8_t>(N * N, 0);
    uint8_t& at(int x, int y) { return px[(y & (N - 1)) * N + (x & (N - 1))]; }
    void rect(int x0, int y0, int x1, int y1, uint8_t c) {
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) at(x, y) = c;
    }
};

uint8_t noisy(Rng& r, Ramp ramp, int base, int spread) {
    int l = base + r.range(-spread, spread);
    l = l < 0 ? 0 : l > 15 ? 15 : l;
    return colour(ramp, l);
}

void bricks(Canvas& c, Rng& r, uint32_t v) {
    const Ramp brick = (v % 2) ? kConcrete : kBrick;
    for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) c.at(x, y) = colour(kConcrete, 11); // mortar
    for (int row = 0; row < N / 8; ++row) {
        const int off = (row % 2) ? 8 : 0;
        for (int b = -1; b < N / 16 + 1; ++b) {
            const int base = 6 + r.range(-2, 2);
            for (int y = row * 8; y < row * 8 + 7; ++y)
                for (int x = b * 16 + off; x < b * 16 + off + 15; ++x)
                    if (x >= 0 && x < N) c.at(x, y) = noisy(r, brick, base, 1);
        }
    }
}

void blobs(Canvas& c, Rng& r, const Ramp* ramps, const int* levels, int n, int count) {
    for (int i = 0; i < count; ++i) {
        const int cx = r.range(0, N - 1), cy = r.range(0, N - 1), rx = r.range(4, 12), ry = r.range(3, 9);
        const uint8_t col = colour(ramps[i % n], levels[i % n]);
        for (int y = -ry; y <= ry; ++y)
            for (int x = -rx; x <= rx; ++x)
                if (x * x * ry * ry + y * y * rx * rx <= rx * rx * ry * ry) c.at(cx + x, cy + y) = col;
    }
}

void digits(Canvas& c, int number, uint8_t fg, int scale, int x0, int y0) {
    const int d[2] = {number / 10 % 10, number % 10};
    for (int k = 0; k < 2; ++k)
        for (int row = 0; row < 5; ++row)
            for (int col = 0; col < 3; ++col)
                if (kDigits[d[k]][row] & (4 >> col))
                    c.rect(x0 + (k * 4 + col) * scale, y0 + row * scale, x0 + (k * 4 + col + 1) * scale,
                           y0 + (row + 1) * scale, fg);
}

void paint(Canvas& c, TexKind kind, uint32_t v, Rng& r) {
    switch (kind) {
        case TexKind::Bricks: bricks(c, r, v); break;
        case TexKind::Concrete:
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x)
                    c.at(x, y) =
                        (x % 32 == 0 || y % 32 == 0) ? colour(kConcrete, 5) : noisy(r, kConcrete, 10, 2);
            break;
        case TexKind::Roof:
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x)
                    c.at(x, y) =
                        noisy(r, v % 2 ? kRust : kGrey, (y % 6 == 5) ? 3 : 7 + (x + (y / 6) * 3) % 8 / 4, 1);
            break;
        case TexKind::Windows:
            c.rect(0, 0, N, N, colour(v % 2 ? kConcrete : kBrick, 8));
            for (int wy = 0; wy < 4; ++wy)
                for (int wx = 0; wx < 4; ++wx) {
                    c.rect(wx * 16 + 3, wy * 16 + 3, wx * 16 + 13, wy * 16 + 13,
                           colour(kBlue, 3 + (wx + wy + v) % 4));
                    c.rect(wx * 16 + 7, wy * 16 + 3, wx * 16 + 8, wy * 16 + 13, colour(kGrey, 12));
                }
            break;
        case TexKind::Camo: {
            static const Ramp sets[3][3] = {
                {kOlive, kFoliage, kWood}, {kKhaki, kSand, kWood}, {kGrey, kNaval, kGrey}};
            const Ramp* set = sets[v % 3];
            const int levels[3] = {7, 5, 3};
            c.rect(0, 0, N, N, colour(set[0], 9));
            blobs(c, r, set, levels, 3, 40);
            break;
        }
        case TexKind::Panels: {
            const Ramp ramp = v % 2 ? kNaval : kOlive;
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x) c.at(x, y) = noisy(r, ramp, 9, 1);
            for (int i = 0; i < N; i += 16) {
                c.rect(i, 0, i + 1, N, colour(ramp, 4));
                c.rect(0, i, N, i + 1, colour(ramp, 4));
                for (int k = 3; k < N; k += 6) c.at(i + 3, k) = c.at(k, i + 3) = colour(ramp, 13);
            }
            break;
        }
        case TexKind::Numbers:
            c.rect(0, 0, N, N, colour(v % 2 ? kGrey : kNaval, 5));
            digits(c, static_cast<int>(10 + v * 7 % 90), colour(kGrey, 15), 6, 5, 14);
            break;
        case TexKind::Foliage: {
            const Ramp leaves = v % 2 ? kFoliage : kGrass;
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x) {
                    const int dx = x - 32, dy = y - 30;
                    const bool inside = dx * dx + dy * dy * 2 < 30 * 30 && r.below(100) < 85;
                    c.at(x, y) = inside ? noisy(r, leaves, 6 + (32 - y) / 8, 2) : kTransparent;
                }
            c.rect(30, 40, 34, N, colour(kWood, 4));
            break;
        }
        case TexKind::Bark:
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x) c.at(x, y) = noisy(r, kWood, (x % 8 < 2) ? 3 : 6, 1);
            break;
        case TexKind::Canvas:
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x) c.at(x, y) = colour(v % 2 ? kKhaki : kOlive, 8 + ((x ^ y) & 1));
            c.rect(24, 8, 40, 56, colour(kLight, 15)); // a white cross band
            c.rect(8, 24, 56, 40, colour(kLight, 15));
            c.rect(28, 12, 36, 52, colour(kRed, 12));
            c.rect(12, 28, 52, 36, colour(kRed, 12));
            break;
        case TexKind::Fence:
            for (int y = 0; y < N; ++y)
                for (int x = 0; x < N; ++x)
                    c.at(x, y) = ((x + y) % 8 == 0 || (x - y + N) % 8 == 0) ? colour(kGrey, 9) : kTransparent;
            c.rect(0, 0, N, 2, colour(kGrey, 6));
            break;
        case TexKind::Deck:
            c.rect(0, 0, N, N, colour(kGrey, 4));
            c.rect(0, 30, N, 34, colour(kLight, 14));
            digits(c, static_cast<int>(v % 2 ? 4 : 1), colour(kLight, 14), 4, 16, 6);
            break;
        case TexKind::Count: break;
    }
}

} // namespace

Texture make_texture(TexKind kind, uint32_t variant, uint64_t seed) {
    Rng r(mix64(seed ^ (uint64_t(kind) << 32) ^ variant));
    Canvas c;
    paint(c, kind, variant, r);
    Texture t;
    t.type = 2;
    t.height = N;
    t.pixels = std::move(c.px);
    return t;
}

TextureSet::TextureSet(uint64_t seed, int slots, const std::vector<int>& per_kind)
    : by_kind_(kTexKinds), textures_(static_cast<size_t>(slots)) {
    int total = 0;
    for (int n : per_kind) total += n;
    if (total == 0 || total > slots) throw std::invalid_argument("texture slots");
    const int spacing = slots / total;
    int k = 0;
    for (int kind = 0; kind < kTexKinds; ++kind)
        for (int v = 0; v < per_kind[kind]; ++v, ++k) {
            const auto slot = static_cast<uint16_t>(spacing / 2 + k * spacing);
            textures_[slot] = make_texture(static_cast<TexKind>(kind), static_cast<uint32_t>(v), seed);
            by_kind_[kind].push_back(slot);
        }
}

uint16_t TextureSet::slot(TexKind kind, uint32_t variant) const {
    const auto& list = by_kind_.at(static_cast<size_t>(kind));
    if (list.empty()) throw std::runtime_error("no texture of the requested kind");
    return list[variant % list.size()];
}

} // namespace refcheck::synth
