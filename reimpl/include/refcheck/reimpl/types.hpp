// Plain value types shared by geometry, construction and the interpreter.
#pragma once

#include <array>
#include <cstdint>

namespace refcheck::reimpl {

using Vec3 = std::array<std::int32_t, 3>;
using Mat3 = std::array<std::int32_t, 9>; // row-major

// Q31 identity: 0x7fffffff on the diagonal.
inline constexpr std::int32_t kQ31One = 0x7fffffff;
inline constexpr Mat3 kIdentityQ31{kQ31One, 0, 0, 0, kQ31One, 0, 0, 0, kQ31One};
inline constexpr std::int32_t kQ14One = 1 << 14;
inline constexpr Mat3 kIdentityQ14{kQ14One, 0, 0, 0, kQ14One, 0, 0, 0, kQ14One};

// World units, rotation Q14 row-major; rows are the camera's right, up and forward axes in world.
struct Camera {
    Vec3 position{};
    Mat3 rotation = kIdentityQ14;
    friend bool operator==(const Camera&, const Camera&) = default;
};

// World direction, Q14 (length about 16384).
struct Light {
    Vec3 direction{0, 0, kQ14One};
    friend bool operator==(const Light&, const Light&) = default;
};

// A placement: int32 position, Q31 rotation row-major.
struct Transform {
    Vec3 position{};
    Mat3 rotation = kIdentityQ31;
    friend bool operator==(const Transform&, const Transform&) = default;
};

} // namespace refcheck::reimpl
