// reimpl/program and program_decoder: the explicit structure of decoded programs.
#include "refcheck/reimpl/program.hpp"

#include <gtest/gtest.h>

#include <map>

#include "test_models.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

class ProgramTest : public ::testing::Test {
protected:
    BuiltArchive built = models_archive();
    ModelArchive archive = ModelArchive::parse(built.bytes);
    TextureArchive textures = TextureArchive::parse(textures_archive());
};

TEST_F(ProgramTest, ResolvesEveryBranchAndContinuationToItsLabel) {
    const ProgramBuilder b = control_program();
    const Program p = decode_program(archive, kControlModel, &textures);
    EXPECT_EQ(p.base, built.records[kControlModel].offset + built.records[kControlModel].program);
    const auto& plane = std::get<PlaneOperands>(p.at(b.offset("plane")).operands);
    EXPECT_EQ(plane.vertices, (std::array<std::uint8_t, 3>{0, 1, 2}));
    EXPECT_EQ(plane.front, b.offset("front"));
    EXPECT_EQ(plane.back, b.offset("back"));
    EXPECT_EQ(plane.continuation, b.offset("after_plane"));
    EXPECT_EQ(p.at(b.offset("plane")).size, 10u);
    const auto& mask = std::get<IfMaskOperands>(p.at(b.offset("after_plane")).operands);
    EXPECT_EQ(mask.mask, 1u);
    EXPECT_EQ(mask.branch, b.offset("lit"));
    const auto& choose = std::get<ChooseOperands>(p.at(b.offset("after_if")).operands);
    EXPECT_EQ(choose.set, b.offset("set"));
    EXPECT_EQ(choose.clear, b.offset("clear"));
    EXPECT_EQ(p.at(b.offset("after_if")).size, 11u);
    const Instruction& sel = p.at(b.offset("after_choose"));
    const auto& select = std::get<SelectOperands>(sel.operands);
    EXPECT_EQ(select.shift, 4);
    EXPECT_EQ(select.mask, 3u);
    EXPECT_EQ(select.cases, (std::vector<std::uint32_t>{b.offset("case0"), b.offset("case1")}));
    EXPECT_EQ(select.continuation, b.offset("after_select"));
    EXPECT_EQ(sel.size, 9u + 2u * 2u);
    EXPECT_EQ(sel.branches(), select.cases);
    EXPECT_EQ(sel.next(), b.offset("after_select"));
    EXPECT_EQ(std::get<AttachOperands>(p.at(b.offset("after_select")).operands).slot, 0);
    EXPECT_EQ(p.instructions.size(), 21u);
}

TEST_F(ProgramTest, DecodesTheSpecsWorkedSecondaryPacket) {
    const Program p = decode_program(archive, kMaterialsModel, &textures);
    // primary 3: 1 + 4 + 3 bytes; primary 7: 1 + 5 + 9 bytes; then the secondary type 16.
    const std::uint32_t at = 8 + 15;
    const Instruction& in = p.at(at);
    EXPECT_EQ(in.opcode, Opcode::Secondary);
    const auto& face = std::get<FaceOperands>(in.operands);
    EXPECT_EQ(face.length, 19);
    EXPECT_EQ(in.size, 20u);
    const Packet& k = face.packet;
    EXPECT_EQ(k.offset, at + 2);
    EXPECT_EQ(k.type, 16);
    EXPECT_EQ(k.texture(), 1);
    EXPECT_EQ(k.mask(), 5);
    EXPECT_EQ(k.face_normal(), 1);
    EXPECT_EQ(k.vertices, (std::vector<std::uint8_t>{0, 1, 2, 3}));
    EXPECT_EQ(k.u, (std::vector<std::uint8_t>{0, 64, 64, 0}));
    EXPECT_EQ(k.v, (std::vector<std::uint8_t>{0, 0, 80, 63}));
    // vertex k at +8+3k from the opcode: vertex 2's v (80) at +16.
    EXPECT_EQ(in.bytes[16], 80);
    EXPECT_EQ(in.bytes[8 + 3 * 3], 3);
}

TEST_F(ProgramTest, PacketFieldsFollowTheMaterialLayoutOfEachType) {
    const Program p = decode_program(archive, kMaterialsModel, &textures);
    std::map<std::uint8_t, const Packet*> by_type;
    for (const auto& [offset, in] : p.instructions) {
        if (const auto* f = std::get_if<FaceOperands>(&in.operands)) by_type[f->packet.type] = &f->packet;
    }
    EXPECT_EQ(by_type.at(3)->colour(), 10);
    EXPECT_EQ(by_type.at(3)->colour_b(), 20);
    EXPECT_FALSE(by_type.at(3)->face_normal().has_value());
    EXPECT_EQ(by_type.at(19)->face_normal(), 2); // 19/20: normal before mask
    EXPECT_EQ(by_type.at(19)->mask(), 9);
    EXPECT_EQ(by_type.at(19)->normals, (std::vector<std::uint8_t>{0, 1, 2}));
    EXPECT_EQ(by_type.at(15)->mask(), 0); // 15/16: mask before normal
    EXPECT_EQ(by_type.at(15)->face_normal(), 2);
    EXPECT_EQ(by_type.at(18)->normals, (std::vector<std::uint8_t>{0, 1, 5}));
    EXPECT_TRUE(by_type.at(6)->material.empty());
    EXPECT_EQ(by_type.at(21)->size(), 2u + 3u);
    EXPECT_EQ(by_type.at(20)->size(), 6u + 3u * 4u);
}

TEST_F(ProgramTest, SharedTailsAreDecodedOnceAndAbsentProgramsAreEmpty) {
    const Program null_program = decode_program(archive, kNullModel);
    ASSERT_EQ(null_program.instructions.size(), 1u);
    EXPECT_EQ(null_program.at(0).opcode, Opcode::Return);
    RecordSpec absent;
    const ModelArchive none = ModelArchive::parse(build_model_archive({absent}).bytes);
    EXPECT_TRUE(decode_program(none, 0).empty());
}

TEST(Primitives, HeaderAndVertexSizesMatchTheSpecTable) {
    const std::array<std::pair<int, int>, kPrimitiveTypeCount> sizes{
        {{3, 1}, {3, 1}, {3, 1}, {4, 1}, {3, 1}, {3, 1}, {2, 1}, {5, 3}, {5, 3}, {4, 1}, {4, 1},
         {4, 1}, {5, 1}, {4, 1}, {4, 1}, {6, 3}, {6, 3}, {4, 2}, {5, 2}, {6, 4}, {6, 4}, {2, 1}}};
    for (std::uint8_t t = 0; t < kPrimitiveTypeCount; ++t) {
        EXPECT_EQ(primitive_info(t)->header_size, sizes[t].first) << int(t);
        EXPECT_EQ(primitive_info(t)->vertex_size, sizes[t].second) << int(t);
    }
    EXPECT_EQ(primitive_info(22), nullptr);
}

} // namespace
} // namespace refcheck::reimpl
