// The stand-in's descriptor records (fixture/descriptor.h): fixed 256-byte records in the image
// section ".rcdesc" naming each routine's convention, role, return and arguments, each global's
// type and size, and each shared struct's fields.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::profilegen {

// The one failure of this tool: a message naming what is wrong.
class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kDescriptorSize = 256;
inline constexpr const char* kDescriptorSection = ".rcdesc";

struct Descriptor {
    std::string kind;        // routine | data | struct | field
    std::string name;        // routine/global/struct name, or "struct.field"
    std::string text;        // routine: "convention;role;returns;args"; data: type[;name=N,...]; field: type
    std::uint32_t value = 0; // field: offset
    std::uint32_t size = 0;  // data, struct, field: bytes
};

// Splits the section into records; all-zero records (section padding) are skipped. Throws
// ProfileError on a record without the "RCD1" magic or a trailing partial record with data.
std::vector<Descriptor> parse_descriptors(std::span<const std::uint8_t> section);

} // namespace refcheck::profilegen
