#include "refcheck/reimpl/file_bytes.hpp"

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

} // namespace refcheck::reimpl
