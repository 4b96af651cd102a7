// What profilegen needs from a PE image: its base, its exports and its descriptor section.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace refcheck::profilegen {

struct ImageSymbols {
    std::string image_name;                       // file name without directories
    std::string image_sha256;                     // of the whole file, lower-case hex
    std::uint32_t image_base = 0;                 // OptionalHeader.ImageBase
    std::map<std::string, std::uint32_t> exports; // name -> RVA
    std::vector<std::uint8_t> descriptor_section; // raw bytes of .rcdesc
};

// Reads a PE32 image with LIEF. Throws ProfileError when it cannot be parsed, is not PE32, or has
// no export table or no descriptor section.
ImageSymbols read_image_symbols(const std::string& path);

} // namespace refcheck::profilegen
