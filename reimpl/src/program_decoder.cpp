// decode_program: the checked decoder shared by the interpreter and the disassembler.
#include <fmt/format.h>

#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/program.hpp"

namespace refcheck::reimpl {
namespace {

class ProgramDecoder {
public:
    ProgramDecoder(const ModelRecord& record, const ByteReader& reader, const TextureArchive* textures,
                   InvalidData invalid)
        : record_(record), reader_(reader), textures_(textures),
          stop_there_(invalid == InvalidData::StopThere) {
        program_.record = record.index;
        program_.invalid_data = invalid;
        program_.base = record.absolute(record.header.program);
        program_.limit = static_cast<std::uint32_t>(record.extent.size() - record.header.program);
    }

    Program run() {
        if (record_.header.program == 0) return std::move(program_);
        decode_reachable();
        if (!stop_there_) check_acyclic(); // StopThere: the walk's step budget ends a cycle
        return std::move(program_);
    }

private:
    [[noreturn]] void fail(std::uint32_t at, std::string_view detail) const {
        reader_.fail(program_.base + at, fmt::format("program +0x{:x}: {}", at, detail));
    }

    void need(std::uint64_t at, std::uint64_t size, std::string_view what) const {
        if (at + size > program_.limit) {
            fail(static_cast<std::uint32_t>(at),
                 fmt::format("{} ({} bytes) runs past the end of the record (program has "
                             "0x{:x} bytes)",
                             what, size, program_.limit));
        }
    }
    std::uint8_t u8(std::uint32_t at) const {
        need(at, 1, "byte");
        return reader_.u8(program_.base + at);
    }
    std::uint32_t u32(std::uint32_t at) const {
        need(at, 4, "32-bit operand");
        return reader_.u32(program_.base + at);
    }
    // A signed 16-bit displacement at `at`, relative to the byte after it.
    std::uint32_t target(std::uint32_t at, std::string_view what) const {
        need(at, 2, what);
        const std::int64_t to = std::int64_t{at} + 2 + reader_.s16(program_.base + at);
        // StopThere: a target at or past the record's end is kept; the walk stops when it gets
        // there (for the archive's last record the stand-in's in_archive check stops it there too).
        if (stop_there_ && to >= program_.limit) return static_cast<std::uint32_t>(to);
        if (to < 0 || to >= program_.limit) {
            fail(at, fmt::format("{} to {}0x{:x} leaves the program (0x0..0x{:x})", what, to < 0 ? "-" : "",
                                 to < 0 ? -to : to, program_.limit));
        }
        return static_cast<std::uint32_t>(to);
    }

    void check_vertex(std::uint32_t at, std::uint8_t index) const {
        if (!stop_there_ && index >= record_.vertices.size()) { // StopThere: the walk takes it as behind
            fail(at, fmt::format("vertex index {} is past the vertex list ({} vertices)", index,
                                 record_.vertices.size()));
        }
    }

    Packet decode_packet(std::uint32_t at) const;
    Instruction decode_instruction(std::uint32_t at) const;
    Instruction decode_or_stop(std::uint32_t at) const;
    Operands decode_operands(Opcode op, std::uint32_t at) const;
    FaceOperands decode_secondary(std::uint32_t at) const;
    SelectOperands decode_select(std::uint32_t at) const;
    std::uint32_t operand_size(const Operands& operands) const;
    void decode_reachable();
    void check_acyclic() const;

    void check_texture(const Packet& p) const;

