#include "refcheck/emu/image.hpp"

namespace refcheck::emu {

std::string undecorate(std::string_view name) {
    if (name.size() > 1 && (name[0] == '_' || name[0] == '@')) {
        std::string_view rest = name.substr(1);
        size_t at = rest.rfind('@');
        if (at != std::string_view::npos && at + 1 < rest.size() &&
            rest.find_first_not_of("0123456789", at + 1) == std::string_view::npos)
            rest = rest.substr(0, at);
        else if (name[0] == '@')
            return std::string(name);
        return std::string(rest);
    }
    return std::string(name);
}

std::map<Address, std::string> address_names(const Image& image) {
    std::map<Address, std::string> out;
    for (const auto& [name, address] : image.exports) out.try_emplace(address, name);
    for (const CoffSymbol& s : image.coff_symbols) {
        std::string name = undecorate(s.name);
        if (s.storage_class == coff_static && !s.file.empty()) name.insert(0, s.file + ":");
        out.try_emplace(s.address, std::move(name));
    }
    return out;
}

std::optional<Address> Image::address_of(std::string_view name) const {
    std::string key(name);
    if (auto it = exports.find(key); it != exports.end()) return it->second;
    if (auto it = symbols.find(key); it != symbols.end()) return it->second;
    for (const auto& [coff, address] : symbols)
        if (undecorate(coff) == name) return address;
    return std::nullopt;
}

Address Image::require(std::string_view name) const {
    if (auto a = address_of(name)) return *a;
    throw EmuError("image " + path.filename().string() + " has no export or symbol named '" +
                   std::string(name) + "'");
}

const ImageSection* Image::section_at(Address a) const {
    for (const auto& s : sections)
        if (s.range.contains(a)) return &s;
    return nullptr;
}

bool Image::is_code(Address a) const {
    const ImageSection* s = section_at(a);
    return s != nullptr && s->executable;
}

} // namespace refcheck::emu
