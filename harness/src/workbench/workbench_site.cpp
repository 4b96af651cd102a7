// Writes the workbench site (workbench.hpp): data as .js files assigning globals, thumbnails from
// the reimplementation's rasteriser, the embedded viewer files.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>

#include <fmt/format.h>

#include "report/png.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/out_folder.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"
#include "refcheck/harness/workbench.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/disassembler.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"

namespace refcheck::harness {
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

reimpl::Camera orbit_camera(const std::array<double, 3>& target, double yaw, double pitch, double distance) {
    const double y = yaw * std::numbers::pi / 180, p = pitch * std::numbers::pi / 180;
    const std::array<double, 3> f{std::sin(y) * std::cos(p), -std::sin(p), std::cos(y) * std::cos(p)};
    const std::array<double, 3> r{std::cos(y), 0, -std::sin(y)};
    const std::array<double, 3> u{f[1] * r[2] - f[2] * r[1], f[2] * r[0] - f[0] * r[2],
                                  f[0] * r[1] - f[1] * r[0]};
    reimpl::Camera c;
    const std::array<const std::array<double, 3>*, 3> rows{&r, &u, &f};
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k)
            c.rotation[i * 3 + k] = static_cast<std::int32_t>(std::lround((*rows[i])[k] * 16384));
        c.position[i] = static_cast<std::int32_t>(std::lround(target[i] - f[i] * distance));
    }
    return c;
}

WorkbenchView default_view(const reimpl::ModelExport& model) {
    WorkbenchView view;
    std::array<double, 3> lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    bool any = false;
    for (const auto& inst : model.instances) {
        for (const auto& p : inst.placed) {
            any = true;
            for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], p[i]), hi[i] = std::max(hi[i], p[i]);
        }
    }
    if (!any) lo = hi = {0, 0, 0};
    for (int i = 0; i < 3; ++i) view.target[i] = std::round((lo[i] + hi[i]) / 2);
    for (const auto& inst : model.instances) {
        for (const auto& p : inst.placed) {
            const double dx = p[0] - view.target[0], dy = p[1] - view.target[1], dz = p[2] - view.target[2];
            view.radius = std::max(view.radius, std::sqrt(dx * dx + dy * dy + dz * dz));
        }
    }
    view.distance = std::max(256.0 / 85.0 * view.radius, view.radius + 256.0);
    view.camera = orbit_camera(view.target, view.yaw, view.pitch, view.distance);
    view.light = kWorkbenchLight;
    return view;
}

namespace {

std::string base64(std::span<const std::uint8_t> bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) |
                                (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                                (i + 2 < bytes.size() ? bytes[i + 2] : 0);
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
    }
    return out;
}

// Whether `name` is a file the workbench writes per record: r<digits>.js or r<digits>.png.
bool record_file(const std::string& name, const std::string& ext) {
    if (name.size() <= 1 + ext.size() || name[0] != 'r' || !name.ends_with(ext)) return false;
    const std::string digits = name.substr(1, name.size() - 1 - ext.size());
    return digits.find_first_not_of("0123456789") == std::string::npos;
}

class SiteWriter {
public:
    // The per-record files of an earlier site in the folder are removed first (only those the
    // workbench writes): a record the new site lacks kept its old page, from other archives, and a
    // report's link drew it as the run's record.
    explicit SiteWriter(fs::path out) : out_(std::move(out)) {
        for (const auto& [folder, ext] : {std::pair{"records", ".js"}, std::pair{"thumbs", ".png"}}) {
            std::error_code ec;
            if (fs::is_symlink(out_ / folder, ec) || !fs::is_directory(out_ / folder, ec)) continue;
            std::vector<fs::path> old;
            for (const auto& e : fs::directory_iterator(out_ / folder, ec))
                if (e.is_regular_file(ec) && !e.is_symlink(ec) &&
                    record_file(e.path().filename().string(), ext))
                    old.push_back(e.path());
            for (const auto& f : old) fs::remove(f);
        }
    }
    void write(const std::string& name, std::string_view bytes) {
        write_output_file(out_, name, bytes); // through no link out of the folder
        bytes_ += bytes.size();
    }
    // A data file: `global` (a property path under window) assigned `value`.
    void script(const std::string& name, const std::string& assignment, const ojson& value) {
        // A name or description that is not UTF-8 (a 1998 archive's code page) is shown with U+FFFD
        // for the bytes that are not: it stopped the whole site with nlohmann's type_error.
        write(name, "\"use strict\";\n" + assignment + " = " +
                        value.dump(-1, ' ', false, ojson::error_handler_t::replace) + ";\n");
    }
    std::uintmax_t bytes() const { return bytes_; }

private:
    fs::path out_;
    std::uintmax_t bytes_ = 0;
};

ojson palette_json(const reimpl::PaletteTables& palette, std::uint32_t warzone) {
    std::vector<std::uint8_t> rgb;
    for (const auto& c : palette.rgb) rgb.insert(rgb.end(), c.begin(), c.end());
    return {{"warzone", warzone},
            {"rgb", base64(rgb)},
            {"intensity", base64(palette.intensity)},
            {"glass", base64(palette.glass)},
            {"haze", base64(palette.haze)}};
}

