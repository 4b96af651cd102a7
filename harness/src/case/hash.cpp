#include "refcheck/harness/hash.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace refcheck::harness {

namespace {
struct Sha256 {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
    Sha256() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
    void update(const void* p, std::size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
    std::string hex() {
        std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
        unsigned int len = 0;
        EVP_DigestFinal_ex(ctx.get(), md.data(), &len);
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < len; ++i) {
            out += digits[md[i] >> 4];
            out += digits[md[i] & 15];
        }
        return out;
    }
};
} // namespace

std::string sha256_hex(std::span<const std::uint8_t> bytes) {
    Sha256 h;
    h.update(bytes.data(), bytes.size());
    return h.hex();
}

std::string sha256_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    Sha256 h;
    std::array<char, 1 << 16> buf{};
    while (in) {
        in.read(buf.data(), buf.size());
        h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
    }
    return h.hex();
}

} // namespace refcheck::harness
