// The loader check is independent of the tables it checks (issue 11, point 7): a stand-in whose
// texture table points at bytes that look right but are no allocation of its heap must diverge.
//
// The seeded fault: load_texture's `call heap_alloc` replaced by `mov eax, <source>` (the register
// memcpy's source argument is pushed from, i.e. the texture's header inside the file buffer), so
// every "copy" is the file's own bytes, relocated in place (header word 2 = its address + 12),
// and the table points into the file buffer, which load_textures then frees. The bytes each entry
// points at equal the texture relocated for that address, so a check that takes the table's
// entries as the allocations (the old behaviour) passes; no live allocation holds any texture.
#include "cli_support.hpp"
#include "code_site.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace refcheck::cli_test {
namespace {

class LoaderFaultTest : public CliTest {};

std::string call_text(const std::string& symbol) {
    emu::Machine machine;
    const auto at = machine.load(kImage).address_of(symbol);
    if (!at) throw std::runtime_error("standin.exe has no symbol " + symbol);
    char text[32];
    std::snprintf(text, sizeof text, "call 0x%x", *at);
    return text;
}

TEST_F(LoaderFaultTest, ATextureTableIntoTheFreedFileBufferDivergesAtTheTable) {
    const auto code = instructions_of("load_texture");
    const std::string alloc = call_text("heap_alloc"), copy = call_text("memcpy");
    const auto a =
        std::find_if(code.begin(), code.end(), [&](const emu::Instruction& in) { return in.text == alloc; });
    ASSERT_NE(a, code.end()) << "load_texture calls heap_alloc no more";
    ASSERT_EQ(a->size, 5u) << a->text;
    ASSERT_TRUE(a + 1 != code.end() && (a + 1)->text.rfind("add esp, ", 0) == 0)
        << "the caller must pop heap_alloc's argument, or replacing the call unbalances the stack";
    const auto c = std::find_if(a, code.end(), [&](const emu::Instruction& in) { return in.text == copy; });
    ASSERT_NE(c, code.end()) << "load_texture calls memcpy no more";
    std::vector<std::string> pushed; // registers pushed for memcpy, in order (cdecl: dst last)
    for (auto i = a + 1; i != c; ++i)
        if (i->text.rfind("push ", 0) == 0) pushed.push_back(i->text.substr(5));
    ASSERT_GE(pushed.size(), 3u);
    const std::string source = pushed[pushed.size() - 2];
    const std::array<std::string, 8> regs = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};
    const auto r = std::find(regs.begin(), regs.end(), source);
    ASSERT_NE(r, regs.end()) << "memcpy's source is pushed from " << source << ", not a register";
    ASSERT_NE(source, "eax");
    const auto index = static_cast<std::uint8_t>(r - regs.begin());
    const std::vector<std::uint8_t> mov_eax = {0x89, static_cast<std::uint8_t>(0xc0 | index << 3), 0x90, 0x90,
                                               0x90};

    char where[64];
    std::snprintf(where, sizeof where, "load_texture+0x%x", a->address - code.front().address);
    const fs::path file = write_case(
        "small-loader",
        {{"schema", "refcheck-case/1"}, {"family", "loader"}, {"description", "cli_tests: both archives"}});
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result run = refcheck("run " + common + " --out patched --patch " + where + ":" +
                                hex_bytes(std::vector<std::uint8_t>(mov_eax)));
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("patched/small-loader.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_TRUE(report.at("faults").empty()) << "the patched loader must run to its end";

    // The model archive is untouched; the first thing wrong is the texture table.
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "load");
    EXPECT_EQ(d.at("original").at("fields").at("name"), "texture_table") << d.dump();
    // No live allocation holds any populated texture: each slot's original side is empty.
    const auto textures =
        reimpl::TextureArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "OBJTEXT.BIN"));
    std::size_t populated = 0, empty = 0;
    for (const auto& b : report.at("buffers"))
        if (b.at("kind") == "texture") ++populated, empty += b.at("size") == 0 ? 1 : 0;
    std::size_t expected = 0;
    for (std::uint32_t s = 0; s < textures.count(); ++s) expected += textures.populated(s) ? 1 : 0;
    ASSERT_GT(expected, 0u);
    EXPECT_EQ(populated, expected);
    EXPECT_EQ(empty, expected);
    EXPECT_EQ(report.at("counts").at("unexplained"), expected + 1); // every slot and the table
}

} // namespace
} // namespace refcheck::cli_test
