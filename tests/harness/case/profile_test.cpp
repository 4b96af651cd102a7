// refcheck-profile/1's counts and offsets ("size", "offset"): a whole number from 0 to 2^32-1 is read,
// anything else (a fraction, a number past 32 bits, a negative one, a string) is a ProfileError naming
// the file, the entry and the key, never a cast C++ leaves undefined (fuzz/profile_json found
// "size": 1e300 reaching nlohmann's get<unsigned>()).
#include "refcheck/harness/profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

Profile load_text(const std::string& text) {
    const fs::path file =
        fs::temp_directory_path() / ("refcheck-profile-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file) << text;
    struct Remove {
        fs::path f;
        ~Remove() { fs::remove(f); }
    } remove{file};
    return load_profile(file);
}

std::string with_data_size(const std::string& size) {
    return R"({"schema": "refcheck-profile/1", "data": [{"name": "table_", "size": )" + size + "}]}";
}

std::string with_field_offset(const std::string& offset) {
    return R"({"schema": "refcheck-profile/1", "structs": {"Obj": [{"name": "count", "size": 4, "offset": )" +
           offset + "}]}}";
}

std::string refusal(const std::string& text) {
    try {
        load_text(text);
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "(read without an error)";
}

} // namespace

TEST(Profile, CountsAndOffsetsInRangeAreRead) {
    EXPECT_EQ(load_text(with_data_size("4294967295")).data.at("table_").size, 4294967295u);
    EXPECT_EQ(load_text(with_data_size("0")).data.at("table_").size, 0u);
    EXPECT_EQ(load_text(with_field_offset("12")).offset_of("Obj", "count"), 12u);
    const Profile absent = load_text(R"({"schema": "refcheck-profile/1", "data": [{"name": "t"}]})");
    EXPECT_EQ(absent.data.at("t").size, 0u);
}

TEST(Profile, CountsAndOffsetsOutOfRangeOrNotWholeAreRefusedByName) {
    for (const std::string bad : {"1e300", "-1e300", "1.5", "4294967296", "-1", "\"12\"", "true"}) {
        const std::string data = refusal(with_data_size(bad));
        EXPECT_NE(data.find("table_: \"size\" must be a whole number"), std::string::npos)
            << bad << ": " << data;
        const std::string field = refusal(with_field_offset(bad));
        EXPECT_NE(field.find("Obj.count: \"offset\" must be a whole number"), std::string::npos)
            << bad << ": " << field;
    }
}

// A global's named values ("values"): how a hostile case names initialise_error's reason without
// the image's numbers. Each is a whole number like any count; a name must not be empty.
TEST(Profile, AGlobalsNamedValuesAreReadAndBadOnesRefusedByName) {
    const Profile p = load_text(
        R"({"schema": "refcheck-profile/1", "data": [{"name": "err", "values": {"open": 1, "table": 4294967295}}]})");
    EXPECT_EQ(p.data.at("err").values,
              (std::map<std::string, std::uint32_t>{{"open", 1}, {"table", 4294967295u}}));
    // One number, one name: objects_table given the record check's number matched the record
    // check's refusal on an image without the table checks, and proved valid.table.
    EXPECT_NE(
        refusal(
            R"({"schema": "refcheck-profile/1", "data": [{"name": "err", "values": {"open": 3, "table": 3}}]})")
            .find("gives open and table the same number, 3"),
        std::string::npos);
    for (const std::string bad : {R"({"open": -1})", R"({"open": "1"})", R"({"": 1})", "[1]", "7"}) {
        const std::string error =
            refusal(R"({"schema": "refcheck-profile/1", "data": [{"name": "err", "values": )" + bad + "}]}");
        EXPECT_NE(error.find("err"), std::string::npos) << bad << ": " << error;
        EXPECT_NE(error.find("values"), std::string::npos) << bad << ": " << error;
    }
}

// A field the harness reads or writes at its offset in a host buffer of the struct's size: one of no
// bytes, one whose end passes 2^20 (offset 0xfffffff0 with size 0x20 wrapped to 16 and wrote out of
// bounds), or one ending past the struct's "size" is refused by name; a trailing array (its size one
// element's) may start at the struct's end. The struct's size is its "size", else its fields' end.
TEST(Profile, StructFieldsMustLieWithinTheStruct) {
    auto structs = [](const std::string& body) {
        return R"({"schema": "refcheck-profile/1", "structs": {"Obj": )" + body + "}}";
    };
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"([{"name": "n", "offset": 5, "size": 0}])", "Obj.n: \"size\" must be at least 1 byte"},
        {R"([{"name": "n", "offset": 4294967280, "size": 32}])", "Obj.n: the field ends at byte 4294967312"},
        {R"([{"name": "n", "offset": 1048573, "size": 4}])", "Obj.n: the field ends at byte 1048577"},
        {R"({"size": 8, "fields": [{"name": "n", "offset": 6, "size": 4}]})",
         "past the struct's \"size\", 8"},
        {R"({"size": 8, "fields": [{"name": "n", "offset": 8, "size": 4, "type": "u32"}]})",
         "past the struct's"},
        // The struct's own size sizes host buffers and guest allocations (4 GiB: std::bad_alloc).
        {R"({"size": 4294967295, "fields": [{"name": "n", "offset": 0, "size": 4}]})",
         "Obj: \"size\" is at most 1048576 bytes"},
    };
    for (const auto& [body, why] : bad) {
        const std::string error = refusal(structs(body));
        EXPECT_NE(error.find(why), std::string::npos) << body << ": " << error;
    }
    const Profile tail = load_text(structs(R"({"size": 8, "fields": [{"name": "n", "offset": 4, "size": 4},
                                                    {"name": "list", "offset": 8, "size": 4, "type": "u32[]"}]})"));
    EXPECT_EQ(tail.struct_size("Obj"), 8u);
    EXPECT_EQ(load_text(structs(R"([{"name": "n", "offset": 4, "size": 4}])")).struct_size("Obj"), 8u);
    EXPECT_EQ(load_text(structs(R"({"size": 32, "fields": [{"name": "n", "offset": 4, "size": 4}]})"))
                  .struct_size("Obj"),
              32u);
}

