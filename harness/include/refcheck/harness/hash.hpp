// SHA-256 of byte buffers and files, as lower-case hex, for reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace refcheck::harness {

std::string sha256_hex(std::span<const std::uint8_t> bytes);
std::string sha256_file(const std::filesystem::path& path); // throws std::runtime_error if unreadable

} // namespace refcheck::harness
