#include "packet_layout.hpp"

#include <stdexcept>

namespace refcheck::synth {
namespace {

//                     hdr pv  cA  cB  tex mask nrm  uv    vn
constexpr PacketLayout kLayouts[kPrimitiveTypes] = {
    {3, 1, 2, -1, -1, -1, -1, false, false, "points"},
    {3, 1, 2, -1, -1, -1, -1, false, false, "polyline"},
    {3, 1, 2, -1, -1, -1, -1, false, false, "flat"},
    {4, 1, 2, 3, -1, -1, -1, false, false, "two-colour"},
    {3, 1, 2, -1, -1, -1, -1, false, false, "fine mesh"},
    {3, 1, 2, -1, -1, -1, -1, false, false, "coarse mesh"},
    {2, 1, -1, -1, -1, -1, -1, false, false, "glass"},
    {5, 3, -1, -1, 2, 4, -1, true, false, "texture"},
    {5, 3, -1, -1, 2, 4, -1, true, false, "masked texture"},
    {4, 1, 2, -1, -1, -1, 3, false, false, "shaded points"},
    {4, 1, 2, -1, -1, -1, 3, false, false, "shaded polyline"},
    {4, 1, 2, -1, -1, -1, 3, false, false, "shaded flat"},
    {5, 1, 2, 3, -1, -1, 4, false, false, "shaded two-colour"},
    {4, 1, 2, -1, -1, -1, 3, false, false, "shaded fine mesh"},
    {4, 1, 2, -1, -1, -1, 3, false, false, "shaded coarse mesh"},
    {6, 3, -1, -1, 2, 4, 5, true, false, "shaded texture"},
    {6, 3, -1, -1, 2, 4, 5, true, false, "shaded masked texture"},
    {4, 2, 2, -1, -1, -1, 3, false, true, "Gouraud"},
    {5, 2, 2, 3, -1, -1, 4, false, true, "two-colour Gouraud"},
    {6, 4, -1, -1, 2, 5, 4, true, true, "Gouraud texture"},
    {6, 4, -1, -1, 2, 5, 4, true, true, "Gouraud masked texture"},
    {2, 1, -1, -1, -1, -1, -1, false, false, "heat haze"},
};

} // namespace

const PacketLayout& packet_layout(uint8_t type) {
    if (type >= kPrimitiveTypes) throw std::out_of_range("primitive type out of range");
    return kLayouts[type];
}

} // namespace refcheck::synth
