#include "refcheck/reimpl/file_bytes.hpp"

#include "refcheck/reimpl/format_error.hpp"

#include <fstream>
#include <stdexcept>

namespace refcheck::reimpl {

namespace {
// The bytes of `path`; `shown` names the file in an error.
std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path, const std::string& shown) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + shown);
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
    if (in.bad()) throw std::runtime_error("cannot read " + shown);
    return bytes;
}
} // namespace

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
    return read_bytes(path, path.string());
}

std::vector<std::uint8_t> read_archive(const std::filesystem::path& path, std::string_view archive,
                                       std::string_view shown_as) {
    const std::string shown = shown_as.empty() ? path.string() : std::string(shown_as);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec)
        throw FormatError(Location{std::string(archive), std::nullopt, 0, Check::open},
                          "the file is missing (" + shown + ")");
    // An archive of a data root is a regular file: reading a FIFO there would block for ever, and a
    // folder has no bytes (the guest's side refuses both too).
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw FormatError(Location{std::string(archive), std::nullopt, 0, Check::open},
                          "is not a regular file (" + shown + ")");
    // Every offset and size in the formats is 32-bit: a byte at 4 GiB or past it is one no record
    // can name, so such a file is refused before it is read (it was read whole, and a worker ran out
    // of memory, or reported std::bad_alloc naming nothing).
    constexpr std::uintmax_t kMost = 0xffffffffu;
    if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMost)
        throw FormatError(Location{std::string(archive), std::nullopt, kMost, Check::open},
                          "is " + std::to_string(size) + " bytes: the format's offsets are 32-bit, so an " +
                              "archive holds at most " + std::to_string(kMost) + " (" + shown + ")");
    return read_bytes(path, shown);
}

} // namespace refcheck::reimpl
