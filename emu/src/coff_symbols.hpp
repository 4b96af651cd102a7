// The COFF symbol table of a PE file, read from the file's own bytes (Debian's LIEF 0.9 returns
// empty names for the short, inline ones: "memcpy", "plot", "polygon").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refcheck/emu/image.hpp"

namespace refcheck::emu {

// Symbols that lie in a section (section number 1..N), with guest addresses from `base` and the
// sections' RVAs (section_rva[k] for section number k + 1). Throws EmuError naming `file_name` when
// the table or the string table runs past the end of the file. An image without a table yields
// nothing.
std::vector<CoffSymbol> read_coff_symbols(std::span<const uint8_t> file, const std::string& file_name,
                                          Address base, const std::vector<uint32_t>& section_rva);

} // namespace refcheck::emu
