#include "refcheck/harness/profile.hpp"
#include "refcheck/harness/json_bounded.hpp"

#include "refcheck/emu/types.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>

namespace refcheck::harness {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
    throw ProfileError(file.string() + ": " + what);
}

std::optional<std::uint32_t> parse_address(const json& j, const std::filesystem::path& file,
                                           const std::string& who) {
    if (!j.contains("address") || j.at("address").is_null()) return std::nullopt;
    const auto& a = j.at("address");
    if (a.is_number_unsigned()) {
        if (a.get<std::uint64_t>() > 0xffffffffULL)
            fail(file, who + ": address " + a.dump() + " is past 32 bits");
        return a.get<std::uint32_t>();
    }
    if (!a.is_string()) fail(file, who + ": address must be a hex string");
    const std::string s = a.get<std::string>();
    if (s.empty()) return std::nullopt;
    try {
        std::size_t used = 0;
        const unsigned long v = std::stoul(s, &used, 16);
        if (used != s.size() || v > 0xffffffffUL) throw std::invalid_argument(s);
        return static_cast<std::uint32_t>(v);
    } catch (const std::exception&) {
        fail(file, who + ": bad address \"" + s + "\"");
    }
}

// A count or offset of the profile ("size", "offset"): absent is 0; anything but a whole number from 0
// to 2^32-1 is refused. nlohmann's get<unsigned>() of a fraction or of a number past the type is a
// cast C++ leaves undefined (found by fuzz/profile_json: "size": 1e300), so the range is checked here.
std::uint32_t u32_field(const json& j, const char* key, const std::filesystem::path& file,
                        const std::string& who) {
    if (!j.contains(key)) return 0;
    const json& v = j.at(key);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= 0xffffffffULL) return v.get<std::uint32_t>();
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() == 0) return 0;
    fail(file, who + ": \"" + key + "\" must be a whole number from 0 to 4294967295, not " + v.dump());
}

} // namespace

std::uint32_t Profile::struct_size(const std::string& type) const {
    if (const auto s = struct_sizes.find(type); s != struct_sizes.end()) return s->second;
    const auto it = structs.find(type);
    if (it == structs.end()) fail(file, "no struct \"" + type + "\"");
    std::uint32_t size = 0;
    for (const auto& f : it->second) size = std::max(size, f.offset + f.size); // each ends by 2^20
    return size;
}

const ProfileRoutine& Profile::routine(const std::string& name) const {
    auto it = routines.find(name);
    if (it == routines.end()) fail(file, "no routine \"" + name + "\"");
    return it->second;
}

std::uint32_t Profile::address_of(const std::string& name) const {
    if (auto it = routines.find(name); it != routines.end() && it->second.address) return *it->second.address;
    if (auto it = data.find(name); it != data.end() && it->second.address) return *it->second.address;
    fail(file, "no address for \"" + name + "\"");
}

std::uint32_t Profile::offset_of(const std::string& type, const std::string& field) const {
    auto it = structs.find(type);
    if (it != structs.end())
        for (const auto& f : it->second)
            if (f.name == field) return f.offset;
    fail(file, "no field \"" + field + "\" in struct \"" + type + "\"");
}

std::vector<std::string> Profile::missing(const std::vector<std::string>& needed) const {
    std::vector<std::string> out;
    for (const auto& n : needed) {
        auto r = routines.find(n);
        auto d = data.find(n);
        const bool ok = (r != routines.end() && r->second.address) || (d != data.end() && d->second.address);
        if (!ok) out.push_back(n);
    }
    return out;
}

std::vector<std::string> Profile::needed_by_boot() const {
    if (boot_until.empty()) return {};
    return {boot_until};
}

std::string profile_image_mismatch(const Profile& profile, const std::filesystem::path& profile_shown,
                                   const std::filesystem::path& image, const std::string& image_sha256) {
    if (profile.image_sha256.empty() || profile.image_sha256 == image_sha256) return {};
    return "profile " + profile_shown.string() + " belongs to another image: it is the profile of " +
           (profile.image.empty() ? std::string("the image") : profile.image) + " with SHA-256 " +
           profile.image_sha256 + ", but " + image.string() + " has SHA-256 " + image_sha256 +
           " (regenerate the profile for this image, or run the image it was made for)";
}

