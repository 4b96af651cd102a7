// Invalid data (spec section 18 and the decoder's checks): a table of malformed inputs, each with
// the exact error it must give — archive, record and byte offset — and never a crash.
#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "archive_builder.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/program.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace refcheck::reimpl {
namespace {

using namespace testing;

struct Case {
    std::string name;
    std::function<void()> run;
    std::string expected;
    // The kind of check it is (compared with the original's reason by the hostile cases).
    Check check = Check::content;
};

void load(const Bytes& models, const Bytes* texture_bytes = nullptr) {
    const ModelArchive archive = ModelArchive::parse(models);
    std::optional<TextureArchive> textures;
    if (texture_bytes) textures = TextureArchive::parse(*texture_bytes);
    for (std::uint32_t i = 0; i < archive.count(); ++i) {
        if (archive.populated(i)) decode_program(archive, i, textures ? &*textures : nullptr);
    }
}

RecordSpec with_program(Bytes program) {
    RecordSpec r;
    r.vertices = {s16_vertex(0, 0, 0), s16_vertex(1, 0, 0), s16_vertex(0, 1, 0)};
    r.normals = std::vector<std::array<std::int8_t, 3>>{{0, 0, 127}, {0, 127, 0}};
    r.program = std::move(program);
    return r;
}

// A program case: the error is at program offset `at` of record 0.
Case program_case(std::string name, RecordSpec r, std::uint32_t at, const std::string& detail,
                  const std::optional<Bytes>& textures = std::nullopt) {
    const BuiltArchive built = build_model_archive({r});
    const std::uint32_t base = built.records[0].offset + built.records[0].program;
    auto run = [bytes = built.bytes, textures] { load(bytes, textures ? &*textures : nullptr); };
    return {std::move(name), run,
            fmt::format("3DOBJS.BIN: record 0: offset 0x{:x}: program +0x{:x}: {}", base + at, at, detail)};
}

std::uint32_t program_limit(const RecordSpec& r) {
    const BuiltArchive built = build_model_archive({r});
    return static_cast<std::uint32_t>(built.bytes.size() - built.records[0].offset -
                                      built.records[0].program);
}

std::vector<Case> program_cases() {
    std::vector<Case> cases;
    cases.push_back(program_case("unknown opcode", with_program({8}), 0, "unknown opcode 8"));
    cases.push_back(program_case("unknown primitive type", with_program({0, 22, 3, 0, 0, 0}), 1,
                                 "unknown primitive type 22"));
    cases.push_back(program_case("packet count 0", with_program({0, 2, 0, 7}), 2, "vertex count 0"));
    cases.push_back(
        program_case("secondary length mismatch", with_program({1, 9, 2, 3, 5, 0, 1, 2, 7}), 1,
                     "secondary length 9 does not match the packet (7 bytes with the length byte)"));
    cases.push_back(program_case("packet over 254 bytes", with_program({0, 19, 63, 0, 0, 0, 0}), 2,
                                 "gouraud_texture packet of 63 vertices is 258 bytes, more than 254"));
    cases.push_back(program_case("vertex index past the list", with_program({0, 2, 3, 5, 0, 1, 3, 7}), 6,
                                 "vertex index 3 is past the vertex list (3 vertices)"));
    const RecordSpec backwards = with_program({3, 1, 0, 0, 0, 0xec, 0xff, 0, 0, 7});
    cases.push_back(program_case(
        "branch before the program", backwards, 5,
        fmt::format("ifmask branch to -0xd leaves the program (0x0..0x{:x})", program_limit(backwards))));
    const RecordSpec forwards = with_program({3, 1, 0, 0, 0, 100, 0, 0, 0, 7});
    cases.push_back(program_case(
        "branch past the record", forwards, 5,
        fmt::format("ifmask branch to 0x6b leaves the program (0x0..0x{:x})", program_limit(forwards))));
    const RecordSpec table = with_program({5, 0, 1, 0, 0, 0, 10, 0, 0});
    cases.push_back(
        program_case("select case past its table", table, 9,
                     fmt::format("select case table of 10 entries (20 bytes) runs past the end of the record "
                                 "(program has 0x{:x} bytes)",
                                 program_limit(table))));
    cases.push_back(program_case("select shift above 31", with_program({5, 32, 1, 0, 0, 0, 0, 0, 0, 7}), 1,
                                 "select shift 32 is not below 32"));
    cases.push_back(program_case("attachment slot past the list", with_program({6, 0, 7}), 1,
                                 "attachment slot 0 is past the attachment list (0 slots)"));
    cases.push_back(program_case("cycle through a continuation",
                                 with_program({3, 1, 0, 0, 0, 2, 0, 0xf7, 0xff, 7}), 0,
                                 "ifmask to +0x0 forms a cycle"));
    ProgramBuilder recursive;
    recursive.label("top")
        .if_mask(1, "b", "end")
        .label("end")
        .ret()
        .label("b")
        .if_mask(1, "top", "r")
        .label("r")
        .ret();
    cases.push_back(program_case("cycle through a branch", with_program(recursive.build()),
                                 recursive.offset("b"), "ifmask to +0x0 forms a cycle"));
    RecordSpec no_return = with_program({6, 0, 6, 0});
    no_return.attachments = std::vector<Attachment>{attachment(0, {0, 0, 0})};
    cases.push_back(program_case("program without a return", no_return, 2,
                                 "the program runs past the end of the record without a return"));
    const Bytes two_slots = build_texture_archive({TextureSpec{2, 64, {}}, std::nullopt});
    cases.push_back(program_case("texture slot empty",
                                 with_program({0, 7, 3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 7}), 3,
                                 "texture slot 1 is empty in OBJTEXT.BIN (2 slots)", two_slots));
    cases.push_back(program_case("texture slot past the table",
                                 with_program({0, 7, 3, 9, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 7}), 3,
                                 "texture slot 9 is past the table in OBJTEXT.BIN (2 slots)", two_slots));
    return cases;
}

// A model case: `mutate` edits the built bytes of `slots`; the expectation is formatted from the
// built offsets.
Case model_case(std::string name, const std::vector<std::optional<RecordSpec>>& slots,
                const std::function<void(BuiltArchive&)>& mutate,
                const std::function<std::string(const BuiltArchive&)>& expected,
                Check check = Check::content) {
    BuiltArchive built = build_model_archive(slots);
    mutate(built);
    return {std::move(name), [bytes = built.bytes] { load(bytes); }, expected(built), check};
}

std::vector<Case> model_cases() {
    const RecordSpec plain = with_program({7});
    RecordSpec attached = with_program({7});
    attached.attachments = std::vector<Attachment>{attachment(1, {0, 0, 0})};
    RecordSpec grid = with_program({7});
    grid.encoding = 1;
    grid.vertices = {grid_vertex(32, 32, 32, 64, 32, 32)};
    const auto rec = [](const BuiltArchive& b, std::uint32_t rel) { return b.records[0].offset + rel; };
    std::vector<Case> cases;
    cases.push_back({"empty file", [] { load({}); },
                     "3DOBJS.BIN: offset 0x0: 32-bit value (4 bytes) runs past the end of the archive (0x0)",
                     Check::table});
    cases.push_back(
        {"truncated table",
         [] {
             load({0xe8, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
         },
         "3DOBJS.BIN: offset 0x0: offset table of 1000 entries needs 4004 bytes, the archive has 12",
         Check::table});
    cases.push_back(
        {"more slots than the engine's table holds",
         [] {
             Bytes table(4 + 4 * 2049, 0); // 2049 empty slots: room enough, one more than arc.capacity
             table[0] = 0x01;
             table[1] = 0x08;
             load(table);
         },
         "3DOBJS.BIN: offset 0x0: the table counts 2049 slots, more than the engine's 2048 (arc.capacity)",
         Check::table});
    cases.push_back(
        {"more texture slots than the engine's table holds",
         [] {
             Bytes table(4 + 4 * 1025, 0);
             table[0] = 0x01;
             table[1] = 0x04;
             (void)TextureArchive::parse(table);
         },
         "OBJTEXT.BIN: offset 0x0: the table counts 1025 slots, more than the engine's 1024 (arc.capacity)",
         Check::table});
    cases.push_back(model_case(
        "record offset + 188 past the end", {plain},
        [](BuiltArchive& b) { set_u32(b.bytes, 4, static_cast<std::uint32_t>(b.bytes.size() - 100)); },
        [](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: offset 0x4: slot 0 offset 0x{:x} leaves no 188-byte record between the table "
                "end 0x8 and the archive end 0x{:x}",
                b.bytes.size() - 100, b.bytes.size());
        },
        Check::record));
    cases.push_back(model_case(
        "two slots share an offset", {plain, plain},
        [](BuiltArchive& b) { set_u32(b.bytes, 8, b.records[0].offset); },
        [](const BuiltArchive&) {
            return std::string("3DOBJS.BIN: offset 0x8: slot 1 shares offset 0xc with slot 0");
        },
        Check::table));
    cases.push_back(model_case(
        "unknown encoding", {plain}, [&](BuiltArchive& b) { set_u32(b.bytes, rec(b, 0), 2); },
        [](const BuiltArchive&) {
            return std::string("3DOBJS.BIN: record 0: offset 0x8: unknown coordinate encoding 2");
        }));
    cases.push_back(model_case(
        "grid byte above 63", {grid}, [](BuiltArchive&) {},
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: grid fine byte 64 is past the 64-entry table",
                rec(b, b.records[0].vertices) + 2 + 3);
        }));
    cases.push_back(model_case(
        "vertex count overflows the record", {plain},
        [&](BuiltArchive& b) { set_u16(b.bytes, rec(b, b.records[0].vertices), 1000); },
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: vertex list (6000 bytes) runs past the end of the "
                "record (0x{:x})",
                rec(b, b.records[0].vertices) + 2, b.bytes.size());
        }));
    cases.push_back(model_case(
        "block offset past the record", {plain},
        [&](BuiltArchive& b) { set_u32(b.bytes, rec(b, 0x38), 0x10000); },
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: normal list offset 0x10000 lies past the record end "
                "(record size 0x{:x})",
                rec(b, 0x38), b.bytes.size() - b.records[0].offset);
        },
        Check::internal));
    // arc.records: a block follows the 188-byte header; the stand-in refuses one inside it
    // (cases/hostile-objects-offset-in-header found the validator accepting it).
    cases.push_back(model_case(
        "block offset inside the header", {plain},
        [&](BuiltArchive& b) { set_u32(b.bytes, rec(b, 0x3c), 187); },
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: face program offset 0xbb lies inside the record's "
                "188-byte header",
                rec(b, 0x3c));
        },
        Check::internal));
    cases.push_back(model_case(
        "more than 256 normals", {plain},
        [&](BuiltArchive& b) { set_u16(b.bytes, rec(b, b.records[0].normals), 300); },
        [&](const BuiltArchive& b) {
            return fmt::format("3DOBJS.BIN: record 0: offset 0x{:x}: normal count 300 exceeds 256",
                               rec(b, b.records[0].normals));
        }));
    cases.push_back(model_case(
        "flat count above the normal count", {plain},
        [&](BuiltArchive& b) { set_u16(b.bytes, rec(b, b.records[0].normals) + 2, 5); },
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: flat normal count 5 exceeds the normal count 2",
                rec(b, b.records[0].normals) + 2);
        }));
    cases.push_back(model_case(
        "more than 256 attachments", {attached, plain},
        [&](BuiltArchive& b) { set_u32(b.bytes, rec(b, b.records[0].attachments), 257); },
        [&](const BuiltArchive& b) {
            return fmt::format("3DOBJS.BIN: record 0: offset 0x{:x}: attachment count 257 exceeds 256",
                               rec(b, b.records[0].attachments));
        }));
    cases.push_back(model_case(
        "attachment count overflows the record", {plain, attached},
        [](BuiltArchive& b) { set_u32(b.bytes, b.records[1].offset + b.records[1].attachments, 5); },
        [](const BuiltArchive& b) {
            const std::uint64_t at = b.records[1].offset + b.records[1].attachments;
            return fmt::format(
                "3DOBJS.BIN: record 1: offset 0x{:x}: attachment count 5 overflows the record (260 bytes "
                "needed, {} left)",
                at, b.bytes.size() - (at + 4));
        }));
    cases.push_back(model_case(
        "attachment names an empty record", {attached, std::nullopt}, [](BuiltArchive&) {},
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: attachment slot 0 names model 1, an empty record",
                rec(b, b.records[0].attachments) + 4);
        }));
    cases.push_back(model_case(
        "attachment names an absent record", {attached}, [](BuiltArchive&) {},
        [&](const BuiltArchive& b) {
            return fmt::format(
                "3DOBJS.BIN: record 0: offset 0x{:x}: attachment slot 0 names model 1, an absent record",
                rec(b, b.records[0].attachments) + 4);
        }));
    return cases;
}

