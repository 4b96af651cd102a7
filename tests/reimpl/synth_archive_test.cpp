// The small synthetic data root (tools/synth generate --profile small, made by CMake into the build
// tree): every record decodes, disassembles, constructs, and draws for fixed views and states.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "refcheck/reimpl/disassembler.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/relocation.hpp"

namespace refcheck::reimpl {
namespace {

const std::filesystem::path kRoot = REFCHECK_REIMPL_SYNTH_DIR;

class SynthArchive : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        models_ = new ModelArchive(ModelArchive::parse(read_file_bytes(kRoot / "3DDATA" / "3DOBJS.BIN")));
        textures_ =
            new TextureArchive(TextureArchive::parse(read_file_bytes(kRoot / "3DDATA" / "OBJTEXT.BIN")));
        palette_ = new PaletteTables(build_palette(read_file_bytes(kRoot / "3DPAL.RGB"), 0));
    }
    static void TearDownTestSuite() {
        delete models_;
        delete textures_;
        delete palette_;
    }
    static const ModelArchive* models_;
    static const TextureArchive* textures_;
    static const PaletteTables* palette_;
};
const ModelArchive* SynthArchive::models_ = nullptr;
const TextureArchive* SynthArchive::textures_ = nullptr;
const PaletteTables* SynthArchive::palette_ = nullptr;

// The camera looks along +z at the model from a distance that scales with its radius.
Camera view_of(const ModelRecord& record) {
    Camera camera;
    const std::int64_t radius = std::max<std::int64_t>(record.header.radius, 256);
    camera.position = {0, static_cast<std::int32_t>(radius / 4),
                       static_cast<std::int32_t>(-std::min<std::int64_t>(4 * radius, 1 << 28))};
    return camera;
}

TEST_F(SynthArchive, EveryRecordDecodesAndDisassembles) {
    ASSERT_GT(models_->count(), 0u);
    std::size_t instructions = 0;
    for (std::uint32_t i = 0; i < models_->count(); ++i) {
        if (!models_->populated(i)) continue;
        const Program program = decode_program(*models_, i, textures_);
        instructions += program.instructions.size();
        EXPECT_FALSE(dump_record(*models_, i, textures_).empty());
    }
    EXPECT_GT(instructions, models_->count());
}

// Relocation over the whole synthetic archive, checked against the file's own bytes: each populated
// record's nonzero header offsets (+0x2c..+0x44) gain allocation + record offset, and no other byte
// changes; each texture is its file header with word 2 pointing just past the descriptor, then its
// file pixels. (Before, only the sizes were compared, which hold by construction.)
TEST_F(SynthArchive, RelocationTouchesOnlyHeaderOffsets) {
    const std::uint32_t allocation = 0x00400000;
    const RelocatedModels out = relocate_models(*models_, allocation);
    const std::vector<std::uint8_t> file(models_->bytes().begin(), models_->bytes().end());
    ASSERT_EQ(out.bytes.size(), file.size());
    ASSERT_EQ(out.object_table.size(), models_->count());
    const auto u32 = [](const std::vector<std::uint8_t>& b, std::size_t at) {
        return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
               std::uint32_t(b[at + 3]) << 24;
    };
    std::vector<bool> in_field(file.size(), false);
    std::size_t relocated = 0;
    for (std::uint32_t i = 0; i < models_->count(); ++i) {
        if (!models_->populated(i)) {
            EXPECT_EQ(out.object_table[i], 0u) << i;
            continue;
        }
        ASSERT_GE(out.object_table[i], allocation) << i;
        const std::uint32_t base = out.object_table[i] - allocation;
        ASSERT_LE(std::size_t(base) + 0x48, file.size()) << i;
        for (std::uint32_t field = 0x2c; field <= 0x44; field += 4) {
            const std::uint32_t before = u32(file, base + field);
            EXPECT_EQ(u32(out.bytes, base + field), before == 0 ? 0 : before + allocation + base)
                << "record " << i << " +0x" << std::hex << field;
            relocated += before != 0;
            for (std::uint32_t k = 0; k < 4; ++k) in_field[base + field + k] = true;
        }
    }
    EXPECT_GT(relocated, 0u);
    std::size_t stray = 0;
    for (std::size_t i = 0; i < file.size(); ++i) stray += !in_field[i] && out.bytes[i] != file[i];
    EXPECT_EQ(stray, 0u) << "bytes changed outside the header offsets";

    const std::vector<std::uint8_t> texture_file = read_file_bytes(kRoot / "3DDATA" / "OBJTEXT.BIN");
    std::vector<std::uint32_t> addresses(textures_->count());
    for (std::uint32_t slot = 0; slot < addresses.size(); ++slot)
        addresses[slot] = 0x01000000 + slot * 0x2000;
    const RelocatedTextures textures = relocate_textures(*textures_, addresses);
    std::size_t populated = 0;
    for (std::uint32_t slot = 0; slot < textures_->count(); ++slot) populated += textures_->populated(slot);
    ASSERT_GT(populated, 0u);
    ASSERT_EQ(textures.textures.size(), populated);
    for (const auto& t : textures.textures) {
        const Texture& source = textures_->texture(t.slot);
        EXPECT_EQ(textures.texture_table[t.slot], addresses[t.slot]);
        ASSERT_EQ(t.bytes.size(), source.allocation_size());
        const auto at = static_cast<std::size_t>(source.extent.begin);
        EXPECT_EQ(u32(t.bytes, 0), u32(texture_file, at)) << "type, slot " << t.slot;
        EXPECT_EQ(u32(t.bytes, 4), u32(texture_file, at + 4)) << "height, slot " << t.slot;
        EXPECT_EQ(u32(t.bytes, 8), addresses[t.slot] + 12) << "pixel pointer, slot " << t.slot;
        EXPECT_TRUE(std::equal(t.bytes.begin() + 12, t.bytes.end(), texture_file.begin() + at + 12))
            << "pixels, slot " << t.slot;
    }
}

