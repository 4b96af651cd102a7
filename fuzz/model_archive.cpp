// 3DOBJS.BIN: the offset table, every record's header and blocks, the attachment-id and cycle checks,
// and relocation. The contract (model_archive.hpp): bad bytes give a FormatError, nothing else.
#include "fuzz_support.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/relocation.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

using namespace refcheck::reimpl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parsed = refcheck::fuzz::unless_refused<FormatError>([&] {
        return ModelArchive::parse({data, size});
    });
    if (!parsed) return 0;
    const ModelArchive& archive = *parsed;
    std::size_t names = 0;
    for (std::uint32_t i = 0; i < archive.count(); ++i) {
        if (!archive.populated(i)) continue;
        const ModelRecord& r = archive.record(i);
        names += r.name().size() + r.description().size() + r.vertices.size() + r.attachments.size();
    }
    try {
        check_attachment_cycles(archive);
    } catch (const FormatError&) {}
    const RelocatedModels relocated =
        relocate_models(archive, 0x10000000u + static_cast<std::uint32_t>(names));
    if (relocated.bytes.size() != size) __builtin_trap();
    return 0;
}
