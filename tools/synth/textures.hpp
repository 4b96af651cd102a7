// Procedural 64 x 64 type-2 textures (bricks, camouflage, panels, numbers, ...) and the slot table.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "model.hpp"

namespace refcheck::synth {

enum class TexKind : uint8_t {
    Bricks,
    Concrete,
    Roof,
    Windows,
    Camo,
    Panels,
    Numbers,
    Foliage,
    Bark,
    Canvas,
    Fence,
    Deck,
    Count
};
constexpr int kTexKinds = static_cast<int>(TexKind::Count);
constexpr uint8_t kTransparent = 0; // texel value skipped by masked types (foliage, fence)

inline bool masked_kind(TexKind k) { return k == TexKind::Foliage || k == TexKind::Fence; }

class TextureSet {
public:
    // `per_kind[k]` textures of kind k, spread over `slots` slots.
    TextureSet(uint64_t seed, int slots, const std::vector<int>& per_kind);
    uint16_t slot(TexKind kind, uint32_t variant) const; // a populated slot of that kind
    const std::vector<std::optional<Texture>>& textures() const { return textures_; }

private:
    std::vector<std::vector<uint16_t>> by_kind_;
    std::vector<std::optional<Texture>> textures_;
};

Texture make_texture(TexKind kind, uint32_t variant, uint64_t seed);

} // namespace refcheck::synth
