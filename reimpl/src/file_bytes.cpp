#include "refcheck/reimpl/file_bytes.hpp"

#include "refcheck/reimpl/format_error.hpp"

#include <fstream>
#include <stdexcept>

namespace refcheck::reimpl {

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    // In blocks until the end (not by the size the file had when opened: a file that grows or
    // shrinks meanwhile, or one of no size such as a pipe, is read as it is), not byte by byte.
    std::vector<std::uint8_t> bytes;
    constexpr std::size_t kBlock = 1 << 16;
    while (in) {
        const std::size_t had = bytes.size();
        bytes.resize(had + kBlock);
        in.read(reinterpret_cast<char*>(bytes.data() + had), static_cast<std::streamsize>(kBlock));
        bytes.resize(had + static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw std::runtime_error("cannot read " + path.string());
    return bytes;
}

std::vector<std::uint8_t> read_archive(const std::filesystem::path& path, std::string_view archive) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec)
        throw FormatError(Location{std::string(archive), std::nullopt, 0},
                          "the file is missing (" + path.string() + ")");
    // An archive of a data root is a regular file: reading a FIFO there would block for ever, and a
    // folder has no bytes (the guest's side refuses both too).
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw FormatError(Location{std::string(archive), std::nullopt, 0},
                          "is not a regular file (" + path.string() + ")");
    return read_file_bytes(path);
}

} // namespace refcheck::reimpl
