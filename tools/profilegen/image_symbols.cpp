#include "refcheck/profilegen/image_symbols.hpp"

#include <LIEF/PE.hpp>

#include <filesystem>

#include "refcheck/profilegen/descriptors.hpp"

namespace refcheck::profilegen {
namespace {

std::unique_ptr<LIEF::PE::Binary> parse_pe(const std::string& path)
{
    try {
        std::unique_ptr<LIEF::PE::Binary> binary = LIEF::PE::Parser::parse(path);
        if (!binary)
            throw ProfileError(path + ": not a PE image");
        return binary;
    } catch (const LIEF::exception& e) {
        throw ProfileError(path + ": cannot parse: " + e.what());
    }
}

}  // namespace

ImageSymbols read_image_symbols(const std::string& path)
{
    std::unique_ptr<LIEF::PE::Binary> binary = parse_pe(path);
    if (binary->type() != LIEF::PE::PE_TYPE::PE32)
        throw ProfileError(path + ": not a PE32 image");
    if (!binary->has_exports())
        throw ProfileError(path + ": no export table");
    ImageSymbols image;
    image.image_name = std::filesystem::path(path).filename().string();
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

}  // namespace refcheck::profilegen