std::vector<Case> texture_cases() {
    const auto texture = [](std::uint32_t type, std::uint32_t height, std::uint32_t rows) {
        Bytes b = build_texture_archive({TextureSpec{2, rows, {}}});
        set_u32(b, 8, type);
        set_u32(b, 12, height);
        return b;
    };
    std::vector<Case> cases;
    cases.push_back({"texture type 3", [=] { TextureArchive::parse(texture(3, 64, 64)); },
                     "OBJTEXT.BIN: record 0: offset 0x8: unknown texture type 3", Check::record});
    cases.push_back({"texture height 0", [=] { TextureArchive::parse(texture(2, 0, 64)); },
                     "OBJTEXT.BIN: record 0: offset 0xc: texture height 0", Check::record});
    // valid.texture: 4097 rows are refused even when their pixels all fit (the stand-in's bound).
    cases.push_back({"texture height above 4096", [=] { TextureArchive::parse(texture(0, 4097, 1100)); },
                     "OBJTEXT.BIN: record 0: offset 0xc: texture height 4097 above 4096", Check::record});
    cases.push_back(
        {"texture height overflows the record", [=] { TextureArchive::parse(texture(2, 100, 64)); },
         "OBJTEXT.BIN: record 0: offset 0xc: texture height 100 overflows the record (6400 pixel bytes "
         "needed, 4096 left)",
         Check::record});
    cases.push_back({"texture slots share an offset",
                     [] {
                         Bytes b = build_texture_archive({TextureSpec{}, TextureSpec{}});
                         set_u32(b, 8, 12);
                         TextureArchive::parse(b);
                     },
                     "OBJTEXT.BIN: offset 0x8: slot 1 shares offset 0xc with slot 0", Check::table});
    return cases;
}

