// PE32 loading: sections and protections, .bss, exports and COFF symbols, import binding,
// relocation at a non-preferred base.
#include <algorithm>
#include <cstring>
#include <iterator>

#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

TEST(Load, MapsSectionsWithTheirProtections) {
    Machine m;
    const Image& image = m.load(test::test_image());
    EXPECT_EQ(image.base, 0x00400000u); // pinned with --image-base
    EXPECT_EQ(image.preferred_base, 0x00400000u);
    EXPECT_EQ(image.relocations_applied, 0u);
    auto find = [&](const std::string& name) -> const ImageSection& {
        for (const auto& s : image.sections)
            if (s.name == name) return s;
        throw std::runtime_error("no section " + name);
    };
    EXPECT_TRUE(find(".text").executable);
    EXPECT_FALSE(find(".text").writable);
    EXPECT_TRUE(find(".data").writable);
    EXPECT_FALSE(find(".data").executable);
    EXPECT_FALSE(find(".rdata").writable);
    EXPECT_EQ(find(".bss").data_size, 0u);
    // The headers are mapped: "MZ" at the base.
    EXPECT_EQ(m.read_u16(image.base), 0x5a4du);
}

// Guest memory is host memory the machine owns (Machine::Impl::map): a read within one mapped
// region is a copy from it, a read across regions goes through Unicorn. Both must give the same
// bytes: the whole image read at once (its sections are separate regions by protection) equals it
// read page by page, and past the image's end a read that leaves mapped memory is refused.
TEST(Load, ReadsWithinAndAcrossMappedRegionsAgree) {
    Machine m;
    const Image& image = m.load(test::test_image());
    ASSERT_GT(image.sections.size(), 2u);
    const std::vector<uint8_t> whole = m.read_bytes(image.base, image.size);
    std::vector<uint8_t> paged;
    for (uint32_t at = 0; at < image.size; at += 0x1000) {
        const auto page = m.read_bytes(image.base + at, std::min<uint32_t>(0x1000, image.size - at));
        paged.insert(paged.end(), page.begin(), page.end());
    }
    EXPECT_EQ(whole, paged);
    EXPECT_EQ(m.read_u16(image.base), 0x5a4du);
    // Bytes the machine writes are read back from either path.
    bool wrote = false;
    for (const auto& s : image.sections) {
        if (s.name != ".data") continue;
        const std::vector<uint8_t> bytes{1, 2, 3, 4};
        m.write(s.range.begin, bytes);
        EXPECT_EQ(m.read_u32(s.range.begin), 0x04030201u);
        EXPECT_EQ(m.read_bytes(image.base, image.size)[s.range.begin - image.base + 2], 3u);
        wrote = true;
    }
    EXPECT_TRUE(wrote);
    if (!m.is_mapped(image.base + image.size)) {
        EXPECT_THROW(m.read_bytes(image.base + image.size - 2, 4), std::exception);
    }
}

TEST(Load, BssIsZeroFilled) {
    Machine m;
    m.load(test::test_image());
    CallResult first = m.call("bss_probe", Convention::cdecl, {});
    ASSERT_TRUE(first.ok()) << describe(first);
    EXPECT_EQ(first.eax, 0u);
    CallResult second = m.call("bss_probe", Convention::cdecl, {});
    EXPECT_EQ(second.eax, 8192u); // the first call set every byte to 1
}

TEST(Load, ExportsAndCoffSymbolsResolveByName) {
    Machine m;
    const Image& image = m.load(test::test_image());
    ASSERT_TRUE(image.address_of("add3_cdecl"));
    // A label inside a routine exists only as a COFF symbol ("_fault_read_insn").
    auto label = image.address_of("fault_read_insn");
    ASSERT_TRUE(label);
    EXPECT_EQ(image.symbols.at("_fault_read_insn"), *label);
    EXPECT_GT(*label, *image.address_of("fault_read_unmapped"));
    EXPECT_EQ(m.symbols().describe(*image.address_of("add3_cdecl") + 3), "add3_cdecl+0x3");
    EXPECT_THROW(image.require("no_such_routine"), EmuError);
}