// A routine, a global or a struct field listed twice: the later entry replaced the earlier (or, for a
// field, the earlier one was read and the later ignored), so which address or offset a run used
// depended on the order of the file. Each is refused by name.
TEST(Profile, AnEntryListedTwiceIsRefusedByName) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"({"schema": "refcheck-profile/1", "routines": [{"name": "draw_", "address": "0x401000"},
                                                          {"name": "draw_", "address": "0x402000"}]})",
         "\"routines\" lists draw_ twice"},
        {R"({"schema": "refcheck-profile/1", "data": [{"name": "table_", "address": "0x500000"},
                                                      {"name": "table_", "address": "0x500100"}]})",
         "\"data\" lists table_ twice"},
        {R"({"schema": "refcheck-profile/1", "structs": {"Obj": [{"name": "n", "offset": 0, "size": 4},
                                                                 {"name": "n", "offset": 4, "size": 4}]}})",
         "Obj.n: the struct lists this field twice"},
        {R"({"schema": "refcheck-profile/1", "routines": [{"name": "draw_", "address": "0x401000",
             "args": [{"reg": "eax", "name": "x"}, {"reg": "edx", "name": "x"}]}]})",
         "draw_: \"args\" name x twice"},
    };
    for (const auto& [text, why] : bad) {
        const std::string error = refusal(text);
        EXPECT_NE(error.find(why), std::string::npos) << text << ": " << error;
    }
    // A struct, or a global's named value, given twice is a key twice in one JSON object: nlohmann
    // kept the later, so it was refused by no check of the profile's own.
    for (
        const std::string text :
        {std::string(
             R"({"schema": "refcheck-profile/1", "structs": {"Obj": [{"name": "n", "offset": 0, "size": 4}],
                                                                 "Obj": [{"name": "n", "offset": 4, "size": 4}]}})"),
         std::string(
             R"({"schema": "refcheck-profile/1", "data": [{"name": "err", "values": {"open": 1, "open": 2}}]})")}) {
        const std::string error = refusal(text);
        EXPECT_NE(error.find("twice"), std::string::npos) << text << ": " << error;
    }
    const Profile once = load_text(
        R"({"schema": "refcheck-profile/1", "routines": [{"name": "draw_", "address": "0x401000"},
                                                          {"name": "clear_", "address": "0x402000"}]})");
    EXPECT_EQ(once.routines.size(), 2u);
}