    const ModelRecord& record_;
    const ByteReader& reader_;
    const TextureArchive* textures_;
    bool stop_there_;
    Program program_;
};

Packet ProgramDecoder::decode_packet(std::uint32_t at) const {
    Packet p;
    p.offset = at;
    p.type = u8(at);
    p.info = primitive_info(p.type);
    if (!p.info) fail(at, fmt::format("unknown primitive type {}", p.type));
    const std::uint8_t count = u8(at + 1);
    if (count == 0) fail(at + 1, "vertex count 0");
    const std::uint32_t size = p.info->header_size + std::uint32_t{count} * p.info->vertex_size;
    if (size > kMaxPacketSize) {
        fail(at + 1, fmt::format("{} packet of {} vertices is {} bytes, more than {}", p.info->name, count,
                                 size, kMaxPacketSize));
    }
    need(at, size, fmt::format("{} packet of {} vertices", p.info->name, count));
    for (std::uint32_t i = 2; i < p.info->header_size; ++i) p.material.push_back(u8(at + i));
    check_texture(p);
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint32_t vat = at + p.info->header_size + k * p.info->vertex_size;
        p.vertices.push_back(u8(vat));
        check_vertex(vat, p.vertices.back());
        if (p.info->textured()) {
            p.u.push_back(u8(vat + 1));
            p.v.push_back(u8(vat + 2));
        }
        if (p.info->vertex_normals()) p.normals.push_back(u8(vat + p.info->vertex_size - 1));
    }
    return p;
}

void ProgramDecoder::check_texture(const Packet& p) const {
    const auto slot = p.texture();
    if (!slot || !textures_ || textures_->populated(*slot)) return;
    fail(p.offset + *p.info->material.texture,
         fmt::format("texture slot {} is {} in {} ({} slots)", *slot,
                     *slot < textures_->count() ? "empty" : "past the table", kTextureArchiveName,
                     textures_->count()));
}

FaceOperands ProgramDecoder::decode_secondary(std::uint32_t at) const {
    FaceOperands f;
    f.length = u8(at);
    f.packet = decode_packet(at + 1);
    if (*f.length != 1 + f.packet.size()) {
        fail(at, fmt::format("secondary length {} does not match the packet ({} bytes with the length byte)",
                             *f.length, 1 + f.packet.size()));
    }
    return f;
}

SelectOperands ProgramDecoder::decode_select(std::uint32_t at) const {
    SelectOperands s;
    s.shift = u8(at);
    if (s.shift >= 32) fail(at, fmt::format("select shift {} is not below 32", s.shift));
    s.mask = u32(at + 1);
    const std::uint8_t count = u8(at + 5);
    s.continuation = target(at + 6, "select continuation");
    need(at + 8, 2ull * count, fmt::format("select case table of {} entries", count));
    for (std::uint32_t k = 0; k < count; ++k)
        s.cases.push_back(target(at + 8 + 2 * k, fmt::format("select case {}", k)));
    return s;
}

Operands ProgramDecoder::decode_operands(Opcode op, std::uint32_t at) const {
    switch (op) {
        case Opcode::Primary: return FaceOperands{std::nullopt, decode_packet(at)};
        case Opcode::Secondary: return decode_secondary(at);
        case Opcode::Plane: {
            PlaneOperands o;
            for (std::uint32_t k = 0; k < 3; ++k) {
                o.vertices[k] = u8(at + k);
                check_vertex(at + k, o.vertices[k]);
            }
            o.front = target(at + 3, "plane front branch");
            o.back = target(at + 5, "plane back branch");
            o.continuation = target(at + 7, "plane continuation");
            return o;
        }
        case Opcode::IfMask:
            return IfMaskOperands{u32(at), target(at + 4, "ifmask branch"),
                                  target(at + 6, "ifmask continuation")};
        case Opcode::Choose:
            return ChooseOperands{u32(at), target(at + 4, "choose set branch"),
                                  target(at + 6, "choose clear branch"),
                                  target(at + 8, "choose continuation")};
        case Opcode::Select: return decode_select(at);
        case Opcode::Attach: {
            const std::uint8_t slot = u8(at);
            if (slot >= record_.attachments.size()) {
                fail(at, fmt::format("attachment slot {} is past the attachment list ({} slots)", slot,
                                     record_.attachments.size()));
            }
            return AttachOperands{slot};
        }
        case Opcode::Return: return ReturnOperands{};
    }
    fail(at, "unreachable opcode");
}

std::uint32_t ProgramDecoder::operand_size(const Operands& operands) const {
    struct Visitor {
        std::uint32_t operator()(const FaceOperands& f) const { return (f.length ? 1 : 0) + f.packet.size(); }
        std::uint32_t operator()(const PlaneOperands&) const { return 9; }
        std::uint32_t operator()(const IfMaskOperands&) const { return 8; }
        std::uint32_t operator()(const ChooseOperands&) const { return 10; }
        std::uint32_t operator()(const SelectOperands& s) const {
            return 8 + 2 * static_cast<std::uint32_t>(s.cases.size());
        }
        std::uint32_t operator()(const AttachOperands&) const { return 1; }
        std::uint32_t operator()(const ReturnOperands&) const { return 0; }
    };
    return std::visit(Visitor{}, operands);
}

Instruction ProgramDecoder::decode_instruction(std::uint32_t at) const {
    const std::uint8_t byte = u8(at);
    if (byte >= kOpcodeCount) fail(at, fmt::format("unknown opcode {}", byte));
    Instruction in;
    in.offset = at;
    in.opcode = static_cast<Opcode>(byte);
    in.operands = decode_operands(in.opcode, at + 1);
    in.size = 1 + operand_size(in.operands);
    for (std::uint32_t i = 0; i < in.size; ++i) in.bytes.push_back(reader_.u8(program_.base + at + i));
    return in;
}

// StopThere: an instruction that does not decode is kept as an invalid one, with the reason.
Instruction ProgramDecoder::decode_or_stop(std::uint32_t at) const {
    if (!stop_there_) return decode_instruction(at);
    try {
        return decode_instruction(at);
    } catch (const FormatError& e) {
        Instruction in;
        in.offset = at;
        in.size = 1;
        if (at < program_.limit) {
            const std::uint8_t byte = reader_.u8(program_.base + at);
            in.bytes = {byte};
            if (byte < kOpcodeCount) in.opcode = static_cast<Opcode>(byte);
        }
        in.invalid = e.what();
        return in;
    }
}

void ProgramDecoder::decode_reachable() {
    std::vector<std::uint32_t> pending{0};
    while (!pending.empty()) {
        const std::uint32_t at = pending.back();
        pending.pop_back();
        if (program_.instructions.count(at) != 0) continue;
        Instruction in = decode_or_stop(at);
        const auto next = in.next();
        if (next && *next >= program_.limit && !stop_there_) // StopThere: decoding there stops
            fail(at, "the program runs past the end of the record without a return");
        const auto branches = in.branches();
        for (auto it = branches.rbegin(); it != branches.rend(); ++it) pending.push_back(*it);
        if (next) pending.push_back(*next);
        program_.instructions.emplace(at, std::move(in));
    }
}

// Every path from an instruction must end at a return: the graph of next and branch edges must be
// acyclic (the animation state and a plane's winding are fixed during one draw, so a cycle never ends).
void ProgramDecoder::check_acyclic() const {
    enum class Mark : std::uint8_t { Open, Done };
    std::map<std::uint32_t, Mark> marks;
    struct Frame {
        std::uint32_t at;
        std::vector<std::uint32_t> successors;
        std::size_t next = 0;
    };
    auto successors = [this](std::uint32_t at) {
        const Instruction& in = program_.at(at);
        auto out = in.branches();
        if (const auto n = in.next()) out.push_back(*n);
        return out;
    };
    std::vector<Frame> stack{{0, successors(0)}};
    marks[0] = Mark::Open;
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.successors.size()) {
            marks[top.at] = Mark::Done;
            stack.pop_back();
            continue;
        }
        const std::uint32_t to = top.successors[top.next++];
        const auto it = marks.find(to);
        if (it == marks.end()) {
            marks[to] = Mark::Open;
            stack.push_back({to, successors(to)});
        } else if (it->second == Mark::Open) {
            fail(top.at,
                 fmt::format("{} to +0x{:x} forms a cycle", opcode_name(program_.at(top.at).opcode), to));
        }
    }
}

} // namespace

Program decode_program(const ModelRecord& record, const ByteReader& reader, const TextureArchive* textures,
                       InvalidData invalid) {
    return ProgramDecoder(record, reader, textures, invalid).run();
}

Program decode_program(const ModelArchive& archive, std::uint32_t record, const TextureArchive* textures,
                       InvalidData invalid) {
    return decode_program(archive.record(record), archive.reader(record), textures, invalid);
}

} // namespace refcheck::reimpl
