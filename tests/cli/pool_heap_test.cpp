// The loader on an image whose runtime carves its allocations from large blocks of its own, as a
// Watcom runtime's malloc does: standin_pool.exe (fixture/rt.c, STANDIN_POOL_HEAP: 1 MiB VirtualAlloc
// blocks, an 8-byte header per allocation, freed ones reused first-fit). emu's heap then holds the
// blocks only, never an archive's or a texture's own allocation. The loader looked for each among
// allocations of exactly its size, so a correct image diverged at the archive, both tables and
// every texture (33 of 33 events), and its re-load check took the block as a leak.
#include "cli_support.hpp"
#include "code_site.hpp"

namespace refcheck::cli_test {
namespace {

const fs::path kPoolImage = REFCHECK_CLI_POOL_IMAGE;
const fs::path kPoolProfile = REFCHECK_CLI_POOL_PROFILE;

class PoolHeapTest : public CliTest {
protected:
    Result run_on_pool(const std::string& cases, const std::string& out, const std::string& more = "") {
        return refcheck("run " + cases + " --image " + quote(kPoolImage) + " --profile " +
                        quote(kPoolProfile) + " --data " + quote(kSmallData) + " --out " + out + more);
    }
    ojson rule(const std::string& out, const std::string& id) {
        const ojson index = read_json(path(out + "/run.json"));
        for (const auto& r : index.at("ledger").at("rules"))
            if (r.at("id") == id) return r;
        return ojson();
    }
};

// Found by content inside the blocks: both archives, both tables and every texture match. The first
// load's release goes to the image's own heap, which emu cannot see: said in the metrics, not
// compared, and abi.init_objects.again (whose predicate needs that comparison) is not Proven by it,
// as it is on the stand-in, whose every allocation is emu's.
TEST_F(PoolHeapTest, TheLoaderFindsTheArchivesInsideTheImagesOwnBlocks) {
    const Result r = run_on_pool(quote(shipped_case("loader")), "pool");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const ojson report = read_json(path("pool/loader.json"));
    EXPECT_EQ(report.at("status"), "equivalent");
    const ojson metrics = report.at("metrics");
    EXPECT_GT(metrics.at("first_load_release_unobservable").get<std::uint64_t>(), 0u) << metrics;
    EXPECT_EQ(metrics.at("texture_bytes").at("original"), metrics.at("texture_bytes").at("reimpl"))
        << metrics;
    EXPECT_EQ(rule("pool", "abi.init_objects.again").at("status"), "Chosen-unproven");
    EXPECT_NE(r.out.find("claimed, not exercised: loader:abi.init_objects.again"), std::string::npos)
        << r.out;

    const Result standin =
        refcheck("run " + quote(shipped_case("loader")) + " --data " + quote(kSmallData) + " --out standin");
    ASSERT_EQ(standin.code, 0) << standin.out << standin.err;
    EXPECT_EQ(rule("standin", "abi.init_objects.again").at("status"), "Proven");
    EXPECT_FALSE(
        read_json(path("standin/loader.json")).at("metrics").contains("first_load_release_unobservable"));
}

// The search accepts only the bytes the file relocated for their place: load_texture's pixel pointer
// made the copy's address + 16 (its `lea eax, [edx + 0xc]` made + 0x10) leaves each texture's bytes
// nowhere, and the original's own place inside its block is compared, diverging at the texture.
TEST_F(PoolHeapTest, ATextureRelocatedWrongInsideABlockDiverges) {
    const CodeSite lea = find_instruction(
        "load_texture", [](const emu::Instruction& in) { return in.text == "lea eax, [edx + 0xc]"; });
    std::vector<std::uint8_t> wrong = lea.bytes;
    ASSERT_EQ(wrong.back(), 0x0c) << lea.instruction.text;
    wrong.back() = 0x10;
    // The same routine in the pool image (its sources are the stand-in's but for rt.c), by symbol.
    const Result r =
        run_on_pool(quote(shipped_case("loader")), "seeded",
                    " --patch " + quote(lea.where() + ":" + hex_bytes(lea.bytes) + "->" + hex_bytes(wrong)));
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("seeded/loader.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson& first = report.at("first_unexplained");
    EXPECT_EQ(first.at("input"), "load") << first;
    EXPECT_EQ(first.at("original").at("kind"), "texture") << first;
    EXPECT_EQ(first.at("original").at("fields").at("name").get<std::string>().rfind("slot ", 0), 0u) << first;
}

} // namespace
} // namespace refcheck::cli_test