class Malformed : public ::testing::TestWithParam<Case> {};

TEST_P(Malformed, GivesItsError) {
    try {
        GetParam().run();
        FAIL() << "no error for " << GetParam().name;
    } catch (const FormatError& e) {
        EXPECT_EQ(std::string(e.what()), GetParam().expected);
        EXPECT_EQ(check_name(e.where().check), check_name(GetParam().check)) << GetParam().name;
    }
}

std::vector<Case> all_cases() {
    std::vector<Case> all = program_cases();
    for (auto& c : model_cases()) all.push_back(std::move(c));
    for (auto& c : texture_cases()) all.push_back(std::move(c));
    return all;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string out;
    for (char c : info.param.name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

INSTANTIATE_TEST_SUITE_P(Inputs, Malformed, ::testing::ValuesIn(all_cases()), case_name);

// Every truncation of a valid archive fails cleanly (FormatError) or parses; none crashes.
TEST(MalformedSweep, EveryTruncationOfAValidArchiveFailsCleanly) {
    RecordSpec r = with_program(ProgramBuilder().primary(2, {7}, {{0}, {1}, {2}}).ret().build());
    r.attachments = std::vector<Attachment>{attachment(0, {1, 2, 3})};
    const Bytes full = build_model_archive({r, r}).bytes;
    std::size_t failed = 0;
    for (std::size_t size = 0; size < full.size(); ++size) {
        try {
            load(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size)));
        } catch (const FormatError&) {
            ++failed;
        }
    }
    EXPECT_GT(failed, full.size() / 2);
}

