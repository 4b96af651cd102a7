#include "refcheck/profilegen/profile.hpp"

#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

namespace refcheck::profilegen {
namespace {

using nlohmann::ordered_json;

constexpr std::array<std::string_view, 17> kRoles = {
    "initialiser",  "constructor", "draw_entry",      "face_routine", "raster_routine", "winding",
    "attach",       "utility",     "shadow_draw",     "shadow_face",  "shadow_plane",   "mobile_op",
    "mobile_queue", "scene_draw",  "terrain_sampler", "program_walk", "control_flow"};
constexpr std::array<std::string_view, 4> kReturns = {"u32", "i32", "void", "instance*"};
constexpr std::array<std::string_view, 4> kWatcallRegisters = {"eax", "edx", "ebx", "ecx"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& set, std::string_view value) {
    for (std::string_view s : set)
        if (s == value) return true;
    return false;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1)
        parts.push_back(text.substr(start, at - start));
    parts.push_back(text.substr(start));
    return parts;
}

std::string hex32(std::uint32_t value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%08x", value);
    return buffer;
}

// "reg:type:name,..." in watcall order: eax, edx, ebx, ecx, then any number of stack arguments.
// Arguments of a watcall routine (EAX, EDX, EBX, ECX, then the stack) or of a cdecl one (all on
// the stack), in the order the convention passes them.
ordered_json parse_args(const std::string& routine, const std::string& text, bool cdecl) {
    ordered_json args = ordered_json::array();
    if (text.empty()) return args;
    std::size_t position = 0;
    for (const std::string& arg : split(text, ',')) {
        std::vector<std::string> parts = split(arg, ':');
        if (parts.size() != 3 || parts[1].empty() || parts[2].empty())
            throw ProfileError(routine + ": argument \"" + arg + "\" is not reg:type:name");
        bool in_order = !cdecl && position < kWatcallRegisters.size()
                            ? parts[0] == kWatcallRegisters[position]
                            : parts[0] == "stack";
        if (!in_order)
            throw ProfileError(routine + ": argument " + std::to_string(position) + " is in " + parts[0] +
                               ", not where watcall passes it");
        args.push_back({{"reg", parts[0]}, {"type", parts[1]}, {"name", parts[2]}});
        ++position;
    }
    return args;
}

ordered_json routine_entry(const Descriptor& d, std::uint32_t address) {
    std::vector<std::string> parts = split(d.text, ';');
    if (parts.size() != 4)
        throw ProfileError(d.name + ": routine descriptor is not convention;role;returns;args");
    if (parts[0] != "watcall" && parts[0] != "cdecl")
        throw ProfileError(d.name + ": unknown convention " + parts[0]);
    if (!one_of(kRoles, parts[1])) throw ProfileError(d.name + ": unknown role " + parts[1]);
    if (!one_of(kReturns, parts[2])) throw ProfileError(d.name + ": unknown return type " + parts[2]);
    return {{"name", d.name},
            {"address", hex32(address)},
            {"convention", parts[0]},
            {"role", parts[1]},
            {"args", parse_args(d.name, parts[3], parts[0] == "cdecl")},
            {"returns", parts[2]}};
}

// A global's entry: "type", or "type;name=N,name=N" for one whose values have names ("values", in
// name order).
ordered_json data_entry(const Descriptor& d, std::uint32_t address) {
    const std::size_t semicolon = d.text.find(';');
    ordered_json entry = {{"name", d.name},
                          {"address", hex32(address)},
                          {"type", d.text.substr(0, semicolon)},
                          {"size", d.size}};
    if (semicolon == std::string::npos) return entry;
    std::map<std::string, std::uint32_t> values;
    for (const std::string& pair : split(d.text.substr(semicolon + 1), ',')) {
        const std::size_t equals = pair.find('=');
        const std::string name = pair.substr(0, equals),
                          number = equals == std::string::npos ? "" : pair.substr(equals + 1);
        if (name.empty() || number.empty() || number.size() > 9 ||
            number.find_first_not_of("0123456789") != std::string::npos)
            throw ProfileError(d.name + ": value \"" + pair + "\" is not name=NUMBER");
        if (!values.emplace(name, static_cast<std::uint32_t>(std::stoul(number))).second)
            throw ProfileError(d.name + ": value " + name + " is named twice");
    }
    entry["values"] = values;
    return entry;
}

ordered_json structs_entry(const std::vector<Descriptor>& descriptors) {
    std::map<std::string, std::uint32_t> sizes;
    std::map<std::string, std::map<std::uint32_t, ordered_json>> fields; // struct -> offset -> field
    for (const Descriptor& d : descriptors)
        if (d.kind == "struct" && !sizes.emplace(d.name, d.size).second)
            throw ProfileError("struct " + d.name + " is described twice");
    for (const Descriptor& d : descriptors) {
        if (d.kind != "field") continue;
        std::size_t dot = d.name.find('.');
        std::string tag = d.name.substr(0, dot);
        if (dot == std::string::npos || !sizes.contains(tag))
            throw ProfileError("field " + d.name + " belongs to no described struct");
        ordered_json field = {
            {"name", d.name.substr(dot + 1)}, {"offset", d.value}, {"type", d.text}, {"size", d.size}};
        if (!fields[tag].emplace(d.value, field).second)
            throw ProfileError("field " + d.name + " shares its offset with another field");
    }
    ordered_json out = ordered_json::object();
    for (const auto& [tag, size] : sizes) {
        ordered_json list = ordered_json::array();
        for (const auto& [offset, field] : fields[tag]) list.push_back(field);
        out[tag] = {{"size", size}, {"fields", list}};
    }
    return out;
}

} // namespace

nlohmann::ordered_json build_profile(const ImageSymbols& image, const std::vector<Descriptor>& descriptors) {
    std::map<std::string, ordered_json> routines, data;
    for (const Descriptor& d : descriptors) {
        if (d.kind != "routine" && d.kind != "data") {
            if (d.kind != "struct" && d.kind != "field")
                throw ProfileError(d.name + ": unknown descriptor kind " + d.kind);
            continue;
        }
        auto exported = image.exports.find(d.name);
        if (exported == image.exports.end())
            throw ProfileError(d.kind + " " + d.name + " is described but not exported");
        if (routines.contains(d.name) || data.contains(d.name))
            throw ProfileError(d.name + " is described twice");
        std::uint32_t address = image.image_base + exported->second;
        if (d.kind == "routine")
            routines.emplace(d.name, routine_entry(d, address));
        else
            data.emplace(d.name, data_entry(d, address));
    }
    for (const auto& [name, rva] : image.exports)
        if (!routines.contains(name) && !data.contains(name))
            throw ProfileError("export " + name + " has no descriptor");
    ordered_json profile = {{"schema", kProfileSchema},
                            {"image", image.image_name},
                            {"image_sha256", image.image_sha256},
                            {"image_base", hex32(image.image_base)}};
    profile["routines"] = ordered_json::array();
    for (auto& [name, entry] : routines) profile["routines"].push_back(entry);
    profile["data"] = ordered_json::array();
    for (auto& [name, entry] : data) profile["data"].push_back(entry);
    profile["structs"] = structs_entry(descriptors);
    return profile;
}

} // namespace refcheck::profilegen
