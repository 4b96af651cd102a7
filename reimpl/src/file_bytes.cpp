#include "refcheck/reimpl/file_bytes.hpp"

#include "refcheck/reimpl/format_error.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace refcheck::reimpl {

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error("cannot read " + path.string());
    return bytes;
}

std::vector<std::uint8_t> read_archive(const std::filesystem::path& path, std::string_view archive) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec)
        throw FormatError(Location{std::string(archive), std::nullopt, 0},
                          "the file is missing (" + path.string() + ")");
    return read_file_bytes(path);
}

} // namespace refcheck::reimpl
