// Small hand-built models shared by the program, disassembler and interpreter tests.
#pragma once

#include "archive_builder.hpp"

namespace refcheck::reimpl::testing {

// Record layout of models_archive(): 0 null (program 07), 1 control, 2 triangle, 3 materials.
inline constexpr std::uint32_t kNullModel = 0;
inline constexpr std::uint32_t kControlModel = 1;
inline constexpr std::uint32_t kTriangleModel = 2;
inline constexpr std::uint32_t kMaterialsModel = 3;

// A triangle facing the camera (s16), one primary face, one secondary face, return.
ProgramBuilder triangle_program();
RecordSpec triangle_model();
// Every control opcode: plane, ifmask, choose, select (two cases), attach slot 0 -> triangle.
ProgramBuilder control_program();
RecordSpec control_model();
// Every primitive type not used by the others, textures from slot 1, a missing normal (index 5).
ProgramBuilder materials_program();
RecordSpec materials_model();

BuiltArchive models_archive();
Bytes textures_archive(); // slot 1: 64 x 64 type 2; slot 0 empty

} // namespace refcheck::reimpl::testing