std::string profile_data_outside(const Profile& profile, const std::filesystem::path& profile_shown,
                                 const std::filesystem::path& image, std::uint32_t image_base,
                                 std::uint32_t image_size) {
    const std::uint64_t end = std::uint64_t{image_base} + image_size;
    for (const auto& [name, d] : profile.data) {
        if (!d.address) continue;
        if (*d.address >= image_base && std::uint64_t{*d.address} + d.size <= end) continue;
        return "profile " + profile_shown.string() + " gives data \"" + name + "\" " +
               std::to_string(d.size) + " bytes at " + emu::hex(*d.address) + ", which is not inside " +
               image.string() + " (" + emu::hex(image_base) + " to " +
               emu::hex(static_cast<std::uint32_t>(end - 1)) +
               "): a profile's data are the image's globals (check its address and size)";
    }
    return {};
}

std::string profile_base_mismatch(const Profile& profile, const std::filesystem::path& profile_shown,
                                  const std::filesystem::path& image, std::uint32_t preferred_base) {
    if (profile.image_base == 0 || profile.image_base == preferred_base) return {};
    return "profile " + profile_shown.string() + " gives image_base " + emu::hex(profile.image_base) +
           ", but " + image.string() + "'s PE header gives " + emu::hex(preferred_base) +
           ": its addresses are for an image at another base (regenerate the profile for this image)";
}

