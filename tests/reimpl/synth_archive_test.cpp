// The small synthetic data root (tools/synth generate --profile small, made by CMake into the build
// tree): every record decodes, disassembles, constructs, and draws for fixed views and states.
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

TEST_F(SynthArchive, RelocationTouchesOnlyHeaderOffsets) {
    const RelocatedModels out = relocate_models(*models_, 0x00400000);
    EXPECT_EQ(out.bytes.size(), models_->bytes().size());
    std::vector<std::uint32_t> addresses(textures_->count());
    for (std::uint32_t slot = 0; slot < addresses.size(); ++slot)
        addresses[slot] = 0x01000000 + slot * 0x2000;
    const RelocatedTextures textures = relocate_textures(*textures_, addresses);
    for (const auto& t : textures.textures)
        EXPECT_EQ(t.bytes.size(), textures_->texture(t.slot).allocation_size());
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
