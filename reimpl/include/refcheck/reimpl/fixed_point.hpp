// Wrapping integer arithmetic (arith.int): int32/int64 results wrap modulo 2^32 / 2^64, computed in
// unsigned types so that no signed overflow can occur; >> on signed values is arithmetic.
#pragma once

#include <cstdint>

namespace refcheck::reimpl::fixed {

constexpr std::int64_t mul64(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
constexpr std::int64_t add64(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
constexpr std::int64_t sub64(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
constexpr std::int32_t add32(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
constexpr std::int32_t sub32(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
constexpr std::int32_t mul32(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
// (int32) of an int64 (wrap).
constexpr std::int32_t low32(std::int64_t a) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a));
}

// Σ_k (int64)a[k]*b[k], three terms, wrapping.
constexpr std::int64_t dot3(std::int64_t a0, std::int64_t b0, std::int64_t a1, std::int64_t b1,
                            std::int64_t a2, std::int64_t b2) {
    return add64(add64(mul64(a0, b0), mul64(a1, b1)), mul64(a2, b2));
}

} // namespace refcheck::reimpl::fixed
