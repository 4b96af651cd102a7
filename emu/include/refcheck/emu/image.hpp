// A PE32 image as loaded into the machine: where it sits, its sections, exports, COFF symbols
// and how each import was bound.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

struct ImageSection {
    std::string name;
    Range range;            // guest addresses, page-rounded end
    uint32_t data_size = 0; // bytes initialised from the file; the rest is zero (.bss)
    bool readable = false, writable = false, executable = false;
};

struct ImportBinding {
    std::string dll;      // as named by the image, e.g. "KERNEL32.dll"
    std::string function; // name, or "#12" for an ordinal import
    Address iat_slot = 0; // guest address of the IAT entry
    Address thunk = 0;    // what the slot now holds: a shim thunk or the trap
    bool shimmed = false; // false: calling it stops the run (unimplemented import)
};

// COFF storage classes.
inline constexpr uint8_t coff_external = 2, coff_static = 3, coff_file = 103;

// One entry of the image's COFF symbol table (read from the file itself: PointerToSymbolTable and
// NumberOfSymbols of the file header; names of up to 8 bytes inline, longer ones in the string
// table). Only symbols in a section are kept; `file` is the source file named by the last .file
// record before it ("shadow.c"), empty when none.
struct CoffSymbol {
    std::string name; // as spelled, e.g. "_push", "_bar@8"
    std::string file;
    Address address = 0;       // guest address (section start + value)
    uint8_t storage_class = 0; // 2 external, 3 static, 6 label...
};

struct Image {
    std::filesystem::path path;
    Address base = 0;           // where it was loaded
    Address preferred_base = 0; // OptionalHeader.ImageBase
    uint32_t size = 0;          // SizeOfImage
    Address entry = 0;
    uint32_t relocations_applied = 0; // HIGHLOW fixups applied (0 when loaded at its preferred base)
    std::vector<ImageSection> sections;
    std::vector<ImportBinding> imports;
    std::map<std::string, Address> exports; // by exported name
    std::map<std::string, Address>
        symbols; // COFF symbols (decorated, e.g. "_foo", "_bar@8"); first of duplicates
    std::vector<CoffSymbol> coff_symbols; // every COFF symbol in a section, in table order

    Range range() const { return {base, base + size}; }
    // Exports first, then COFF symbols as spelled, then COFF symbols with the C decoration
    // removed ("_foo" -> "foo", "_bar@8" -> "bar", "@baz@8" -> "baz").
    std::optional<Address> address_of(std::string_view name) const;
    // Like address_of, but throws EmuError naming the image when absent.
    Address require(std::string_view name) const;
    const ImageSection* section_at(Address a) const;
    bool is_code(Address a) const;
};

// "_foo" -> "foo", "_bar@8" -> "bar", "@baz@8" -> "baz", anything else unchanged.
std::string undecorate(std::string_view coff_name);

// A name per named address that stays the same when the image is rebuilt with other files:
// exports first, then COFF symbols undecorated, a static one qualified by its source file
// ("program.c:push", "shadow.c:push": statics of the same name may sit in several files).
std::map<Address, std::string> address_names(const Image& image);

} // namespace refcheck::emu
