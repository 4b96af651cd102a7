// The painter-order side of the browser checks (tests/browser/browser_check.py): for each view, the
// reimplementation's own frame (program order, no depth buffer, spec section 12) of the record
// seen from that camera, the pixels a glass or haze remap wrote (the workbench previews those with
// transparency, so they are not compared), and how many drawn faces lie on the plane of an
// earlier drawn face (a view is a coplanar view when some do).
//
//   workbench_reference DATA OUT   writes OUT/reversed/ (DATA with the vertex order of every
//                                  secondary face of the coplanar records reversed) and
//                                  OUT/reference.json.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "refcheck/harness/workbench.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/model_export.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"

namespace fs = std::filesystem;
using namespace refcheck;
using ojson = nlohmann::ordered_json;

namespace {

struct Data {
    explicit Data(const fs::path& root)
        : models(reimpl::ModelArchive::parse(reimpl::read_file_bytes(root / "3DDATA/3DOBJS.BIN"))),
          textures(reimpl::TextureArchive::parse(reimpl::read_file_bytes(root / "3DDATA/OBJTEXT.BIN"))),
          palette(reimpl::build_palette(reimpl::read_file_bytes(root / "3DPAL.RGB"), 0)),
          interpreter(models, textures), rasteriser(palette, textures) {}
    reimpl::ModelArchive models;
    reimpl::TextureArchive textures;
    reimpl::PaletteTables palette;
    reimpl::Interpreter interpreter;
    reimpl::Rasteriser rasteriser;
};

struct View {
    std::string name, group, site = "default";
    std::uint32_t record = 0;
    double yaw = 35, pitch = 25, zoom = 1;
    std::array<std::int32_t, 3> placement{};
    std::uint32_t state = 0;
};

// Rasterises face events, leaving out the remap types (6, 21) when `remaps` is false and the
// points and lines (0, 1, 9, 10) when `lines` is false.
class Painter final : public events::EventSink {
public:
    Painter(const reimpl::Rasteriser& r, reimpl::Frame& f, bool remaps, bool lines = true)
        : r_(r), f_(f), remaps_(remaps), lines_(lines) {}
    void emit(events::Event e) override {
        if (auto* face = std::get_if<events::FaceDraw>(&e)) {
            const bool remap = face->type == 6 || face->type == 21;
            const bool line = face->type == 0 || face->type == 1 || face->type == 9 || face->type == 10;
            if ((remaps_ || !remap) && (lines_ || !line)) r_.draw(*face, f_);
            faces.push_back(*face);
        }
    }
    std::vector<events::FaceDraw> faces;

private:
    const reimpl::Rasteriser& r_;
    reimpl::Frame& f_;
    bool remaps_, lines_;
};

std::string base64(const std::vector<std::uint8_t>& bytes) {
    static constexpr char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) |
                                (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                                (i + 2 < bytes.size() ? bytes[i + 2] : 0);
        out += k[(n >> 18) & 63];
        out += k[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? k[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? k[n & 63] : '=';
    }
    return out;
}

std::uint32_t find_record(const reimpl::ModelArchive& models, const std::string& name,
                          const std::string& description) {
    for (std::uint32_t r = 0; r < models.count(); ++r) {
        if (!models.populated(r)) continue;
        const auto& rec = models.record(r);
        if (!name.empty() && rec.name() == name) return r;
        if (!description.empty() && rec.description().find(description) != std::string::npos) return r;
    }
    throw std::runtime_error("no record named " + name + " / described " + description);
}

// The first records with a masked texture face (transparent holes).
std::vector<std::uint32_t> masked_records(Data& d, std::size_t wanted) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t r = 1; r < d.models.count() && out.size() < wanted; ++r) {
        if (!d.models.populated(r)) continue;
        for (const auto& [offset, in] : d.interpreter.program(r).instructions) {
            const auto* f = std::get_if<reimpl::FaceOperands>(&in.operands);
            if (f && (f->packet.type == 8 || f->packet.type == 16 || f->packet.type == 20)) {
                out.push_back(r);
                break;
            }
        }
    }
    return out;
}

