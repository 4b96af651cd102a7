#include "refcheck/harness/profile_import.hpp"
#include "refcheck/harness/json_bounded.hpp"

#include "refcheck/harness/hash.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace refcheck::harness {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::optional<std::uint32_t> parse_hex(std::string s) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s = s.substr(2);
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size() || v > 0xffffffffull) return std::nullopt;
    return static_cast<std::uint32_t>(v);
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\"");
    const auto e = s.find_last_not_of(" \t\r\"");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "_name" -> "name", "name@8" -> "name", "_name@8" -> "name".
std::string undecorated(std::string s) {
    if (const auto at = s.rfind('@'); at != std::string::npos && at > 0 &&
                                      s.find_first_not_of("0123456789", at + 1) == std::string::npos &&
                                      at + 1 < s.size())
        s.resize(at);
    if (s.size() > 1 && s[0] == '_') s.erase(0, 1);
    return s;
}

std::string hex32(std::uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", v);
    return b;
}

struct PeFacts {
    std::uint32_t base = 0, size = 0;
};

PeFacts read_pe(const fs::path& image) {
    std::ifstream in(image, std::ios::binary);
    if (!in) throw ProfileImportError("cannot read image " + image.string());
    std::vector<char> head(4096);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    auto u32 = [&](std::size_t at) {
        if (at + 4 > n) throw ProfileImportError(image.string() + " is not a PE32 image");
        std::uint32_t v = 0;
        for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(head[at + i]);
        return v;
    };
    if (n < 0x40 || head[0] != 'M' || head[1] != 'Z')
        throw ProfileImportError(image.string() + " is not a PE image");
    const std::uint32_t pe = u32(0x3c);
    if (u32(pe) != 0x00004550) throw ProfileImportError(image.string() + " is not a PE image");
    const std::size_t opt = pe + 24;
    if ((u32(opt) & 0xffff) != 0x10b) throw ProfileImportError(image.string() + " is not a PE32 image");
    return {u32(opt + 28), u32(opt + 56)};
}

} // namespace

std::map<std::string, std::uint32_t> read_ld_map(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw ProfileImportError("cannot read map file " + file.string());
    std::map<std::string, std::uint32_t> out;
    for (std::string line; std::getline(in, line);) {
        // A symbol line: indentation, the address, spaces, one name (no '=': assignments; no spaces).
        if (line.empty() || (line[0] != ' ' && line[0] != '\t')) continue;
        std::istringstream words(line);
        std::string address, name, extra;
        if (!(words >> address >> name) || (words >> extra)) continue;
        const auto a = address.rfind("0x", 0) == 0 ? parse_hex(address) : std::nullopt;
        if (!a || name.find('=') != std::string::npos || name.find('(') != std::string::npos ||
            name[0] == '.' || name[0] == '*')
            continue;
        out.emplace(name, *a); // the first definition wins
    }
    return out;
}

std::map<std::string, std::uint32_t> read_symbol_csv(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw ProfileImportError("cannot read CSV file " + file.string());
    std::map<std::string, std::uint32_t> out;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (trim(line).empty()) continue;
        const auto comma = line.find(',');
        if (comma == std::string::npos)
            throw ProfileImportError(file.string() + ":" + std::to_string(number) + ": not name,address");
        const std::string name = trim(line.substr(0, comma));
        std::string rest = line.substr(comma + 1);
        if (const auto next = rest.find(','); next != std::string::npos) rest.resize(next);
        const auto a = parse_hex(trim(rest));
        if (!a) {
            if (number == 1) continue; // a header
            throw ProfileImportError(file.string() + ":" + std::to_string(number) + ": \"" + trim(rest) +
                                     "\" is not a hex address");
        }
        if (name.empty())
            throw ProfileImportError(file.string() + ":" + std::to_string(number) + ": no name");
        out[name] = *a;
    }
    return out;
}

ProfileImport import_profile(const ProfileImportRequest& request) {
    if (!request.map && !request.csv) throw ProfileImportError("give a --map file, a --csv file or both");
    std::ifstream tin(request.template_file);
    if (!tin) throw ProfileImportError("cannot read template " + request.template_file.string());
    ProfileImport out;
    try {
        out.profile = parse_json_bounded<ordered_json>(tin);
    } catch (const std::exception& e) {
        throw ProfileImportError(request.template_file.string() + ": not valid JSON: " + e.what());
    }
    if (out.profile.value("schema", "") != "refcheck-profile/1")
        throw ProfileImportError(request.template_file.string() +
                                 ": \"schema\" must be \"refcheck-profile/1\"");
    const PeFacts pe = read_pe(request.image);

    // Every symbol, by its name and by its undecorated name; the CSV's replace the map's.
    struct Source {
        std::uint32_t address;
        std::string from; // "map" or "CSV"
    };
    std::map<std::string, Source> exact, loose;
    auto add = [&](const std::map<std::string, std::uint32_t>& symbols, const std::string& from) {
        for (const auto& [name, address] : symbols) {
            for (auto* table : {&exact, &loose}) {
                const std::string key = table == &exact ? name : undecorated(name);
                auto it = table->find(key);
                if (it != table->end() && it->second.from != from && it->second.address != address &&
                    table == &exact)
                    out.notes.push_back(key + ": the " + from + "'s " + hex32(address) + " replaces the " +
                                        it->second.from + "'s " + hex32(it->second.address));
                if (it == table->end() || it->second.from != from) (*table)[key] = {address, from};
            }
        }
    };
    if (request.map) add(read_ld_map(*request.map), "map");
    if (request.csv) add(read_symbol_csv(*request.csv), "CSV");

    for (const char* section : {"routines", "data"}) {
        if (!out.profile.contains(section)) continue;
        ordered_json& entries = out.profile.at(section);
        if (!entries.is_array())
            throw ProfileImportError(request.template_file.string() + ": \"" + section +
                                     "\" must be an array of entries, not " + entries.type_name());
        for (std::size_t i = 0; i < entries.size(); ++i) {
            ordered_json& entry = entries[i];
            const auto where = [&] {
                return request.template_file.string() + ": " + section + "[" + std::to_string(i) + "]";
            };
            if (!entry.is_object() || !entry.contains("name") || !entry.at("name").is_string())
                throw ProfileImportError(where() + ": an entry needs a \"name\" string");
            const std::string name = entry.at("name").get<std::string>();
            if (entry.contains("address") && !entry.at("address").is_string() &&
                !entry.at("address").is_null())
                throw ProfileImportError(where() + " (" + name + "): \"address\" must be a hex string, not " +
                                         entry.at("address").dump());
            const auto given = entry.contains("address") && entry.at("address").is_string()
                                   ? entry.at("address").get<std::string>()
                                   : std::string();
            const Source* src = nullptr;
            if (auto e = exact.find(name); e != exact.end())
                src = &e->second;
            else if (auto l = loose.find(undecorated(name)); l != loose.end())
                src = &l->second;
            if (src == nullptr) {
                if (given.empty()) out.missing.push_back(name);
                continue;
            }
            const std::uint32_t a = src->address;
            if (a < pe.base || a - pe.base >= pe.size)
                throw ProfileImportError(name + ": the " + src->from + "'s address " + hex32(a) +
                                         " is outside " + request.image.filename().string() + " (" +
                                         hex32(pe.base) + " + " + hex32(pe.size) + ")");
            entry["address"] = hex32(a);
            out.filled.push_back(name);
        }
    }
    out.profile["image"] = request.image.filename().string();
    out.profile["image_sha256"] = sha256_file(request.image);
    out.profile["image_base"] = hex32(pe.base);
    return out;
}

} // namespace refcheck::harness
