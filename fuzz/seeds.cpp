// fuzz_seeds OUT SMALL_DATA [--copy TARGET FILE]... [--pair TARGET FILE_A FILE_B]...
// Writes the generated seed corpora of the fuzz targets into OUT/<target>/ (the build runs it; the
// hand-made edge cases are committed in fuzz/corpus/<target>/):
//   model_archive, program, interpreter  one archive per record of the small 3DOBJS.BIN, holding that
//                                        record and the records it attaches (same slots); and the
//                                        archive whole for model_archive
//   texture_archive                      the small OBJTEXT.BIN whole, and one archive per texture
//   palette                              3DPAL.RGB, and with each warzone byte appended
//   --copy TARGET FILE                   FILE as a seed of TARGET (cases, profiles, images)
//   --pair TARGET A B                    A, the separator, B (report_diff: two run indexes)
#include "fuzz_support.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace refcheck::reimpl;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_u32(Bytes& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// An archive with the same offset-table layout holding only `slots` (record bytes copied whole: their
// internal offsets are relative to the record).
Bytes sub_archive(std::span<const std::uint8_t> bytes, const OffsetTable& table,
                  const std::set<std::uint32_t>& slots) {
    const std::uint32_t count = *slots.rbegin() + 1;
    Bytes out(4 + 4 * std::size_t{count}, 0);
    put_u32(out, 0, count);
    for (std::uint32_t s : slots) {
        const Extent e = table.extent(s);
        put_u32(out, 4 + 4 * std::size_t{s}, static_cast<std::uint32_t>(out.size()));
        out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(e.begin),
                   bytes.begin() + static_cast<std::ptrdiff_t>(e.end));
    }
    return out;
}

void closure(const ModelArchive& a, std::uint32_t model, std::set<std::uint32_t>& out) {
    if (!out.insert(model).second) return;
    for (const Attachment& at : a.record(model).attachments)
        if (at.model != 0 && a.populated(at.model)) closure(a, at.model, out);
}

void seed(const fs::path& out, const std::string& target, const std::string& name,
          std::span<const std::uint8_t> b) {
    refcheck::fuzz::write_file(out / target / name, b);
}

} // namespace

int main(int argc, char** argv) try {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: fuzz_seeds OUT SMALL_DATA [--copy TARGET FILE]... [--pair TARGET A B]...\n");
        return 2;
    }
    const fs::path out = argv[1], small = argv[2];
    fs::remove_all(out);

    const Bytes models = read(small / "3DDATA" / "3DOBJS.BIN");
    const ModelArchive archive = ModelArchive::parse(models);
    for (const char* target : {"model_archive", "program", "interpreter"}) {
        // The whole archive for the archive reader only: the program and walk targets stay fast on
        // one record (and what it attaches) per input.
        if (std::string(target) == "model_archive") seed(out, target, "small-3DOBJS.BIN", models);
        for (std::uint32_t i = 0; i < archive.count(); ++i) {
            if (!archive.populated(i)) continue;
            std::set<std::uint32_t> slots;
            closure(archive, i, slots);
            seed(out, target, "record-" + std::to_string(i), sub_archive(models, archive.table(), slots));
        }
    }

    const Bytes textures = read(small / "3DDATA" / "OBJTEXT.BIN");
    const TextureArchive tex = TextureArchive::parse(textures);
    seed(out, "texture_archive", "small-OBJTEXT.BIN", textures);
    for (std::uint32_t i = 0; i < tex.count(); ++i)
        if (tex.populated(i))
            seed(out, "texture_archive", "texture-" + std::to_string(i),
                 sub_archive(textures, tex.table(), {i}));

    Bytes palette = read(small / "3DPAL.RGB");
    seed(out, "palette", "small-3DPAL.RGB", palette);
    palette.resize(kPaletteFileSize);
    for (std::uint8_t w = 0; w < 4; ++w) {
        Bytes p = palette;
        p.push_back(w);
        seed(out, "palette", "warzone-" + std::to_string(w), p);
    }

    for (int i = 3; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--copy" && i + 2 < argc) {
            const fs::path file = argv[i + 2];
            seed(out, argv[i + 1], file.filename().string(), read(file));
            i += 2;
        } else if (flag == "--pair" && i + 3 < argc) {
            Bytes b = read(argv[i + 2]);
            b.insert(b.end(), refcheck::fuzz::kSeparator.begin(), refcheck::fuzz::kSeparator.end());
            const Bytes second = read(argv[i + 3]);
            b.insert(b.end(), second.begin(), second.end());
            seed(out, argv[i + 1], "pair-" + std::to_string(i), b);
            i += 3;
        } else {
            std::fprintf(stderr, "fuzz_seeds: bad argument %s\n", flag.c_str());
            return 2;
        }
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 1;
}
