// reimpl/disassembler: golden listings of the hand-built models (golden/*.txt).
#include "refcheck/reimpl/disassembler.hpp"

#include <gtest/gtest.h>

#include "golden.hpp"
#include "test_models.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

class DisassemblerTest : public ::testing::Test {
protected:
    ModelArchive archive = ModelArchive::parse(models_archive().bytes);
    TextureArchive textures = TextureArchive::parse(textures_archive());
};

TEST_F(DisassemblerTest, TriangleDump) {
    expect_golden("triangle.txt", dump_record(archive, kTriangleModel, &textures));
}
TEST_F(DisassemblerTest, ControlDump) {
    expect_golden("control.txt", dump_record(archive, kControlModel, &textures));
}
TEST_F(DisassemblerTest, MaterialsDump) {
    expect_golden("materials.txt", dump_record(archive, kMaterialsModel, &textures));
}
TEST_F(DisassemblerTest, NullDump) { expect_golden("null.txt", dump_record(archive, kNullModel, &textures)); }

TEST(Disassembler, ListsUnreachableBytesBetweenInstructions) {
    ProgramBuilder b;
    b.if_mask(1, "branch", "after").raw({0xff, 0xee}).label("after").ret().label("branch").ret();
    RecordSpec r;
    r.program = b.build();
    const ModelArchive archive = ModelArchive::parse(build_model_archive({r}).bytes);
    expect_golden("unreachable.txt", disassemble(decode_program(archive, 0)));
}

} // namespace
} // namespace refcheck::reimpl
