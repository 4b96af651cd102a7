// The program walk: construction, the interpreter (draw_3d_object_, events rasterised into a frame
// with the small data root's palette and textures) and the shadow renderer, over the populated records
// of a 3DOBJS.BIN, from two views, Gouraud on and off, two animation states. The contract
// (interpreter.hpp, shadow.hpp): invalid data is a FormatError; events before it stay emitted.
#include "fuzz_support.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/shadow.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

using namespace refcheck::reimpl;

namespace {
constexpr std::uint32_t kMaxRecords = 8;      // per input, so one input stays fast
constexpr std::uint32_t kMaxInstances = 4096; // the trees drawn (see instance_bound)

const TextureArchive& textures() {
    static const std::vector<std::uint8_t> bytes = refcheck::fuzz::small_data_file("3DDATA/OBJTEXT.BIN");
    static const TextureArchive archive = TextureArchive::parse(bytes);
    return archive;
}
const PaletteTables& palette() {
    static const PaletteTables tables = build_palette(refcheck::fuzz::small_data_file("3DPAL.RGB"), 0);
    return tables;
}

// Instances construct() would build for `model` (att.depth), counted without building them and
// capped at `cap`.
std::uint64_t instance_bound(const ModelArchive& a, std::uint32_t model, std::uint32_t depth,
                             std::uint64_t cap) {
    std::uint64_t n = 1;
    if (depth >= kMaxInstanceDepth) return n;
    for (const Attachment& at : a.record(model).attachments) {
        if (at.model == 0 || !a.populated(at.model)) continue;
        n += instance_bound(a, at.model, depth + 1, cap);
        if (n > cap) return n;
    }
    return n;
}

Camera camera(bool back) {
    Camera c;
    c.position = {0, 200, back ? 3000 : -3000};
    if (back) c.rotation = {-kQ14One, 0, 0, 0, kQ14One, 0, 0, 0, -kQ14One};
    return c;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const TextureArchive& tex = textures();
    const Rasteriser rasteriser(palette(), tex);
    const auto parsed = refcheck::fuzz::unless_refused<FormatError>([&] {
        return ModelArchive::parse({data, size});
    });
    if (!parsed) return 0;
    const ModelArchive& archive = *parsed;
    Interpreter gouraud(archive, tex, DrawOptions{true});
    Interpreter flat(archive, tex, DrawOptions{false});
    ShadowRenderer shadows(archive);
    std::uint32_t done = 0;
    for (std::uint32_t i = 0; i < archive.count() && done < kMaxRecords; ++i) {
        if (!archive.populated(i)) continue;
        ++done;
        if (instance_bound(archive, i, 0, kMaxInstances) > kMaxInstances) continue;
        const Instance root = construct(archive, i, Transform{});
        for (std::uint32_t view = 0; view < 2; ++view) {
            const DrawInput input{camera(view == 1), Light{{0, -kQ14One, 0}}, view == 0 ? 0u : 0xffffffffu};
            Frame frame;
            FrameSink sink(rasteriser, frame);
            try {
                (view == 0 ? gouraud : flat).draw(root, input, sink);
            } catch (const FormatError&) {}
            Frame shadow;
            try {
                (void)shadows.draw(root, input.camera, ShadowParams{}, input.state, shadow);
            } catch (const FormatError&) {}
        }
    }
    return 0;
}
