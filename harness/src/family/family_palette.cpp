// Palette family: for each selected warzone the original's initialise_3d_palette_ builds its tables;
// the reimplementation builds its own from the same 3DPAL.RGB; every table compared byte for byte.
#include "family/families.hpp"
#include "refcheck/harness/phase.hpp"

#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/palette.hpp"

#include <stdexcept>
#include <string>

namespace refcheck::harness {

void run_palette(CaseContext& ctx) {
    Original& o = ctx.original;
    ojson per_warzone = ojson::array();
    for (const std::int32_t wz : ctx.c.warzones) {
        ctx.begins("warzone " + std::to_string(wz));
        const auto result = o.call("initialise_3d_palette_", {static_cast<std::uint32_t>(wz)});
        if (result.ok() && result.eax != 0) {
            // Both sides refuse a broken 3DPAL.RGB: an error, the reimplementation's validator first
            // (archive and byte offset), the original's reaction second, as for the archives at boot.
            try {
                (void)reimpl::build_palette(ctx.palette, static_cast<std::uint32_t>(wz));
            } catch (const reimpl::FormatError& e) {
                throw std::runtime_error(std::string("the data root is invalid: ") + e.what() +
                                         "\n  the original agrees: initialise_3d_palette_(" +
                                         std::to_string(wz) + ") returned " + std::to_string(result.eax));
            }
        }
        require_success(ctx, result, "initialise_3d_palette_(" + std::to_string(wz) + ")", Expect::Zero);
        const reimpl::PaletteTables t = in_phase(Phase::reimpl, [&] {
            return reimpl::build_palette(ctx.palette, static_cast<std::uint32_t>(wz));
        });
        std::vector<std::uint8_t> rgb;
        for (const auto& c : t.rgb) rgb.insert(rgb.end(), c.begin(), c.end());
        const std::string suffix = " (warzone " + std::to_string(wz) + ")";
        auto table = [&](const std::string& global, std::span<const std::uint8_t> reimpl_bytes) {
            compare_buffers(ctx, "table", global + suffix, o.bytes(o.address(global), reimpl_bytes.size()),
                            reimpl_bytes);
        };
        table("palette_rgb", rgb);
        table("intensity_table", t.intensity);
        table("ramp_table", t.ramp);
        table("glass_table", t.glass);
        table("haze_table", t.haze);
        per_warzone.push_back(wz);
    }
    ctx.report["metrics"] = {{"warzones", per_warzone}, {"tables", 5 * per_warzone.size()}};
}

} // namespace refcheck::harness
