// The draw-language disassembler over the same decoder as the interpreter, for `refcheck dump`.
#pragma once

#include <cstdint>
#include <string>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

namespace refcheck::reimpl {

// One line per reachable instruction, in offset order:
//   "> 0012  02 00 01 02 04 00 ...  plane      v=[0 1 2] front=+0x001c back=+0x0020 cont=+0x0024"
// program offset (hex; '>' marks a branch or continuation target), up to 8 instruction bytes,
// mnemonic, operands; packets show type name and number, count, material fields and vertices.
// Bytes inside the program's span that no path reaches are listed as "; N unreachable bytes".
std::string disassemble(const Program& program);

// The listing of `refcheck dump`: the record's header, blocks and attachment slots, then its
// program's disassembly. FormatError when the record or its program is invalid.
std::string dump_record(const ModelArchive& archive, std::uint32_t record,
                        const TextureArchive* textures = nullptr);

} // namespace refcheck::reimpl
