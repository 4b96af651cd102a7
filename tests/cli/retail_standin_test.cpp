// The real-image path end to end, on the second stand-in (fixture/: the same engine built like a
// 1998 retail image — mingw's CRT against msvcrt.dll, fopen/fread and malloc/free, no exports,
// stripped, at 0x10000000 where the guest heap would be, -O1): its profile imported from its map
// into the real-image template, every shipped case runs equivalent on the small archives after
// booting from the entry point to main, and the emulated loads went through msvcrt into a heap
// placed around the image.
#include "cli_support.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/hash.hpp"

namespace refcheck::cli_test {
namespace {

const fs::path kRetailImage = REFCHECK_CLI_RETAIL_IMAGE;
const fs::path kRetailMap = REFCHECK_CLI_RETAIL_MAP;

TEST(RetailStandIn, IsBuiltLikeARetailImage) {
    emu::Machine m;
    const emu::Image& image = m.load(kRetailImage);
    EXPECT_EQ(image.base, 0x10000000u);
    EXPECT_TRUE(image.exports.empty());
    EXPECT_TRUE(image.coff_symbols.empty());
    bool fopen = false, malloc = false, create_file = false;
    for (const auto& b : image.imports) {
        fopen = fopen || b.function == "fopen";
        malloc = malloc || b.function == "malloc";
        create_file = create_file || b.function == "CreateFileA";
    }
    EXPECT_TRUE(fopen && malloc);
    EXPECT_FALSE(create_file) << "its file access is msvcrt's";
    EXPECT_FALSE(m.heap().region().contains(image.base)) << "the heap goes around the image";
}

class RetailRun : public CliTest {};

TEST_F(RetailRun, ImportedProfileRunsEveryShippedCaseEquivalent) {
    const fs::path profile = path("standin_retail.profile.json");
    const Result imported =
        refcheck("profile import --map " + quote(kRetailMap) + " --template " + quote(kTemplate) +
                 " --image " + quote(kRetailImage) + " --out " + quote(profile));
    ASSERT_EQ(imported.code, 0) << imported.out << imported.err;
    EXPECT_NE(imported.out.find(", 0 still missing"), std::string::npos) << imported.out;
    EXPECT_EQ(read_json(profile).at("image_sha256"), harness::sha256_file(kRetailImage));

    const Result r = refcheck("run --image " + quote(kRetailImage) + " --profile " + quote(profile) +
                              " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("status"), "equivalent");
    // The original read its archives through msvcrt's fopen/fread: recorded like kernel32's.
    const ojson loader = read_json(path("out/loader.json"));
    EXPECT_NE(loader.dump().find("3DOBJS.BIN"), std::string::npos);
    // Every case booted: the entry point's CRT start-up ran until main before the initialiser.
    for (const auto& row : index.at("cases")) {
        const ojson report = read_json(path("out/" + row.at("report").get<std::string>()));
        ASSERT_TRUE(report.contains("boot")) << row.at("report");
        EXPECT_EQ(report.at("boot").at("entry_until"), "main");
    }
    // The stand-in's own profile belongs to the other image: refused.
    const Result wrong = refcheck("run " + quote(shipped_case("loader")) + " --image " + quote(kRetailImage) +
                                  " --data " + quote(kSmallData) + " --out wrong");
    EXPECT_EQ(wrong.code, 2) << wrong.out << wrong.err;
    EXPECT_NE(wrong.err.find("belongs to another image"), std::string::npos) << wrong.err;
}

} // namespace
} // namespace refcheck::cli_test