Profile load_profile(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) fail(file, "cannot read the profile");
    json j;
    try {
        j = parse_json_bounded<json>(in);
    } catch (const std::exception& e) {
        fail(file, std::string("not valid JSON: ") + e.what());
    }
    // A JSON value of another type (a profile that is `true`, an "image" that is a number) is a
    // ProfileError like the rest, not nlohmann's type_error (found by fuzz/profile_json).
    if (!j.is_object()) fail(file, "a profile is a JSON object");
    Profile p;
    try {
        if (j.value("schema", "") != "refcheck-profile/1")
            fail(file, "\"schema\" must be \"refcheck-profile/1\"");
        p.file = file;
        p.image = j.value("image", "");
        p.image_sha256 = j.value("image_sha256", "");
        for (char& ch : p.image_sha256) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (!p.image_sha256.empty() &&
            (p.image_sha256.size() != 64 ||
             p.image_sha256.find_first_not_of("0123456789abcdef") != std::string::npos))
            fail(file, "\"image_sha256\" must be 64 hex digits (or empty)");
        if (auto base = parse_address(json{{"address", j.value("image_base", json())}}, file, "image_base"))
            p.image_base = *base;
        if (j.contains("boot")) {
            const json& boot = j.at("boot");
            if (!boot.is_object()) fail(file, "\"boot\" must be an object: {\"entry_until\": ROUTINE}");
            for (const auto& [k, v] : boot.items())
                if (k != "entry_until" && k != "notes") fail(file, "\"boot\": unknown key \"" + k + "\"");
            p.boot_until = boot.value("entry_until", "");
            if (p.boot_until.empty())
                fail(file, "\"boot\" needs \"entry_until\": the routine start-up stops at");
        }
        for (const auto& r : j.value("routines", json::array())) {
            ProfileRoutine pr;
            pr.name = r.at("name").get<std::string>();
            pr.address = parse_address(r, file, pr.name);
            pr.convention = r.value("convention", "watcall");
            pr.role = r.value("role", "");
            pr.returns = r.value("returns", "");
            for (const auto& a : r.value("args", json::array())) {
                pr.args.push_back({a.value("reg", ""), a.value("type", ""), a.value("name", "")});
                const std::string& arg = pr.args.back().name;
                for (std::size_t k = 0; !arg.empty() && k + 1 < pr.args.size(); ++k)
                    if (pr.args[k].name == arg)
                        fail(file,
                             pr.name + ": \"args\" name " + arg + " twice: an argument is found by its name");
            }
            // A routine listed twice: the later entry silently replaced the earlier, and which of
            // the two addresses a run called depended on the order of the file.
            if (!p.routines.emplace(pr.name, pr).second)
                fail(file, "\"routines\" lists " + pr.name + " twice: a routine has one entry");
        }
        for (const auto& d : j.value("data", json::array())) {
            ProfileData pd;
            pd.name = d.at("name").get<std::string>();
            pd.address = parse_address(d, file, pd.name);
            pd.type = d.value("type", "");
            pd.size = u32_field(d, "size", file, pd.name);
            if (d.contains("values")) {
                const json& values = d.at("values");
                if (!values.is_object())
                    fail(file, pd.name + ": \"values\" must be an object of names and numbers");
                std::map<std::uint32_t, std::string> named;
                for (const auto& [name, v] : values.items()) {
                    if (name.empty()) fail(file, pd.name + ": \"values\" has an empty name");
                    pd.values[name] = u32_field(values, name.c_str(), file, pd.name + ".values");
                    // One number, one name: a case's reason compared by number would match another
                    // check's refusal (an image without the table checks, refusing at a record
                    // check, proved valid.table with objects_table given the record check's number).
                    if (const auto [at, fresh] = named.emplace(pd.values[name], name); !fresh)
                        fail(file, pd.name + ": \"values\" gives " + at->second + " and " + name +
                                       " the same number, " + std::to_string(at->first) +
                                       ": a value must say which it is");
                }
            }
            if (!p.data.emplace(pd.name, pd).second)
                fail(file, "\"data\" lists " + pd.name + " twice: a global has one entry");
        }
        const json structs = j.value("structs", json::object());
        for (const auto& [name, fields] : structs.items()) {
            auto& out = p.structs[name];
            if (fields.is_object() && fields.contains("size")) {
                p.struct_sizes[name] = u32_field(fields, "size", file, name);
                // It sizes host buffers and guest allocations (GuestStruct, the face vertices' copy).
                if (p.struct_sizes[name] > Profile::kMaxStructBytes)
                    fail(file, name + ": \"size\" is at most " + std::to_string(Profile::kMaxStructBytes) +
                                   " bytes (no struct of the engine is that large), not " +
                                   std::to_string(p.struct_sizes[name]));
            }
            const json& list = fields.is_object() && fields.contains("fields") ? fields.at("fields") : fields;
            const auto size = p.struct_sizes.find(name);
            for (const auto& f : list) {
                std::string field = f.at("name").get<std::string>();
                const std::string who = name + "." + field;
                const std::uint32_t offset = u32_field(f, "offset", file, who),
                                    bytes = u32_field(f, "size", file, who);
                // The harness reads and writes fields at these offsets in host buffers of the
                // struct's size: a field of no bytes, or one ending past the struct (a wrap of
                // offset + size, found by an audit, wrote out of bounds), is refused here. A trailing
                // array ("type" ending "[]", its size one element's) starts at the struct's end.
                if (bytes == 0) fail(file, who + ": \"size\" must be at least 1 byte");
                const std::uint64_t end = std::uint64_t{offset} + bytes;
                if (end > Profile::kMaxStructBytes)
                    fail(file, who + ": the field ends at byte " + std::to_string(end) + ", past " +
                                   std::to_string(Profile::kMaxStructBytes) +
                                   " (no struct of the engine is that large)");
                const bool tail = f.value("type", "").ends_with("[]") && size != p.struct_sizes.end() &&
                                  offset == size->second;
                if (size != p.struct_sizes.end() && end > size->second && !tail)
                    fail(file, who + ": the field ends at byte " + std::to_string(end) +
                                   ", past the struct's \"size\", " + std::to_string(size->second));
                for (const auto& earlier : out)
                    if (earlier.name == field) fail(file, who + ": the struct lists this field twice");
                out.push_back({std::move(field), offset, bytes});
            }
        }
    } catch (const json::exception& e) {
        fail(file, std::string("malformed: ") + e.what());
    }
    if (!p.boot_until.empty() && !p.routines.count(p.boot_until))
        fail(file, "\"boot\": \"entry_until\" names \"" + p.boot_until +
                       "\", which is not a routine of the profile");
    return p;
}

} // namespace refcheck::harness
