// A record's face program as an explicit structure: every instruction reachable from the entry,
// keyed by program offset, with its operands, packets and branch targets resolved to program
// offsets. Checked as it is built: a bad program yields a FormatError naming archive, record and
// byte offset, never a crash, a hang or an out-of-bounds read.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/primitive.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl {

enum class Opcode : std::uint8_t { Primary, Secondary, Plane, IfMask, Choose, Select, Attach, Return };
inline constexpr std::uint8_t kOpcodeCount = 8;
inline constexpr std::uint32_t kMaxPacketSize = 254; // valid.packet: 1 + P fits the secondary length byte
std::string_view opcode_name(Opcode op);

// One primitive packet: type, count, the header bytes after them, and the per-vertex records.
struct Packet {
    std::uint32_t offset = 0; // program offset of the type byte
    std::uint8_t type = 0;
    const PrimitiveInfo* info = nullptr;
    std::vector<std::uint8_t> material; // header bytes after type and count
    std::vector<std::uint8_t> vertices; // vertex indices
    std::vector<std::uint8_t> u;        // textured types only
    std::vector<std::uint8_t> v;
    std::vector<std::uint8_t> normals; // Gouraud types only (per vertex)

    std::uint32_t size() const {
        return info->header_size + static_cast<std::uint32_t>(vertices.size()) * info->vertex_size;
    }
    std::uint8_t count() const { return static_cast<std::uint8_t>(vertices.size()); }
    // Material fields (nullopt when the type has no such field).
    std::optional<std::uint8_t> colour() const;
    std::optional<std::uint8_t> colour_b() const;
    std::optional<std::uint16_t> texture() const;
    std::optional<std::uint8_t> mask() const;
    std::optional<std::uint8_t> face_normal() const;
};

// Operands per opcode. Targets are program offsets (already resolved from the displacements).
struct FaceOperands {                   // op 0 primary, op 1 secondary
    std::optional<std::uint8_t> length; // secondary only: bytes from the length byte to the packet end
    Packet packet;
};
struct PlaneOperands { // op 2
    std::array<std::uint8_t, 3> vertices{};
    std::uint32_t front = 0, back = 0, continuation = 0;
};
struct IfMaskOperands { // op 3
    std::uint32_t mask = 0;
    std::uint32_t branch = 0, continuation = 0;
};
struct ChooseOperands { // op 4
    std::uint32_t mask = 0;
    std::uint32_t set = 0, clear = 0, continuation = 0;
};
struct SelectOperands { // op 5
    std::uint8_t shift = 0;
    std::uint32_t mask = 0;
    std::vector<std::uint32_t> cases; // the authored table (count entries)
    std::uint32_t continuation = 0;
};
struct AttachOperands { // op 6
    std::uint8_t slot = 0;
};
struct ReturnOperands {}; // op 7

using Operands = std::variant<FaceOperands, PlaneOperands, IfMaskOperands, ChooseOperands, SelectOperands,
                              AttachOperands, ReturnOperands>;

struct Instruction {
    std::uint32_t offset = 0; // program offset of the opcode byte
    std::uint32_t size = 0;   // bytes, opcode included
    Opcode opcode = Opcode::Return;
    Operands operands;
    std::vector<std::uint8_t> bytes; // the instruction's bytes as stored
    // InvalidData::StopThere only: why this instruction is invalid data (its decoder's FormatError
    // message). `bytes` then holds its opcode byte alone (none past the record's end), `opcode` is
    // that byte's when it is below 8 (Return otherwise) and it has no next nor branches: the walk
    // stops at it (valid.program.stop).
    std::optional<std::string> invalid;

    // Where execution goes next in this sequence (op 0, 1, 6: the next instruction; ops 2-5: the
    // continuation; op 7: none) and the branches it may execute before that.
    std::optional<std::uint32_t> next() const;
    std::vector<std::uint32_t> branches() const;
};

// What decode_program does with invalid data (section 18).
enum class InvalidData {
    // The reimplementation's own behaviour: the first invalid byte is a FormatError.
    Refuse,
    // The stand-in's reaction, which a hostile case holds the original to (valid.program.stop,
    // valid.index.behind): an instruction that does not decode ends the model's draw where the
    // walk reaches it, and so do branch nesting past 32 and the step budget; a vertex index past
    // the list is a vertex behind the camera. Cycles are left to the step budget. A branch or
    // continuation to the record's end or past it is followed, and the walk stops where it lands
    // (the stand-in stops there when the record is the archive's last: in_archive); one before
    // the program's start makes its instruction invalid (the stand-in would run the bytes there,
    // which is not modelled).
    StopThere,
};

// Invalid data a walk under InvalidData::StopThere reached: where the model's draw ended (an
// instruction that does not decode, nesting past 32, the step budget) or a vertex index past the
// list that it took as behind and went on.
struct ProgramStop {
    std::uint32_t record = 0;
    std::uint32_t offset = 0; // program offset of the instruction (0 for a list cut short, whose `why`
                              // names the list and its record offset)
    std::string why;
    bool ends_draw = true;
};

struct Program {
    std::uint32_t record = 0;
    InvalidData invalid_data = InvalidData::Refuse;
    std::uint64_t base = 0;                            // absolute archive offset of program offset 0
    std::uint32_t limit = 0;                           // bytes from the program start to the record end
    std::map<std::uint32_t, Instruction> instructions; // every reachable instruction, by offset

    bool empty() const { return instructions.empty(); }
    const Instruction& at(std::uint32_t offset) const { return instructions.at(offset); }
};

// Decodes the record's program (header 0x3c; an absent program decodes to an empty Program).
// Checks (valid.*): every read inside the record, known opcodes and primitive types, packet count
// > 0 and size <= 254, secondary lengths, vertex indices inside the vertex list, attachment slots
// inside the attachment list, select shift <= 31, branch targets and continuations inside the
// program, select case tables inside the record, no cycle through branches and continuations,
// and, when `textures` is given, every texture slot populated.
Program decode_program(const ModelArchive& archive, std::uint32_t record,
                       const TextureArchive* textures = nullptr, InvalidData invalid = InvalidData::Refuse);
Program decode_program(const ModelRecord& record, const ByteReader& reader,
                       const TextureArchive* textures = nullptr, InvalidData invalid = InvalidData::Refuse);

} // namespace refcheck::reimpl