// Names of up to 8 bytes sit inline in the COFF symbol record; Debian's LIEF 0.9 returned them
// empty, so the loader reads the table itself.
TEST(Load, ShortCoffNamesAreRead) {
    Machine m;
    const Image& image = m.load(test::test_image());
    for (const char* name : {"say", "quit", "name_at"}) {
        ASSERT_TRUE(image.symbols.count("_" + std::string(name))) << name;
        EXPECT_EQ(image.symbols.at("_" + std::string(name)), image.exports.at(name)) << name;
    }
    ASSERT_TRUE(image.symbols.count("_scratch")); // data in .bss: 8 bytes exactly, no terminator
    const ImageSection* bss = image.section_at(image.symbols.at("_scratch"));
    ASSERT_NE(bss, nullptr);
    EXPECT_EQ(bss->name, ".bss");
    // Every symbol sits in its source file's run of the table.
    auto say = std::find_if(image.coff_symbols.begin(), image.coff_symbols.end(),
                            [](const CoffSymbol& s) { return s.name == "_say"; });
    ASSERT_NE(say, image.coff_symbols.end());
    EXPECT_EQ(say->file, "memory.c");
    EXPECT_EQ(say->storage_class, coff_external);
    EXPECT_EQ(m.symbols().describe(image.exports.at("say")), "say");
}

// Names that survive a rebuild with other files: statics qualified by their file (two files may
// each have a static "push"), externals and exports as they are.
TEST(Load, StaticsAreQualifiedByTheirFile) {
    Image image;
    image.exports = {{"draw", 0x401000}};
    image.coff_symbols = {
        {"_draw", "program.c", 0x401000, coff_external}, {"_push", "program.c", 0x401100, coff_static},
        {"_stop", "program.c", 0x401200, coff_static},   {"_push", "shadow.c", 0x402100, coff_static},
        {"_memcpy", "rt.c", 0x400100, coff_external},    {"_orphan", "", 0x400200, coff_static}};
    const std::map<Address, std::string> names = address_names(image);
    EXPECT_EQ(names.at(0x401000), "draw");
    EXPECT_EQ(names.at(0x401100), "program.c:push");
    EXPECT_EQ(names.at(0x402100), "shadow.c:push");
    EXPECT_EQ(names.at(0x401200), "program.c:stop");
    EXPECT_EQ(names.at(0x400100), "memcpy");
    EXPECT_EQ(names.at(0x400200), "orphan");
}