// Every single-byte corruption of a program fails cleanly or decodes; none crashes or hangs.
TEST(MalformedSweep, EveryByteValueAtEveryProgramOffsetDecodesOrFailsCleanly) {
    ProgramBuilder b;
    b.primary(2, {7}, {{0}, {1}, {2}}).plane(0, 1, 2, "f", "k", "c").label("c").select(1, 3, {"f", "k"}, "e");
    b.label("e").ret().label("f").secondary(17, {1, 0}, {{0, 0}, {1, 1}, {2, 1}}).ret().label("k").ret();
    const RecordSpec r = with_program(b.build());
    const BuiltArchive built = build_model_archive({r});
    const std::size_t base = built.records[0].offset + built.records[0].program;
    std::size_t failed = 0, decoded = 0;
    for (std::size_t at = base; at < built.bytes.size(); ++at) {
        for (int value = 0; value < 256; value += 3) {
            Bytes bytes = built.bytes;
            bytes[at] = static_cast<std::uint8_t>(value);
            try {
                load(bytes);
                ++decoded;
            } catch (const FormatError&) {
                ++failed;
            }
        }
    }
    EXPECT_GT(failed, 0u);
    EXPECT_GT(decoded, 0u);
}

// A file past 4 GiB cannot be an archive (its offsets are 32-bit): refused by its size, naming the
// archive, before a byte is read. It was read whole: std::bad_alloc, or a worker killed for memory.
TEST(ArchiveFile, AnArchivePastFourGiBIsRefusedByItsSize) {
    const auto dir = std::filesystem::temp_directory_path() / ("refcheck-huge-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto file = dir / "3DOBJS.BIN";
    std::ofstream(file, std::ios::binary).put('\0');
    std::filesystem::resize_file(file, std::uintmax_t{6} << 30); // sparse: no disk used
    try {
        read_archive(file, "3DOBJS.BIN");
        ADD_FAILURE() << "a 6 GiB file was read as an archive";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.where().archive, "3DOBJS.BIN");
        EXPECT_NE(std::string(e.what()).find("is 6442450944 bytes: the format's offsets are 32-bit"),
                  std::string::npos)
            << e.what();
        EXPECT_EQ(check_name(e.where().check), "open");
    }
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace refcheck::reimpl

namespace refcheck::reimpl {
namespace {

// arc.capacity from the other side: exactly as many slots as the engine's tables hold is valid.
TEST(Capacity, TablesOfExactlyTheEnginesCapacityAreAccepted) {
    Bytes models(4 + 4 * kModelTableCapacity, 0);
    models[1] = 0x08; // 2048 empty slots
    EXPECT_EQ(ModelArchive::parse(models).count(), kModelTableCapacity);
    Bytes textures(4 + 4 * kTextureTableCapacity, 0);
    textures[1] = 0x04; // 1024 empty slots
    EXPECT_EQ(TextureArchive::parse(textures).count(), kTextureTableCapacity);
}

// An archive of a data root that is a FIFO is refused with the archive's name, not read: reading
// it blocked the run for ever.
TEST(ArchiveFile, AFifoIsNotAnArchive) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("refcheck-fifo-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    ASSERT_EQ(::mkfifo((dir / "3DOBJS.BIN").c_str(), 0644), 0);
    try {
        read_archive(dir / "3DOBJS.BIN", "3DOBJS.BIN");
        ADD_FAILURE() << "a FIFO was read as an archive";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.where().archive, "3DOBJS.BIN");
        EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos) << e.what();
        EXPECT_EQ(check_name(e.where().check), "open");
    }
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace refcheck::reimpl
