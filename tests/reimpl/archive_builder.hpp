// Hand-built archives for the reimpl tests: model records (header, vertex list, normals,
// attachments, program), texture archives, palette files, and a small assembler for the draw
// language that resolves labels into displacements.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "refcheck/reimpl/model_archive.hpp"

namespace refcheck::reimpl::testing {

using Bytes = std::vector<std::uint8_t>;

void put_u16(Bytes& b, std::uint16_t v);
void put_u32(Bytes& b, std::uint32_t v);
void set_u32(Bytes& b, std::size_t at, std::uint32_t v);
void set_u16(Bytes& b, std::size_t at, std::uint16_t v);

RawVertex s16_vertex(std::int16_t x, std::int16_t y, std::int16_t z);
RawVertex grid_vertex(std::uint8_t cx, std::uint8_t cy, std::uint8_t cz, std::uint8_t fx, std::uint8_t fy,
                      std::uint8_t fz);
Attachment attachment(std::uint32_t model, std::array<std::int32_t, 3> translation,
                      std::array<std::int32_t, 9> rotation = {0x7fffffff, 0, 0, 0, 0x7fffffff, 0, 0, 0,
                                                              0x7fffffff});

// The assembler: label() names the next byte; branch operands name labels.
class ProgramBuilder {
public:
    ProgramBuilder& label(const std::string& name);
    ProgramBuilder& raw(const Bytes& bytes);
    // A packet: type, count (= vertex records), material bytes, then the per-vertex bytes.
    ProgramBuilder& primary(std::uint8_t type, const Bytes& material, const std::vector<Bytes>& vertices);
    ProgramBuilder& secondary(std::uint8_t type, const Bytes& material, const std::vector<Bytes>& vertices);
    ProgramBuilder& plane(std::uint8_t v0, std::uint8_t v1, std::uint8_t v2, const std::string& front,
                          const std::string& back, const std::string& cont);
    ProgramBuilder& if_mask(std::uint32_t mask, const std::string& branch, const std::string& cont);
    ProgramBuilder& choose(std::uint32_t mask, const std::string& set, const std::string& clear,
                           const std::string& cont);
    ProgramBuilder& select(std::uint8_t shift, std::uint32_t mask, const std::vector<std::string>& cases,
                           const std::string& cont);
    ProgramBuilder& attach(std::uint8_t slot);
    ProgramBuilder& ret();
    Bytes build() const; // throws std::out_of_range for an unknown label
    std::uint32_t offset(const std::string& label) const {
        return static_cast<std::uint32_t>(labels_.at(label));
    }
    std::uint32_t size() const { return static_cast<std::uint32_t>(bytes_.size()); }

private:
    void displacement(const std::string& label);
    Bytes bytes_;
    std::map<std::string, std::size_t> labels_;
    std::vector<std::pair<std::size_t, std::string>> fixups_; // s16 displacement position -> label
};

Bytes packet(std::uint8_t type, const Bytes& material, const std::vector<Bytes>& vertices);

struct RecordSpec {
    std::int32_t encoding = 0;
    std::string name = "model";
    std::vector<RawVertex> vertices;
    bool has_vertices = true;
    std::optional<std::vector<std::array<std::int8_t, 3>>> normals;
    std::optional<std::uint16_t> count_flat; // defaults to the normal count
    std::optional<std::vector<Attachment>> attachments;
    std::optional<Bytes> program;
    std::optional<std::int32_t> shadow;
    bool bounding_box = false;
    std::uint32_t properties = 0;
    std::int32_t next = -1;
};

struct BuiltRecord {
    std::uint32_t offset = 0; // absolute record offset
    std::uint32_t vertices = 0, normals = 0, attachments = 0, program = 0, box = 0,
                  shadow = 0; // record-relative
};

struct BuiltArchive {
    Bytes bytes;
    std::vector<BuiltRecord> records; // per slot (offset 0 for empty)
};

// Layout: table, then each populated record in slot order: header, box, vertices, normals,
// attachments, shadow, program.
BuiltArchive build_model_archive(const std::vector<std::optional<RecordSpec>>& slots);

struct TextureSpec {
    std::uint32_t type = 2;
    std::uint32_t height = 64;
    Bytes pixels; // stride * height; filled with (x + y) & 0xff when empty
};
Bytes build_texture_archive(const std::vector<std::optional<TextureSpec>>& slots);

// 672 bytes: colour i = (i, 255 - i, (i * 7) & 0xff) unless given.
Bytes palette_file();

} // namespace refcheck::reimpl::testing