// Reverses the vertex records of every secondary packet of `records` (the details on their walls).
void write_reversed(const fs::path& from, const fs::path& to, Data& d,
                    const std::set<std::uint32_t>& records) {
    fs::create_directories(to / "3DDATA");
    fs::copy_file(from / "3DDATA/OBJTEXT.BIN", to / "3DDATA/OBJTEXT.BIN",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(from / "3DPAL.RGB", to / "3DPAL.RGB", fs::copy_options::overwrite_existing);
    std::vector<std::uint8_t> bytes(d.models.bytes().begin(), d.models.bytes().end());
    for (const std::uint32_t r : records) {
        const reimpl::Program& p = d.interpreter.program(r);
        for (const auto& [offset, in] : p.instructions) {
            if (in.opcode != reimpl::Opcode::Secondary) continue;
            const reimpl::Packet& packet = std::get<reimpl::FaceOperands>(in.operands).packet;
            const std::size_t at = p.base + packet.offset + packet.info->header_size,
                              size = packet.info->vertex_size;
            const std::size_t n = packet.vertices.size();
            std::vector<std::uint8_t> copy(bytes.begin() + at, bytes.begin() + at + n * size);
            for (std::size_t k = 0; k < n; ++k) {
                std::copy_n(copy.begin() + (n - 1 - k) * size, size, bytes.begin() + at + k * size);
            }
        }
    }
    std::ofstream(to / "3DDATA/3DOBJS.BIN", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The silhouette pixels of a painter frame and what the engine wrote at each: a pixel is a
// silhouette pixel when its 3 x 3 neighbourhood holds surfaces of more than one plane (the sky
// counting as one), i.e. it lies within a pixel of where one surface ends in front of another or
// two planes meet. Returned as [pixel, colour written by each face in program order...].
ojson silhouettes(const Data& d, const reimpl::ModelExport& model,
                  const std::vector<events::FaceDraw>& faces) {
    std::map<std::pair<std::vector<std::int32_t>, std::uint32_t>, const reimpl::ExportedFace*> by_offset;
    for (const auto& f : model.faces) by_offset[{model.instances[f.instance].path, f.offset}] = &f;
    constexpr std::int64_t kSky = -1;
    constexpr std::int32_t kBand = 2; // pixels either side of a boundary between planes
    std::vector<std::int64_t> plane(reimpl::kFrameWidth * reimpl::kFrameHeight, kSky);
    std::vector<std::vector<std::uint8_t>> written(plane.size());
    for (const auto& e : faces) {
        const bool line = e.type == 0 || e.type == 1 || e.type == 9 || e.type == 10;
        const bool remap = e.type == 6 || e.type == 21;
        if (remap) continue; // not compared
        reimpl::Frame zero(0), full(255);
        d.rasteriser.draw(e, zero);
        d.rasteriser.draw(e, full);
        const auto* f = by_offset.at({e.path, e.offset});
        // A face collinear in model space has no plane and the viewer draws none of it (it covers
        // no area); the engine may still fill a sliver of its rounded screen vertices, which
        // counts as a surface of its own here.
        std::int64_t id = kSky - 1 - static_cast<std::int64_t>(&e - faces.data());
        for (const std::int32_t p : f->planes) {
            if (p >= 0) id = (std::int64_t{f->instance} << 32) | p;
            if (p >= 0) break;
        }
        for (std::size_t i = 0; i < plane.size(); ++i) {
            if (zero.pixels[i] == 0 && full.pixels[i] == 255) continue;
            written[i].push_back(zero.pixels[i]);
            if (!line) plane[i] = id;
        }
    }
    ojson out = ojson::array();
    for (std::int32_t y = 0; y < reimpl::kFrameHeight; ++y) {
        for (std::int32_t x = 0; x < reimpl::kFrameWidth; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * reimpl::kFrameWidth + x;
            bool edge = false;
            for (std::int32_t yy = std::max(0, y - kBand);
                 yy <= std::min(reimpl::kFrameHeight - 1, y + kBand); ++yy) {
                for (std::int32_t xx = std::max(0, x - kBand);
                     xx <= std::min(reimpl::kFrameWidth - 1, x + kBand); ++xx)
                    edge =
                        edge || plane[static_cast<std::size_t>(yy) * reimpl::kFrameWidth + xx] != plane[at];
            }
            if (!edge) continue;
            ojson entry = ojson::array({at});
            for (const std::uint8_t c : written[at]) entry.push_back(c);
            out.push_back(std::move(entry));
        }
    }
    return out;
}

ojson render(Data& d, const View& v) {
    const reimpl::ModelExport model = reimpl::export_model(d.interpreter, v.record);
    const harness::WorkbenchView base = harness::default_view(model);
    std::array<double, 3> target{};
    for (int i = 0; i < 3; ++i) target[i] = base.target[i] + v.placement[i];
    const reimpl::Camera camera = harness::orbit_camera(target, v.yaw, v.pitch, base.distance / v.zoom);
    // A program's order is a painter order for cameras outside the model (its decision planes
    // separate its parts); from inside, later faces behind earlier ones paint over them, which no
    // depth rule reproduces. A view whose camera is within the near distance of the model's box
    // is a mistake of this file.
    std::array<double, 3> lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    for (const auto& inst : model.instances) {
        for (const auto& p : inst.placed) {
            for (int i = 0; i < 3; ++i)
                lo[i] = std::min(lo[i], p[i] + v.placement[i]),
                hi[i] = std::max(hi[i], p[i] + v.placement[i]);
        }
    }
    bool inside = true;
    for (int i = 0; i < 3; ++i) {
        inside = inside && camera.position[i] > lo[i] - reimpl::kNearZ &&
                 camera.position[i] < hi[i] + reimpl::kNearZ;
    }
    if (inside)
        throw std::runtime_error(v.name + " (record " + std::to_string(v.record) +
                                 "): the camera is inside the model's box");
    reimpl::Transform placement;
    placement.position = v.placement;
    const reimpl::Instance root = reimpl::construct(d.models, v.record, placement);
    const reimpl::DrawInput input{camera, harness::kWorkbenchLight, v.state};
    reimpl::Frame frame, plain;
    Painter painter(d.rasteriser, frame, true), without(d.rasteriser, plain, false);
    d.interpreter.draw(root, input, painter);
    d.interpreter.draw(root, input, without);
    std::vector<std::uint8_t> lines(frame.pixels.size());
    // Pixels a point or line wrote, visible or painted over later (GL draws lines by its own rule).
    for (const auto& e : painter.faces) {
        if (!(e.type == 0 || e.type == 1 || e.type == 9 || e.type == 10)) continue;
        reimpl::Frame zero(0), full(255);
        d.rasteriser.draw(e, zero);
        d.rasteriser.draw(e, full);
        for (std::size_t i = 0; i < lines.size(); ++i)
            lines[i] = lines[i] || zero.pixels[i] != 0 || full.pixels[i] != 255;
    }
    std::vector<std::uint8_t> remapped(frame.pixels.size());
    for (std::size_t i = 0; i < remapped.size(); ++i) remapped[i] = frame.pixels[i] != plain.pixels[i];
    // Faces drawn on the plane of a face drawn before them (same instance, any triangle).
    std::map<std::pair<std::vector<std::int32_t>, std::uint32_t>, const reimpl::ExportedFace*> by_offset;
    for (const auto& f : model.faces) by_offset[{model.instances[f.instance].path, f.offset}] = &f;
    std::set<std::pair<std::uint32_t, std::int32_t>> seen;
    std::size_t coplanar = 0;
    for (const auto& e : painter.faces) {
        const auto it = by_offset.find({e.path, e.offset});
        if (it == by_offset.end()) continue;
        bool on_earlier = false;
        for (const std::int32_t p : it->second->planes) {
            if (p >= 0 && seen.count({it->second->instance, p})) on_earlier = true;
        }
        for (const std::int32_t p : it->second->planes) {
            if (p >= 0) seen.insert({it->second->instance, p});
        }
        coplanar += on_earlier ? 1 : 0;
    }
    std::size_t drawn = 0;
    for (const auto px : frame.pixels) drawn += px != reimpl::kClearColour;
    // The engine's screen vertex of every drawn corner (instance, vertex, sx, sy, z), which the
    // viewer's WB.engineScreen must reproduce exactly (wb.screen).
    std::map<std::vector<std::int32_t>, std::size_t> instance_of;
    for (std::size_t i = 0; i < model.instances.size(); ++i) instance_of[model.instances[i].path] = i;
    std::map<std::pair<std::size_t, std::uint8_t>, events::ScreenVertex> corners;
    for (const auto& e : painter.faces) {
        for (std::size_t k = 0; k < e.vertices.size(); ++k)
            corners[{instance_of.at(e.path), e.vertices[k]}] = e.screen[k];
    }
    // The faces drawn, in program order (instance, program offset): the viewer's walk must agree.
    ojson order = ojson::array();
    for (const auto& e : painter.faces) order.push_back({instance_of.at(e.path), e.offset});
    ojson screen = ojson::array();
    for (const auto& [key, s] : corners) screen.push_back({key.first, key.second, s.sx, s.sy, s.z});
    return {{"name", v.name},
            {"group", v.group},
            {"site", v.site},
            {"record", v.record},
            {"state", v.state},
            {"placement", v.placement},
            {"camera", {{"position", camera.position}, {"rotation", camera.rotation}}},
            {"light", harness::kWorkbenchLight.direction},
            {"faces", painter.faces.size()},
            {"coplanar_faces", coplanar},
            {"drawn_pixels", drawn},
            {"screen", std::move(screen)},
            {"silhouettes", silhouettes(d, model, painter.faces)},
            {"order", std::move(order)},
            {"frame", base64(frame.pixels)},
            {"remapped", base64(remapped)},
            {"lines", base64(lines)}};
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: workbench_reference DATA OUT\n";
        return 2;
    }
    try {
        const fs::path data = argv[1], out = argv[2];
        Data d(data);
        const std::uint32_t city0 = find_record(d.models, "citblkd0", ""),
                            city1 = find_record(d.models, "citblkd1", "");
        const std::uint32_t office = find_record(d.models, "", "office building");
        const std::uint32_t block = find_record(d.models, "", "building with rooftop plant");
        const std::set<std::uint32_t> coplanar_records{city0, city1, office};
        write_reversed(data, out / "reversed", d, coplanar_records);
        Data reversed(out / "reversed");

        std::vector<View> views;
        const std::array<std::int32_t, 3> large{3000000, 0, -2500000}, larger{-40000000, 12000, 60000000};
        for (const std::uint32_t r : {city0, city1}) {
            for (const double yaw : {20.0, 110.0, 200.0, 290.0})
                views.push_back({"yaw " + std::to_string(int(yaw)), "coplanar", "default", r, yaw, 20});
            for (const double zoom : {0.6, 1.6, 2.4})
                views.push_back({"zoom " + std::to_string(zoom), "coplanar", "default", r, 55, 15, zoom});
            for (const double yaw : {60.0, 240.0})
                views.push_back({"large coordinates", "coplanar", "default", r, yaw, 25, 1, large});
            views.push_back({"larger coordinates, zoom 2", "coplanar", "default", r, 150, 10, 2, larger});
            for (const double yaw : {30.0, 120.0, 210.0, 300.0})
                views.push_back({"reversed vertex order", "coplanar", "reversed", r, yaw, 20});
            views.push_back({"reversed, zoom 2.5, large", "coplanar", "reversed", r, 75, 12, 2.5, large});
        }
        for (const double yaw : {40.0, 130.0, 220.0, 310.0})
            views.push_back({"office", "coplanar", "default", office, yaw, 18});
        views.push_back({"office reversed", "coplanar", "reversed", office, 85, 22});
        views.push_back({"office reversed zoom", "coplanar", "reversed", office, 170, 8, 2.2});
        // Foreground occlusion: rooftop plant in front of its building, rotors over a fuselage.
        views.push_back({"rooftop plant", "occlusion", "default", block, 30, 6, 1.3});
        views.push_back({"rotors over the body", "occlusion", "default", find_record(d.models, "ah64a", ""),
                         20, 55, 1.4});
        for (const std::uint32_t r : masked_records(d, 3))
            views.push_back({"masked texture", "holes", "default", r, 35, 20, 1.5});
        // One model of each kind.
        views.push_back({"building", "kind", "default", city0, 215, 30});
        views.push_back({"aircraft", "kind", "default", find_record(d.models, "a10", ""), 35, 25});
        views.push_back({"vehicle", "kind", "default", find_record(d.models, "", "tank"), 35, 25});
        views.push_back({"tree", "kind", "default", find_record(d.models, "", "tree"), 35, 15});
        views.push_back({"ship", "kind", "default", find_record(d.models, "ffg7", ""), 35, 25});

        ojson list = ojson::array();
        for (const View& v : views) list.push_back(render(v.site == "reversed" ? reversed : d, v));
        std::vector<std::uint8_t> rgb;
        for (const auto& c : d.palette.rgb) rgb.insert(rgb.end(), c.begin(), c.end());
        std::set<std::uint32_t> records;
        for (const View& v : views) records.insert(v.record);
        ojson doc{{"palette", base64(rgb)}, {"records", records}, {"views", std::move(list)}};
        std::ofstream(out / "reference.json") << doc.dump(1) << "\n";
        std::cout << views.size() << " views, records";
        for (const auto r : records) std::cout << " " << r;
        std::cout << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "workbench_reference: " << e.what() << "\n";
        return 2;
    }
}
