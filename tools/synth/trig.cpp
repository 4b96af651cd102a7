#include "trig.hpp"

namespace refcheck::synth {
namespace {

constexpr double kPi = 3.14159265358979323846;

double sin_reduced(double x) { // x in [-pi, pi]
    double term = x, sum = x;
    const double x2 = x * x;
    for (int n = 1; n <= 12; ++n) {
        term = -term * x2 / ((2.0 * n) * (2.0 * n + 1.0));
        sum += term;
    }
    return sum;
}

double reduce(double turns) { // to [-0.5, 0.5)
    int64_t whole = static_cast<int64_t>(turns);
    double f = turns - static_cast<double>(whole);
    if (f >= 0.5) f -= 1.0;
    if (f < -0.5) f += 1.0;
    return f;
}

} // namespace

double sin_turns(double turns) { return sin_reduced(reduce(turns) * 2.0 * kPi); }
double cos_turns(double turns) { return sin_turns(turns + 0.25); }

int32_t q31(double v) {
    double s = v * 2147483648.0;
    if (s >= 2147483647.0) return 0x7fffffff;
    if (s <= -2147483647.0) return -0x7fffffff;
    return static_cast<int32_t>(s < 0 ? s - 0.5 : s + 0.5);
}

std::array<int32_t, 9> q31_identity() { return {0x7fffffff, 0, 0, 0, 0x7fffffff, 0, 0, 0, 0x7fffffff}; }

std::array<int32_t, 9> q31_yaw(double turns) {
    const double c = cos_turns(turns), s = sin_turns(turns);
    return {q31(c), 0, q31(s), 0, 0x7fffffff, 0, q31(-s), 0, q31(c)};
}

std::array<int32_t, 9> q31_roll_yaw(double roll_turns, double yaw_turns) {
    const double cr = cos_turns(roll_turns), sr = sin_turns(roll_turns);
    const double cy = cos_turns(yaw_turns), sy = sin_turns(yaw_turns);
    // Y(yaw) * Z(roll)
    const double m[9] = {cy * cr, -cy * sr, sy, sr, cr, 0.0, -sy * cr, sy * sr, cy};
    std::array<int32_t, 9> out{};
    for (int i = 0; i < 9; ++i) out[i] = q31(m[i]);
    return out;
}

} // namespace refcheck::synth
