// The one helper of reimpl/ that touches the file system: a whole file as bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace refcheck::reimpl {

// std::runtime_error naming the path when the file cannot be read.
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path);

// One archive of a data root (`archive`: "3DOBJS.BIN", "OBJTEXT.BIN" or "3DPAL.RGB"): its bytes, or,
// when there is no such file, a FormatError naming the archive at offset 0 (the data root is
// invalid: it lacks a file the engine reads). Another failure to read is a std::runtime_error.
// `shown` is how the messages name the file (default: `path`): a caller that knows where the file
// lies names it so that the message reads the same wherever that is ("3DDATA/3DOBJS.BIN", relative
// to its data root), as reports quoting it must.
std::vector<std::uint8_t> read_archive(const std::filesystem::path& path, std::string_view archive,
                                       std::string_view shown = {});

} // namespace refcheck::reimpl
