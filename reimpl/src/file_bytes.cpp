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
        throw FormatError(Location{std::string(archive), std::nullopt, 0, Check::open},
                          "the file is missing (" + path.string() + ")");
    // An archive of a data root is a regular file: reading a FIFO there would block for ever, and a
    // folder has no bytes (the guest's side refuses both too).
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw FormatError(Location{std::string(archive), std::nullopt, 0, Check::open},
                          "is not a regular file (" + path.string() + ")");
    // Every offset and size in the formats is 32-bit: a byte at 4 GiB or past it is one no record
    // can name, so such a file is refused before it is read (it was read whole, and a worker ran out
    // of memory, or reported std::bad_alloc naming nothing).
    constexpr std::uintmax_t kMost = 0xffffffffu;
    if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMost)
        throw FormatError(Location{std::string(archive), std::nullopt, kMost, Check::open},
                          "is " + std::to_string(size) + " bytes: the format's offsets are 32-bit, so an " +
                              "archive holds at most " + std::to_string(kMost) + " (" + path.string() + ")");
    return read_file_bytes(path);
}

} // namespace refcheck::reimpl
