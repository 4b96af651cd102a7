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
    Range range;               // guest addresses, page-rounded end
    uint32_t data_size = 0;    // bytes initialised from the file; the rest is zero (.bss)
    bool readable = false, writable = false, executable = false;
};

struct ImportBinding {
    std::string dll;           // as named by the image, e.g. "KERNEL32.dll"
    std::string function;      // name, or "#12" for an ordinal import
    Address iat_slot = 0;      // guest address of the IAT entry
    Address thunk = 0;         // what the slot now holds: a shim thunk or the trap
    bool shimmed = false;      // false: calling it stops the run (unimplemented import)
};

struct Image {
    std::filesystem::path path;
    Address base = 0;            // where it was loaded
    Address preferred_base = 0;  // OptionalHeader.ImageBase
    uint32_t size = 0;           // SizeOfImage
    Address entry = 0;
    uint32_t relocations_applied = 0;  // HIGHLOW fixups applied (0 when loaded at its preferred base)
    std::vector<ImageSection> sections;
    std::vector<ImportBinding> imports;
    std::map<std::string, Address> exports;  // by exported name
    std::map<std::string, Address> symbols;  // COFF symbols (decorated, e.g. "_foo", "_bar@8")

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

}  // namespace refcheck::emu
