// The one helper of reimpl/ that touches the file system: a whole file as bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace refcheck::reimpl {

// std::runtime_error naming the path when the file cannot be read.
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path);

} // namespace refcheck::reimpl
