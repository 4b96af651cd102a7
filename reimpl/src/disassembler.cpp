#include "refcheck/reimpl/disassembler.hpp"

#include <set>

#include <fmt/format.h>

namespace refcheck::reimpl {
namespace {

constexpr std::size_t kShownBytes = 8;

std::string target(std::uint32_t offset) { return fmt::format("+0x{:04x}", offset); }

std::string bytes_column(const std::vector<std::uint8_t>& bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size() && i < kShownBytes; ++i)
        out += fmt::format("{}{:02x}", i ? " " : "", bytes[i]);
    if (bytes.size() > kShownBytes) out += " +";
    return out;
}

std::string vertex_entry(const Packet& p, std::size_t k) {
    std::string fields;
    if (p.info->textured()) fields += fmt::format("u={},v={}", p.u[k], p.v[k]);
    if (p.info->vertex_normals()) fields += fmt::format("{}n={}", fields.empty() ? "" : ",", p.normals[k]);
    return fields.empty() ? fmt::format("{}", p.vertices[k]) : fmt::format("{}({})", p.vertices[k], fields);
}

std::string packet_text(const Packet& p) {
    std::string out = fmt::format("type={} {} count={}", p.type, p.info->name, p.count());
    if (const auto c = p.colour()) out += fmt::format(" colour={}", *c);
    if (const auto c = p.colour_b()) out += fmt::format(" colour_b={}", *c);
    if (const auto t = p.texture()) out += fmt::format(" texture={}", *t);
    if (const auto m = p.mask()) out += fmt::format(" mask={}", *m);
    if (const auto n = p.face_normal()) out += fmt::format(" normal={}", *n);
    out += " vertices=[";
    for (std::size_t k = 0; k < p.vertices.size(); ++k) out += (k ? " " : "") + vertex_entry(p, k);
    return out + "]";
}

std::string operands_text(const Instruction& in) {
    struct Visitor {
        std::string operator()(const FaceOperands& f) const {
            return (f.length ? fmt::format("len={} ", *f.length) : std::string()) + packet_text(f.packet);
        }
        std::string operator()(const PlaneOperands& o) const {
            return fmt::format("v=[{} {} {}] front={} back={} cont={}", o.vertices[0], o.vertices[1],
                               o.vertices[2], target(o.front), target(o.back), target(o.continuation));
        }
        std::string operator()(const IfMaskOperands& o) const {
            return fmt::format("mask=0x{:08x} branch={} cont={}", o.mask, target(o.branch),
                               target(o.continuation));
        }
        std::string operator()(const ChooseOperands& o) const {
            return fmt::format("mask=0x{:08x} set={} clear={} cont={}", o.mask, target(o.set),
                               target(o.clear), target(o.continuation));
        }
        std::string operator()(const SelectOperands& o) const {
            std::string cases;
            for (std::size_t k = 0; k < o.cases.size(); ++k) cases += (k ? " " : "") + target(o.cases[k]);
            return fmt::format("shift={} mask=0x{:08x} count={} cont={} cases=[{}]", o.shift, o.mask,
                               o.cases.size(), target(o.continuation), cases);
        }
        std::string operator()(const AttachOperands& o) const { return fmt::format("slot={}", o.slot); }
        std::string operator()(const ReturnOperands&) const { return {}; }
    };
    return std::visit(Visitor{}, in.operands);
}

std::set<std::uint32_t> targets_of(const Program& program) {
    std::set<std::uint32_t> targets;
    for (const auto& [offset, in] : program.instructions) {
        for (std::uint32_t t : in.branches()) targets.insert(t);
        if (in.opcode >= Opcode::Plane && in.opcode <= Opcode::Select) targets.insert(*in.next());
    }
    return targets;
}

std::string instruction_line(const Instruction& in, bool is_target) {
    std::string line = fmt::format("{}{:04x}  {:<25} {:<9} {}", is_target ? '>' : ' ', in.offset,
                                   bytes_column(in.bytes), opcode_name(in.opcode), operands_text(in));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
}

std::string attachment_line(std::size_t slot, const Attachment& a) {
    if (a.model == 0) return fmt::format("  slot {}: variable (filled by gameplay)\n", slot);
    return fmt::format("  slot {}: model {} translation ({}, {}, {}) rotation [{}]\n", slot, a.model,
                       a.translation[0], a.translation[1], a.translation[2], fmt::join(a.rotation, " "));
}

} // namespace

std::string disassemble(const Program& program) {
    const std::set<std::uint32_t> targets = targets_of(program);
    std::string out;
    std::uint32_t end = 0;
    for (const auto& [offset, in] : program.instructions) {
        if (offset > end) out += fmt::format("; {} unreachable bytes at {}\n", offset - end, target(end));
        if (offset < end) out += fmt::format("; {} overlaps the instruction before it\n", target(offset));
        out += instruction_line(in, targets.count(offset) != 0);
        end = std::max(end, offset + in.size);
    }
    return out;
}

std::string dump_record(const ModelArchive& archive, std::uint32_t index, const TextureArchive* textures) {
    const ModelRecord& m = archive.record(index);
    const ModelHeader& h = m.header;
    const Program program = decode_program(archive, index, textures);
    std::string out = fmt::format("record {} \"{}\" \"{}\"\n", index, m.name(), m.description());
    out += fmt::format("  extent 0x{:08x}..0x{:08x} ({} bytes), encoding {}\n", m.extent.begin, m.extent.end,
                       m.extent.size(), m.encoding == Encoding::S16 ? "s16" : "grid");
    out += fmt::format("  lod_distance {} next {} radius {} height {} properties 0x{:08x} bounds [{}]\n",
                       h.lod_distance, h.next, h.radius, h.height, h.properties, fmt::join(h.bounds, " "));
    out +=
        fmt::format("  vertices {}, normals {} (flat {}), attachments {}, bounding box {}, shadow {}\n",
                    m.vertices.size(), m.normals.count_all, m.normals.count_flat, m.attachments.size(),
                    m.bounding_box.empty() ? "absent" : "present",
                    !m.shadow_record || *m.shadow_record == -1 ? std::string("self")
                                                               : fmt::format("record {}", *m.shadow_record));
    for (std::size_t slot = 0; slot < m.attachments.size(); ++slot)
        out += attachment_line(slot, m.attachments[slot]);
    if (program.empty()) return out + "program absent\n";
    out += fmt::format("program at +0x{:x} (archive 0x{:08x}), {} instructions\n", h.program, program.base,
                       program.instructions.size());
    return out + disassemble(program);
}

} // namespace refcheck::reimpl
