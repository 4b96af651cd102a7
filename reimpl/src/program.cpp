#include "refcheck/reimpl/program.hpp"

#include <array>

namespace refcheck::reimpl {
namespace {

constexpr std::array<std::string_view, kOpcodeCount> kOpcodeNames{"primary", "secondary", "plane",  "ifmask",
                                                                  "choose",  "select",    "attach", "return"};

std::optional<std::uint8_t> material_byte(const Packet& p, std::optional<std::uint8_t> at) {
    if (!at) return std::nullopt;
    return p.material[*at - 2];
}

} // namespace

std::string_view opcode_name(Opcode op) { return kOpcodeNames[static_cast<std::size_t>(op)]; }

std::optional<std::uint8_t> Packet::colour() const { return material_byte(*this, info->material.colour); }
std::optional<std::uint8_t> Packet::colour_b() const { return material_byte(*this, info->material.colour_b); }
std::optional<std::uint8_t> Packet::mask() const { return material_byte(*this, info->material.mask); }
std::optional<std::uint8_t> Packet::face_normal() const {
    return material_byte(*this, info->material.normal);
}

std::optional<std::uint16_t> Packet::texture() const {
    const auto at = info->material.texture;
    if (!at) return std::nullopt;
    return static_cast<std::uint16_t>(material[*at - 2] | (material[*at - 1] << 8));
}

std::optional<std::uint32_t> Instruction::next() const {
    if (invalid) return std::nullopt;
    struct Visitor {
        const Instruction& in;
        std::optional<std::uint32_t> operator()(const FaceOperands&) const { return in.offset + in.size; }
        std::optional<std::uint32_t> operator()(const PlaneOperands& o) const { return o.continuation; }
        std::optional<std::uint32_t> operator()(const IfMaskOperands& o) const { return o.continuation; }
        std::optional<std::uint32_t> operator()(const ChooseOperands& o) const { return o.continuation; }
        std::optional<std::uint32_t> operator()(const SelectOperands& o) const { return o.continuation; }
        std::optional<std::uint32_t> operator()(const AttachOperands&) const { return in.offset + in.size; }
        std::optional<std::uint32_t> operator()(const ReturnOperands&) const { return std::nullopt; }
    };
    return std::visit(Visitor{*this}, operands);
}

std::vector<std::uint32_t> Instruction::branches() const {
    if (invalid) return {};
    struct Visitor {
        std::vector<std::uint32_t> operator()(const FaceOperands&) const { return {}; }
        std::vector<std::uint32_t> operator()(const PlaneOperands& o) const { return {o.front, o.back}; }
        std::vector<std::uint32_t> operator()(const IfMaskOperands& o) const { return {o.branch}; }
        std::vector<std::uint32_t> operator()(const ChooseOperands& o) const { return {o.set, o.clear}; }
        std::vector<std::uint32_t> operator()(const SelectOperands& o) const { return o.cases; }
        std::vector<std::uint32_t> operator()(const AttachOperands&) const { return {}; }
        std::vector<std::uint32_t> operator()(const ReturnOperands&) const { return {}; }
    };
    return std::visit(Visitor{}, operands);
}

} // namespace refcheck::reimpl
