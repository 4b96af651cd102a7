// An image profile: the routine addresses, conventions, argument layouts and roles of one image
// (refcheck-profile/1). The stand-in's profile is written by its build from its own symbols; a user
// who owns the real image fills in profiles/real-image.template.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {

struct ProfileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ProfileArg {
    std::string reg; // "eax", "edx", "ebx", "ecx" or "stack"
    std::string type;
    std::string name;
};

struct ProfileRoutine {
    std::string name;
    std::optional<std::uint32_t> address; // empty in a template until the user fills it in
    std::string convention;               // cdecl, stdcall, fastcall, watcall
    std::string role;
    std::vector<ProfileArg> args;
    std::string returns;
};

struct ProfileData {
    std::string name;
    std::optional<std::uint32_t> address;
    std::string type;
    std::uint32_t size = 0;
    // What the global holds when it means a name ("values": {"objects_open": 1, ...}): how a case
    // names a value of the image's (initialise_error's reasons) without knowing the image's numbers.
    std::map<std::string, std::uint32_t> values;
};

struct ProfileField {
    std::string name;
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
};

struct Profile {
    std::filesystem::path file;
    std::string image;
    std::string image_sha256; // the image this profile describes; empty: not tied to one (a template)
    std::uint32_t image_base = 0;
    // Boot mode ("boot": {"entry_until": ROUTINE}): before a case calls any routine, the image's
    // entry point runs its C runtime's start-up until it reaches ROUTINE (a routine of the profile:
    // where the CRT calls main or WinMain), so the runtime's state is real. Empty: the cases call
    // the initialisers directly (the first stand-in has no runtime to start).
    std::string boot_until;
    std::map<std::string, ProfileRoutine> routines;
    std::map<std::string, ProfileData> data;
    std::map<std::string, std::vector<ProfileField>> structs;
    std::map<std::string, std::uint32_t> struct_sizes; // a struct's "size", where its entry gives one
    // Every field has at least one byte and ends by this many (and by the struct's "size", a
    // trailing array aside): offsets and sizes are checked when the profile is read.
    static constexpr std::uint32_t kMaxStructBytes = 1u << 20;
    // The struct's size, the stride of an array of it: its "size", else where its last field ends.
    std::uint32_t struct_size(const std::string& type) const; // throws ProfileError

    const ProfileRoutine& routine(const std::string& name) const; // throws ProfileError
    std::uint32_t address_of(const std::string& name) const;      // routine or data; throws
    std::uint32_t offset_of(const std::string& type, const std::string& field) const;
    // Names from `needed` that the profile lacks or leaves without an address.
    std::vector<std::string> missing(const std::vector<std::string>& needed) const;
    // What every case on this image needs besides its family's names: the boot routine, if any.
    std::vector<std::string> needed_by_boot() const;
};

Profile load_profile(const std::filesystem::path& file); // throws ProfileError

// Empty when the profile names no image hash or names the image's; otherwise the problem, naming
// both files (as given: reports pass file names) and both hashes.
std::string profile_image_mismatch(const Profile& profile, const std::filesystem::path& profile_shown,
                                   const std::filesystem::path& image_shown, const std::string& image_sha256);

// Empty when the profile gives no image_base or the image's own (its PE header's ImageBase, where
// the image loads and where the profile's addresses are); otherwise the problem, naming both. A
// profile whose base disagreed was used as it stood by `run` and moved by `call`.
std::string profile_base_mismatch(const Profile& profile, const std::filesystem::path& profile_shown,
                                  const std::filesystem::path& image_shown, std::uint32_t preferred_base);

// Empty when every data entry with an address lies inside the image's mapping [base, base +
// SizeOfImage); otherwise the first that does not, named with the profile and the image. A profile's
// data are the image's globals: a size of 4294967295 (a typo, a hostile profile) had the harness
// allocate 4 GiB for one framebuffer before the guest write failed.
std::string profile_data_outside(const Profile& profile, const std::filesystem::path& profile_shown,
                                 const std::filesystem::path& image_shown, std::uint32_t image_base,
                                 std::uint32_t image_size);

} // namespace refcheck::harness
