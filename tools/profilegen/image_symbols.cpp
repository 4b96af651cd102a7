#include "refcheck/profilegen/image_symbols.hpp"

#include <LIEF/PE.hpp>
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "refcheck/profilegen/descriptors.hpp"

namespace refcheck::profilegen {
namespace {

std::unique_ptr<LIEF::PE::Binary> parse_pe(const std::string& path) {
    try {
        std::unique_ptr<LIEF::PE::Binary> binary = LIEF::PE::Parser::parse(path);
        if (!binary) throw ProfileError(path + ": not a PE image");
        return binary;
    } catch (const LIEF::exception& e) {
        throw ProfileError(path + ": cannot parse: " + e.what());
    }
}

// SHA-256 of a file as lower-case hex (the profile ties itself to the image by it).
std::string file_sha256(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ProfileError(path + ": cannot read");
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    std::array<char, 1 << 16> buffer{};
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0)
        EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), md.data(), &len);
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", md[i]);
        out += two;
    }
    return out;
}

} // namespace

ImageSymbols read_image_symbols(const std::string& path) {
    std::unique_ptr<LIEF::PE::Binary> binary = parse_pe(path);
    if (binary->type() != LIEF::PE::PE_TYPE::PE32) throw ProfileError(path + ": not a PE32 image");
    if (!binary->has_exports()) throw ProfileError(path + ": no export table");
    ImageSymbols image;
    image.image_name = std::filesystem::path(path).filename().string();
    image.image_sha256 = file_sha256(path);
    image.image_base = static_cast<std::uint32_t>(binary->optional_header().imagebase());
    for (const LIEF::PE::ExportEntry& entry : binary->get_export().entries()) {
        if (!image.exports.emplace(entry.name(), entry.address()).second)
            throw ProfileError(path + ": export " + entry.name() + " appears twice");
    }
    try {
        image.descriptor_section = binary->get_section(kDescriptorSection).content();
    } catch (const LIEF::exception&) {
        throw ProfileError(path + ": no " + std::string(kDescriptorSection) + " section");
    }
    return image;
}

} // namespace refcheck::profilegen
