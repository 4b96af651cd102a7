// The model workbench (issue 16): a static site that opens from file:// with no server. Every
// record the reimplementation renders, exported by reimpl/model_export, is written as a .js file
// that assigns a global (no fetch of local files), beside the palette and intensity tables, the
// textures, an index with one thumbnail per record (a painter-order frame of the reimplementation's
// rasteriser) and the viewer (WebGL 2, harness/workbench/, embedded in the binary).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "refcheck/reimpl/model_export.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::harness {

struct WorkbenchOptions {
    std::filesystem::path data;                        // data root (3DDATA/, 3DPAL.RGB)
    std::filesystem::path out;                         // the site's folder
    std::optional<std::vector<std::uint32_t>> records; // default: every populated record
    std::uint32_t warzone = 0;                         // pal.warzone: the Fort palette by default
    bool thumbnails = true;
};

struct WorkbenchSummary {
    std::size_t records = 0;
    std::size_t faces = 0;
    std::size_t triangles = 0;
    std::uintmax_t bytes = 0;                                  // everything written
    std::vector<std::pair<std::uint32_t, std::string>> errors; // records that could not be exported
};

// Writes the site. Throws on an unreadable data root or an unwritable folder; a record the
// reimplementation rejects is listed in the index with its error (and in `errors`).
WorkbenchSummary write_workbench(const WorkbenchOptions& options);

// wb.camera: a camera at `distance` from `target`, turned by yaw about world y and pitched down
// by `pitch` (degrees); rows right, up, forward rounded to Q14 (types.hpp, Camera).
reimpl::Camera orbit_camera(const std::array<double, 3>& target, double yaw, double pitch, double distance);

// wb.default_view: the opening view and the thumbnail's: yaw 35, pitch 25, the placed vertices'
// bounding sphere about 85 pixels in radius, the light of wb.light.
struct WorkbenchView {
    std::array<double, 3> target{};
    double radius = 0;
    double yaw = 35, pitch = 25, distance = 0;
    reimpl::Camera camera;
    reimpl::Light light;
};
WorkbenchView default_view(const reimpl::ModelExport& model);
inline constexpr reimpl::Light kWorkbenchLight{{6689, 13377, 6689}};

// The record's data as the viewer reads it (docs/formats/apache-3d.md, section 20).
nlohmann::ordered_json workbench_json(const reimpl::ModelExport& model, const reimpl::ModelArchive& archive);

// The viewer's static files, embedded at build time: {name, content}.
struct WorkbenchAsset {
    const char* name;
    const char* content;
};
std::vector<WorkbenchAsset> workbench_assets();

} // namespace refcheck::harness