ojson textures_json(const reimpl::TextureArchive& textures) {
    ojson out = ojson::object();
    for (std::uint32_t slot = 0; slot < textures.count(); ++slot) {
        const reimpl::Texture* t = textures.find(slot);
        if (t == nullptr) continue;
        out[std::to_string(slot)] = {
            {"stride", t->stride}, {"height", t->height}, {"pixels", base64(t->pixels)}};
    }
    return out;
}

std::vector<std::uint8_t> thumbnail(reimpl::Interpreter& interpreter, const reimpl::Rasteriser& rasteriser,
                                    const reimpl::PaletteTables& palette, std::uint32_t record,
                                    const WorkbenchView& view) {
    reimpl::Frame frame;
    reimpl::FrameSink sink(rasteriser, frame);
    const reimpl::Instance root = reimpl::construct(interpreter.models(), record, reimpl::Transform{});
    interpreter.draw(root, reimpl::DrawInput{view.camera, view.light, 0}, sink);
    std::vector<std::uint8_t> rgb;
    for (const auto& c : palette.rgb) rgb.insert(rgb.end(), c.begin(), c.end());
    return encode_png(reimpl::kFrameWidth, reimpl::kFrameHeight, to_rgb(frame.pixels, rgb));
}

ojson view_json(const WorkbenchView& v) {
    return {{"target", v.target},
            {"radius", v.radius},
            {"yaw", v.yaw},
            {"pitch", v.pitch},
            {"distance", v.distance},
            {"camera", {{"position", v.camera.position}, {"rotation", v.camera.rotation}}},
            {"light", v.light.direction}};
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return lines;
}

} // namespace

WorkbenchSummary write_workbench(const WorkbenchOptions& options) {
    // Found as the guest finds them (read_data_archive: case-insensitive, links confined, regular files).
    const auto archive = [&options](std::string_view guest_name, std::string_view name) {
        return read_data_archive(options.data, guest_name, name);
    };
    const std::vector<std::uint8_t> objects = archive("3DDATA\\3DOBJS.BIN", "3DOBJS.BIN");
    const std::string objects_sha256 = sha256_hex(objects); // record pages compare a report's with it
    const auto models = reimpl::ModelArchive::parse(objects);
    const auto textures = reimpl::TextureArchive::parse(archive("3DDATA\\OBJTEXT.BIN", "OBJTEXT.BIN"));
    const auto palette = reimpl::build_palette(archive("3DPAL.RGB", "3DPAL.RGB"), options.warzone);
    reimpl::Interpreter interpreter(models, textures);
    const reimpl::Rasteriser rasteriser(palette, textures);

    std::vector<std::uint32_t> records;
    if (options.records) {
        records = *options.records;
    } else {
        for (std::uint32_t r = 0; r < models.count(); ++r) {
            if (models.populated(r)) records.push_back(r);
        }
    }
    SiteWriter site(options.out);
    WorkbenchSummary summary;
    ojson index = ojson::array();
    for (const std::uint32_t r : records) {
        ojson entry{{"record", r}};
        if (!models.populated(r)) {
            summary.errors.emplace_back(r, fmt::format("record {} is not populated", r));
            entry["error"] = summary.errors.back().second;
            index.push_back(std::move(entry));
            continue;
        }
        const reimpl::ModelRecord& rec = models.record(r);
        entry["name"] = rec.name();
        entry["description"] = rec.description();
        entry["encoding"] = rec.encoding == reimpl::Encoding::Grid ? "grid" : "s16";
        entry["next"] = rec.header.next;
        try {
            const reimpl::ModelExport model = reimpl::export_model(interpreter, r);
            const WorkbenchView view = default_view(model);
            ojson data = workbench_json(model, models);
            data["view"] = view_json(view);
            data["listing"] = split_lines(reimpl::dump_record(models, r, &textures));
            const std::string file = fmt::format("records/r{:04}.js", r);
            site.script(file, fmt::format("(window.WB_RECORDS = window.WB_RECORDS || {{}})[{}]", r), data);
            std::size_t triangles = 0;
            for (const auto& f : model.faces) triangles += f.triangles.size();
            entry["faces"] = model.faces.size();
            entry["triangles"] = triangles;
            entry["instances"] = model.instances.size();
            entry["states"] = model.states.size();
            if (options.thumbnails) {
                const auto png = thumbnail(interpreter, rasteriser, palette, r, view);
                const std::string thumb = fmt::format("thumbs/r{:04}.png", r);
                site.write(thumb, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
                entry["thumb"] = thumb;
            }
            ++summary.records;
            summary.faces += model.faces.size();
            summary.triangles += triangles;
        } catch (const reimpl::FormatError& e) {
            summary.errors.emplace_back(r, e.what());
            entry["error"] = e.what();
        }
        index.push_back(std::move(entry));
    }
    site.script("data/index.js", "window.WB_INDEX",
                {{"data", options.data.filename().string()},
                 {"archives", {{"3DDATA/3DOBJS.BIN", objects_sha256}}},
                 {"records", std::move(index)}});
    site.script("data/palette.js", "window.WB_PALETTE", palette_json(palette, options.warzone));
    site.script("data/textures.js", "window.WB_TEXTURES", textures_json(textures));
    for (const WorkbenchAsset& asset : workbench_assets()) site.write(asset.name, asset.content);
    summary.bytes = site.bytes();
    return summary;
}

} // namespace refcheck::harness
