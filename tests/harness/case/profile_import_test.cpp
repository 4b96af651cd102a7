// refcheck profile import: the real-image template filled from the stand-in's GNU ld map gives
// the addresses profilegen read from its export table (two independent sources), a CSV wins over
// the map, the image's name, base and SHA-256 go in, and an address outside the image is an error.
#include "refcheck/harness/profile_import.hpp"

#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    return fs::temp_directory_path() / ("refcheck-import-" + std::to_string(::getpid()) + "-" + name);
}

ProfileImportRequest standin_request() {
    ProfileImportRequest r;
    r.template_file = REFCHECK_TEMPLATE;
    r.image = REFCHECK_STANDIN_EXE;
    r.map = fs::path(REFCHECK_STANDIN_MAP);
    return r;
}

} // namespace

TEST(ProfileImport, TheStandInsMapGivesTheAddressesOfItsExports) {
    const ProfileImport imported = import_profile(standin_request());
    // The template's boot routine (main, where a C runtime hands over) is all its map lacks: the
    // first stand-in has no runtime, its entry point is its own.
    EXPECT_EQ(imported.missing, std::vector<std::string>{"main"});
    const fs::path file = scratch("standin.profile.json");
    std::ofstream(file) << imported.profile.dump(1) << "\n";
    const Profile got = load_profile(file);
    const Profile want = load_profile(REFCHECK_STANDIN_PROFILE);
    fs::remove(file);
    EXPECT_EQ(got.boot_until, "main");
    ASSERT_FALSE(got.routines.empty());
    for (const auto& [name, r] : got.routines) {
        if (name == "main") continue;
        ASSERT_TRUE(r.address) << name;
        EXPECT_EQ(*r.address, want.address_of(name)) << name;
    }
    for (const auto& [name, d] : got.data) {
        ASSERT_TRUE(d.address) << name;
        EXPECT_EQ(*d.address, want.address_of(name)) << name;
    }
    EXPECT_EQ(got.image, "standin.exe");
    EXPECT_EQ(got.image_base, 0x00400000u);
    EXPECT_EQ(got.image_sha256, sha256_file(REFCHECK_STANDIN_EXE));
    EXPECT_EQ(got.image_sha256, want.image_sha256);
}

TEST(ProfileImport, ACsvWinsOverTheMapAndWhatNeitherNamesIsListed) {
    const fs::path csv = scratch("names.csv");
    const std::uint32_t moved = load_profile(REFCHECK_STANDIN_PROFILE).address_of("draw_3d_object_") + 0x10;
    char line[64];
    std::snprintf(line, sizeof line, "\"draw_3d_object_\",%08x\n", moved);
    std::ofstream(csv) << "Name,Address\n" << line;
    ProfileImportRequest r = standin_request();
    r.csv = csv;
    const ProfileImport a = import_profile(r);
    std::string draw;
    for (const auto& e : a.profile.at("routines"))
        if (e.at("name") == "draw_3d_object_") draw = e.at("address").get<std::string>();
    char want[16];
    std::snprintf(want, sizeof want, "0x%08x", moved);
    EXPECT_EQ(draw, want);
    ASSERT_EQ(a.notes.size(), 1u);
    EXPECT_NE(a.notes[0].find("draw_3d_object_: the CSV's"), std::string::npos) << a.notes[0];
    // The CSV alone names one routine: every other is listed missing.
    r.map.reset();
    const ProfileImport b = import_profile(r);
    EXPECT_EQ(b.filled, std::vector<std::string>{"draw_3d_object_"});
    EXPECT_FALSE(b.missing.empty());
    // An address outside the image is an error naming the symbol.
    std::ofstream(csv) << "draw_3d_object_,0x90000000\n";
    try {
        import_profile(r);
        FAIL() << "took an address outside the image";
    } catch (const ProfileImportError& e) {
        EXPECT_NE(std::string(e.what()).find("draw_3d_object_"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("outside standin.exe"), std::string::npos) << e.what();
    }
    fs::remove(csv);
}

TEST(ProfileImport, MapSymbolLinesOnly) {
    const fs::path map = scratch("x.map");
    std::ofstream(map) << ".text           0x00401000      0x400\n"
                       << " .text          0x00401000       0x10 /tmp/a.o\n"
                       << "                0x00401000                guest_entry@0\n"
                       << "                0x00401280                say\n"
                       << "                0x00400000                        __image_base__ = 0x400000\n"
                       << "                0x004012f0        0x4 LONG 0xffffffffffffffff\n";
    const auto symbols = read_ld_map(map);
    fs::remove(map);
    EXPECT_EQ(symbols.size(), 2u);
    EXPECT_EQ(symbols.at("say"), 0x00401280u);
    EXPECT_EQ(symbols.at("guest_entry@0"), 0x00401000u);
}

// A template whose entries are not what a profile holds is an error naming the template, the
// section and the entry, never a bare JSON library message (it was "cannot use at() with number").
TEST(ProfileImport, AMalformedTemplateIsAnErrorNamingFileAndEntry) {
    const std::vector<std::pair<std::string, std::string>> templates = {
        {R"({"schema":"refcheck-profile/1","routines":5})",
         "\"routines\" must be an array of entries, not number"},
        {R"({"schema":"refcheck-profile/1","routines":[{"name":"a"},{"name":5}]})",
         "routines[1]: an entry needs a \"name\" string"},
        {R"({"schema":"refcheck-profile/1","data":[7]})", "data[0]: an entry needs a \"name\" string"},
        {R"({"schema":"refcheck-profile/1","data":[{"name":"x","address":4096}]})",
         "data[0] (x): \"address\" must be a hex string, not 4096"},
    };
    ProfileImportRequest r = standin_request();
    r.template_file = scratch("bad.template.json");
    for (const auto& [text, want] : templates) {
        std::ofstream(r.template_file) << text;
        try {
            import_profile(r);
            ADD_FAILURE() << "took " << text;
        } catch (const ProfileImportError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(r.template_file.string() + ": "), std::string::npos) << what;
            EXPECT_NE(what.find(want), std::string::npos) << what;
        }
    }
    fs::remove(r.template_file);
}
