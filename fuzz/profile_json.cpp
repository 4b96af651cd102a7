// Image profiles (harness load_profile, schema refcheck-profile/1): any bytes give a Profile or a
// ProfileError naming the file, nothing else (load_profile's contract; the CLI prints it, exit 2).
#include "fuzz_support.hpp"
#include "refcheck/harness/profile.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = refcheck::fuzz::scratch() / "fuzz.profile.json";
    refcheck::fuzz::write_file(file, {data, size});
    try {
        const refcheck::harness::Profile p = refcheck::harness::load_profile(file);
        std::vector<std::string> names;
        for (const auto& [name, r] : p.routines) names.push_back(name);
        for (const auto& [name, d] : p.data) names.push_back(name);
        (void)p.missing(names);
        (void)refcheck::harness::profile_image_mismatch(p, "fuzz.profile.json", "image.exe",
                                                        std::string(64, 'a'));
        for (const auto& [type, fields] : p.structs)
            for (const auto& f : fields) (void)p.offset_of(type, f.name);
    } catch (const refcheck::harness::ProfileError&) {}
    return 0;
}
