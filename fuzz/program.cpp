// The draw-program decoder and the disassembler of `refcheck dump` over every record of a 3DOBJS.BIN,
// with and without the texture check (the small data root's OBJTEXT.BIN). The contract (program.hpp):
// a bad program is a FormatError naming archive, record and offset; never a crash, hang or overread.
#include "fuzz_support.hpp"
#include "refcheck/reimpl/disassembler.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

using namespace refcheck::reimpl;

namespace {
constexpr std::uint32_t kMaxRecords = 64; // per input, so one input stays fast

const TextureArchive& textures() {
    static const std::vector<std::uint8_t> bytes = refcheck::fuzz::small_data_file("3DDATA/OBJTEXT.BIN");
    static const TextureArchive archive = TextureArchive::parse(bytes);
    return archive;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const TextureArchive& tex = textures();
    const auto parsed = refcheck::fuzz::unless_refused<FormatError>([&] {
        return ModelArchive::parse({data, size});
    });
    if (!parsed) return 0;
    const ModelArchive& archive = *parsed;
    std::uint32_t done = 0;
    for (std::uint32_t i = 0; i < archive.count() && done < kMaxRecords; ++i) {
        if (!archive.populated(i)) continue;
        ++done;
        try {
            const Program p = decode_program(archive, i);
            for (const auto& [offset, in] : p.instructions) {
                if (offset != in.offset || in.bytes.size() != in.size) __builtin_trap();
                (void)in.next();
                (void)in.branches();
            }
            (void)disassemble(p);
        } catch (const FormatError&) {}
        try {
            (void)dump_record(archive, i, &tex);
        } catch (const FormatError&) {}
    }
    return 0;
}
