// Deterministic trigonometry: Taylor series on IEEE doubles with basic operations only, so the
// result does not depend on the platform's libm.
#pragma once
#include <array>
#include <cstdint>

namespace refcheck::synth {

double sin_turns(double turns); // sine of an angle given in full turns
double cos_turns(double turns);

// Q31 rotation coefficient from a value in [-1, 1] (saturating at +-0x7fffffff).
int32_t q31(double v);

// Row-major 3x3 rotation in Q31 about the vertical (Y) axis by `turns`.
std::array<int32_t, 9> q31_yaw(double turns);
// Rotation about the Z (forward) axis, then about Y.
std::array<int32_t, 9> q31_roll_yaw(double roll_turns, double yaw_turns);
std::array<int32_t, 9> q31_identity();

} // namespace refcheck::synth