// A symbol table that runs past the end of the file is an error that names the table.
TEST(Load, TruncatedSymbolTableIsAnError) {
    test::ScratchDir dir("coff");
    std::ifstream in(test::test_image(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    uint32_t pe = 0, count = 0x00ffffff;
    std::memcpy(&pe, bytes.data() + 0x3c, 4);
    std::memcpy(bytes.data() + pe + 4 + 12, &count, 4); // NumberOfSymbols
    dir.put("bad.exe", bytes);
    Machine m;
    try {
        m.load(dir.path() / "bad.exe");
        FAIL() << "loaded an image whose symbol table runs past the file";
    } catch (const EmuError& e) {
        EXPECT_NE(std::string(e.what()).find("COFF symbol table of"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("runs past the end of the file"), std::string::npos) << e.what();
    }
}

TEST(Load, ImportsAreBoundToShimsOrTheTrap) {
    Machine m;
    const Image& image = m.load(test::test_image());
    bool saw_shim = false, saw_trap = false;
    for (const ImportBinding& b : image.imports) {
        EXPECT_EQ(m.read_u32(b.iat_slot), b.thunk) << b.function;
        EXPECT_GE(b.thunk, Machine::shim_base);
        if (b.function == "CreateFileA") {
            EXPECT_TRUE(b.shimmed);
            saw_shim = true;
        }
        if (b.function == "Beep") {
            EXPECT_FALSE(b.shimmed); // loading does not fail because of it
            saw_trap = true;
        }
    }
    EXPECT_TRUE(saw_shim);
    EXPECT_TRUE(saw_trap);
}

TEST(Load, RelocatesAtANonPreferredBase) {
    Machine m;
    const Image& image = m.load(test::test_image(), 0x01000000);
    EXPECT_EQ(image.base, 0x01000000u);
    EXPECT_GT(image.relocations_applied, 0u);
    // A table of absolute string pointers, read through the relocated code.
    CallResult r = m.call("name_at", Convention::cdecl, {1});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_TRUE(image.range().contains(r.eax));
    EXPECT_EQ(m.read_cstring(r.eax), "beta");
    // A table of absolute data pointers.
    EXPECT_EQ(m.call("bump_counter", Convention::cdecl, {2}).eax, 31u);
    EXPECT_EQ(m.call("bump_counter", Convention::cdecl, {2}).eax, 32u);
    // Imports still work there.
    EXPECT_EQ(m.call("last_error_roundtrip", Convention::cdecl, {1234}).eax, 1234u);
}

// An image whose SizeOfImage is 0 maps nothing: an error naming it (it once reached memcpy from a null
// pointer; fuzz/regressions/pe_load/).
TEST(Load, AnImageOfNoSizeIsAnError) {
    test::ScratchDir dir("no-size");
    std::ifstream in(test::test_image(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    uint32_t pe = 0;
    const uint32_t zero = 0;
    std::memcpy(&pe, bytes.data() + 0x3c, 4);
    std::memcpy(bytes.data() + pe + 24 + 56, &zero, 4); // the optional header's SizeOfImage
    dir.put("empty.exe", bytes);
    Machine m;
    try {
        m.load(dir.path() / "empty.exe");
        FAIL() << "loaded an image of no size";
    } catch (const EmuError& e) {
        EXPECT_NE(std::string(e.what()).find("SizeOfImage of "), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("is 0"), std::string::npos) << e.what();
    }
}

namespace {
// The test image's bytes, its PE header's offset and its section table's.
struct PeBytes {
    std::string bytes;
    uint32_t pe = 0, sections = 0;
    uint16_t count = 0;
    uint32_t u32(uint32_t at) const {
        uint32_t v = 0;
        std::memcpy(&v, bytes.data() + at, 4);
        return v;
    }
    void put32(uint32_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }
    // The section table entry of the section named `name`.
    uint32_t section(const std::string& name) const {
        for (uint32_t k = 0; k < count; ++k)
            if (std::string(bytes.data() + sections + 40 * k, 8).starts_with(name)) return sections + 40 * k;
        ADD_FAILURE() << "no section " << name;
        return sections;
    }
};
PeBytes test_image_bytes() {
    std::ifstream in(test::test_image(), std::ios::binary);
    PeBytes b;
    b.bytes.assign((std::istreambuf_iterator<char>(in)), {});
    b.pe = b.u32(0x3c);
    std::memcpy(&b.count, b.bytes.data() + b.pe + 6, 2);
    uint16_t optional = 0;
    std::memcpy(&optional, b.bytes.data() + b.pe + 20, 2);
    b.sections = b.pe + 24 + optional;
    // No COFF symbol table (a retail image has none): the section data is what the loader reads.
    b.put32(b.pe + 12, 0);
    b.put32(b.pe + 16, 0);
    return b;
}
std::string load_error(const std::filesystem::path& file) {
    Machine m;
    try {
        m.load(file);
    } catch (const EmuError& e) {
        return e.what();
    }
    return "(loaded)";
}
} // namespace

// A truncated image (its .text cut in the middle) is refused, naming the section and the file's
// size: the missing bytes were left zero and ran as the original's code, a verdict against it.
// So is a section table whose sections overlap in memory.
TEST(Load, ATruncatedOrOverlappingImageIsAnError) {
    test::ScratchDir dir("truncated");
    PeBytes b = test_image_bytes();
    dir.put("whole.exe", b.bytes);
    EXPECT_EQ(load_error(dir.path() / "whole.exe"), "(loaded)");
    const uint32_t text = b.section(".text");
    const uint32_t raw_at = b.u32(text + 20), raw_size = b.u32(text + 16);
    ASSERT_GT(raw_size, 0x200u);
    dir.put("cut.exe", b.bytes.substr(0, raw_at + raw_size / 2));
    const std::string cut = load_error(dir.path() / "cut.exe");
    EXPECT_NE(cut.find("section .text's file data"), std::string::npos) << cut;
    EXPECT_NE(cut.find("runs past the end of"), std::string::npos) << cut;
    EXPECT_NE(cut.find("the image is truncated"), std::string::npos) << cut;

    ASSERT_GE(b.count, 2);
    PeBytes overlap = b;
    const uint32_t second = b.sections + 40;
    overlap.put32(second + 12, b.u32(b.sections + 12)); // the second section at the first's address
    dir.put("overlap.exe", overlap.bytes);
    const std::string over = load_error(dir.path() / "overlap.exe");
    EXPECT_NE(over.find("overlaps another section in memory"), std::string::npos) << over;
}

TEST(Load, RefusesBadInput) {
    Machine m;
    EXPECT_THROW(m.load("/nonexistent/image.exe"), EmuError);
    EXPECT_THROW(m.load(test::test_image(), Machine::teb_address), EmuError); // on the system region
    EXPECT_THROW(m.load(test::test_image(), 0x00401001), EmuError);           // unaligned
    m.load(test::test_image());
    EXPECT_THROW(m.load(test::test_image()), EmuError); // one image per machine
}

} // namespace
} // namespace refcheck::emu
