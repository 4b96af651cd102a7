// A profile for an image from its symbols: the addresses of a template's routines and globals
// taken from a GNU ld map file and/or a name,address CSV (as IDA or Ghidra export), the image's
// name, preferred base and SHA-256 filled in. What the template leaves empty and the symbols do
// not name stays empty, and is listed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {

struct ProfileImportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// name -> absolute address. Map: the symbol lines of a GNU ld map ("   0x00401280   say"); CSV:
// "name,address" lines (address hex, with or without 0x; a header line is skipped), quotes allowed.
std::map<std::string, std::uint32_t> read_ld_map(const std::filesystem::path& file);
std::map<std::string, std::uint32_t> read_symbol_csv(const std::filesystem::path& file);

struct ProfileImport {
    nlohmann::ordered_json profile;   // the template, filled in
    std::vector<std::string> filled;  // names given an address, in template order
    std::vector<std::string> missing; // names still without an address
    std::vector<std::string> notes;   // "name: the CSV's 0x... replaces the map's 0x..."
};

struct ProfileImportRequest {
    std::filesystem::path template_file;
    std::filesystem::path image;
    std::optional<std::filesystem::path> map;
    std::optional<std::filesystem::path> csv; // wins over the map where both name a symbol
};

// Names match exactly, else without a decoration ("_name", "name@8"). An address outside the
// image (preferred base .. + SizeOfImage) is an error naming the symbol and the file.
ProfileImport import_profile(const ProfileImportRequest& request);

} // namespace refcheck::harness
