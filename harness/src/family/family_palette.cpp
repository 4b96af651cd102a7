// Palette family: for each selected warzone the original's initialise_3d_palette_ builds its tables;
// the reimplementation builds its own from the same 3DPAL.RGB; every table compared byte for byte.
#include "family/families.hpp"
#include "refcheck/harness/phase.hpp"

#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/palette.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace refcheck::harness {

namespace {

// pal.warzone: the reimplementation's answer for a warzone, as initialise_3d_palette_'s result (0
// built, 1 refused).
std::int64_t reimpl_result(std::int32_t warzone) {
    try {
        (void)reimpl::warzone_colours(static_cast<std::uint32_t>(warzone));
        return 0;
    } catch (const std::invalid_argument&) {
        return 1;
    }
}

// The reimplementation's reason for refusing a warzone (reimpl_result): no such warzone.
const std::string kWarzoneReason = "palette_warzone";

EventRecord palette_result(std::int32_t warzone, std::int64_t result,
                           std::optional<std::string> reason = {}) {
    return rejection_event("initialise_3d_palette_(" + std::to_string(warzone) + ")", result,
                           std::move(reason));
}

} // namespace

void run_palette(CaseContext& ctx) {
    Original& o = ctx.original;
    ojson per_warzone = ojson::array(), refused = ojson::array();
    // The tables as the last warzone the reimplementation built left them: what a refused warzone
    // must leave in the original's tables (pal.warzone: "change nothing").
    std::optional<reimpl::PaletteTables> built;
    std::uint64_t tables = 0;
    for (const std::int32_t wz : ctx.c.warzones) {
        // One input a warzone: the palette file's label, its refusal (when refused), then its five
        // tables, in one stream.
        const std::string input = "warzone " + std::to_string(wz);
        ctx.begins(input);
        const auto result = o.call("initialise_3d_palette_", {static_cast<std::uint32_t>(wz)});
        const std::int64_t refuses = reimpl_result(wz);
        // The palette file as the data root holds it, first in each warzone's stream: a label of the
        // input (the same bytes on both sides), which marks the cases whose file is longer than its
        // 672 bytes (pal.file.layout: the rest is ignored).
        const EventRecord file = buffer_event("archive", "3DPAL.RGB", ctx.palette);
        std::vector<EventRecord> original_leading{file}, reimpl_leading{file};
        if (refuses) {
            // A warzone past 0..3: both sides must refuse it (result 1), and the original's tables
            // must be what the warzone before it built.
            if (!result.ok())
                throw OriginalFailed("initialise_3d_palette_ faulted: " + result.fault->message);
            // Each side's reason where the original's profile names it (initialise_error's
            // "palette_warzone"): the result alone matched an original refusing for another reason
            // (one that cannot open 3DPAL.RGB refuses every warzone).
            const std::optional<std::string> why = initialise_error_name(o, kWarzoneReason);
            original_leading.push_back(palette_result(wz, result.eax, why));
            reimpl_leading.push_back(
                palette_result(wz, refuses, why ? std::optional<std::string>(kWarzoneReason) : std::nullopt));
            refused.push_back(wz);
        } else if (result.ok() && result.eax != 0) {
            // Both sides refuse a broken 3DPAL.RGB: an error, the reimplementation's validator first
            // (archive and byte offset), the original's reaction second, as for the archives at boot.
            try {
                if (auto missing = ctx.missing_archive("3DPAL.RGB")) throw *missing;
                (void)reimpl::build_palette(ctx.palette, static_cast<std::uint32_t>(wz));
            } catch (const reimpl::FormatError& e) {
                throw std::runtime_error(std::string("the data root is invalid: ") + e.what() +
                                         "\n  the original agrees: initialise_3d_palette_(" +
                                         std::to_string(wz) + ") returned " + std::to_string(result.eax));
            }
        }
        if (!refuses) {
            require_success(ctx, result, "initialise_3d_palette_(" + std::to_string(wz) + ")", Expect::Zero);
            built = in_phase(Phase::reimpl, [&] {
                return reimpl::build_palette(ctx.palette, static_cast<std::uint32_t>(wz));
            });
        }
        if (!built) { // refused before any warzone was built: no tables to hold it to
            if (refuses) compare_buffers(ctx, input, {}, original_leading, reimpl_leading);
            continue;
        }
        const reimpl::PaletteTables& t = *built;
        std::vector<std::uint8_t> rgb;
        for (const auto& c : t.rgb) rgb.insert(rgb.end(), c.begin(), c.end());
        const std::string suffix = " (warzone " + std::to_string(wz) + ")";
        // The original's table at the size its profile entry gives (the image's own extent), never at
        // the reimplementation's: a table built short or long differs in size, not in a prefix.
        std::vector<std::vector<std::uint8_t>> guest;
        std::vector<BufferPair> tables_compared;
        const std::pair<const char*, std::span<const std::uint8_t>> each[] = {
            {"palette_rgb", rgb},
            {"intensity_table", t.intensity},
            {"ramp_table", t.ramp},
            {"glass_table", t.glass},
            {"haze_table", t.haze}};
        guest.reserve(std::size(each));
        for (const auto& [global, reimpl_bytes] : each) {
            guest.push_back(o.bytes(o.address(global), o.profile().data.at(global).size));
            tables_compared.push_back({"table", global + suffix, guest.back(), reimpl_bytes});
        }
        compare_buffers(ctx, input, tables_compared, original_leading, reimpl_leading);
        tables += 5;
        if (!refuses) per_warzone.push_back(wz);
    }
    ctx.report["metrics"] = {{"warzones", per_warzone}, {"tables", tables}, {"warzones_refused", refused}};
}

} // namespace refcheck::harness
