// Animation-state bits the generator authors (bits are disjoint, so every branch and every select
// case is reachable for some state).
#pragma once
#include <cstdint>

namespace refcheck::synth::anim {

constexpr uint32_t kNavLights = 1u << 0;
constexpr uint32_t kGearDown = 1u << 1;
constexpr uint32_t kRotorFast = 1u << 2;
constexpr uint32_t kAfterburner = 1u << 3;
constexpr uint32_t kNight = 1u << 4;
constexpr uint8_t kDamageShift = 5; // 2 bits: damage level 0..3
constexpr uint32_t kDestroyed = 1u << 7;
constexpr uint8_t kDishShift = 8;   // 3 bits: dish or radar phase
constexpr uint8_t kFlagShift = 11;  // 2 bits: flag flutter
constexpr uint8_t kPhaseShift = 13; // 3 bits: effect phase (tables shorter than the mask)
constexpr uint32_t kMuzzle = 1u << 16;
constexpr uint32_t kSmoke = 1u << 17;
constexpr uint32_t kBeacon = 1u << 18;

} // namespace refcheck::synth::anim