TEST_F(SynthArchive, EveryRecordConstructsAndDrawsForFixedViewsAndStates) {
    Interpreter interpreter(*models_, *textures_);
    const Rasteriser rasteriser(*palette_, *textures_);
    std::size_t instances = 0, faces = 0;
    for (std::uint32_t i = 0; i < models_->count(); ++i) {
        if (!models_->populated(i)) continue;
        const Instance root = construct(*models_, i, Transform{});
        instances += count_instances(root);
        for (std::uint32_t state : {0u, 0x5a5a5a5au, 0xffffffffu}) {
            events::VectorSink sink;
            ASSERT_NO_THROW(interpreter.draw(
                root, DrawInput{view_of(models_->record(i)), Light{{0, 11585, -11585}}, state}, sink))
                << "record " << i << " state " << state;
            Frame frame;
            for (const auto& e : sink.events()) {
                if (const auto* face = std::get_if<events::FaceDraw>(&e)) {
                    rasteriser.draw(*face, frame);
                    ++faces;
                }
            }
        }
    }
    EXPECT_GE(instances, models_->count() / 2);
    EXPECT_GT(faces, 0u);
}

// The generator's census (census.json, written by an independent decoder) agrees with what this
// decoder finds: records, encodings, instances, opcode and primitive histograms, fault sites.
using Histogram = std::map<std::string, std::int64_t>;

struct Census {
    Histogram opcodes, types;
    std::int64_t s16 = 0, grid = 0, instances = 0, attached = 0;
    std::set<std::uint32_t> missing_normal_models, u64_models, v_past_models;
};

void count_packet(const ModelRecord& record, const Packet& p, const TextureArchive& textures, Census& c) {
    c.types[std::to_string(p.type)] += 1;
    const auto missing = [&record](std::uint8_t n) { return n >= record.normals.count_all; };
    bool normal_missing = p.face_normal() && missing(*p.face_normal());
    for (std::uint8_t g : p.normals) normal_missing = normal_missing || missing(g);
    if (normal_missing) c.missing_normal_models.insert(record.index);
    if (!p.info->textured()) return;
    const Texture& t = textures.texture(*p.texture());
    for (std::size_t k = 0; k < p.u.size(); ++k) {
        if (p.u[k] >= t.stride) c.u64_models.insert(record.index);
        if (p.v[k] >= t.height) c.v_past_models.insert(record.index);
    }
}

TEST_F(SynthArchive, AgreesWithTheGeneratorsCensus) {
    std::ifstream in(kRoot / "census.json");
    ASSERT_TRUE(in) << "no census.json in " << kRoot;
    const nlohmann::json census = nlohmann::json::parse(in);
    Census c;
    for (std::uint32_t i = 0; i < models_->count(); ++i) {
        if (!models_->populated(i)) continue;
        const ModelRecord& record = models_->record(i);
        (record.encoding == Encoding::S16 ? c.s16 : c.grid) += 1;
        const std::uint32_t n = count_instances(construct(*models_, i, Transform{}));
        c.instances += n;
        c.attached += n - 1;
        for (const auto& [offset, in] : decode_program(*models_, i, textures_).instructions) {
            c.opcodes[std::to_string(static_cast<int>(in.opcode))] += 1;
            if (const auto* face = std::get_if<FaceOperands>(&in.operands))
                count_packet(record, face->packet, *textures_, c);
        }
    }
    EXPECT_EQ(c.s16, census["records"]["s16"].get<std::int64_t>());
    EXPECT_EQ(c.grid, census["records"]["grid"].get<std::int64_t>());
    EXPECT_EQ(c.instances, census["attachments"]["instances"].get<std::int64_t>());
    EXPECT_EQ(c.attached, census["attachments"]["attached_instances"].get<std::int64_t>());
    EXPECT_EQ(c.opcodes, census["opcodes"].get<Histogram>());
    EXPECT_EQ(c.types, census["primitive_types"]["histogram"].get<Histogram>());
    EXPECT_EQ(c.missing_normal_models, census["missing_normals"]["indices"].get<std::set<std::uint32_t>>());
    EXPECT_EQ(c.u64_models, census["texture_faults"]["u64_models"].get<std::set<std::uint32_t>>());
    EXPECT_EQ(c.v_past_models,
              census["texture_faults"]["v_past_image_models"].get<std::set<std::uint32_t>>());
}

} // namespace
} // namespace refcheck::reimpl
