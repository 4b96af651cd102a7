// Scene family: assembled frames (scene.*). Scripted sequences (scene_script.cpp) move the carrier
// and aircraft through the mobile sector map on both sides; every frame the original's draw_scene_
// runs under emulation with its terrain sampler replaced by the case's terrain, and its calls of
// build_mobile_queue_, shadow_plane_height_, draw_3d_object_shadow_ and draw_3d_object_ observed;
// the reimplementation's SceneRenderer draws the same frame. Per frame the two streams of calls
// (scene.observed) are compared first, then the frames pixel for pixel.
#include "family/face_witness.hpp"
#include "family/families.hpp"
#include "family/recorder.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/phase.hpp"
#include "family/mobile_world.hpp"
#include "family/placement.hpp"
#include "family/scene_script.hpp"

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/scene.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

namespace refcheck::harness {

namespace {

constexpr std::uint32_t kWidth = 320;

// ---- events of scene.observed, the same on both sides ----

EventRecord event(Name kind, std::vector<Field> fields) { return {kind, std::move(fields), 1, 0, {}}; }
EventRecord sample_event(std::int64_t x, std::int64_t z, std::int64_t h) {
    EventRecord e = event("terrain_sample", {{"x", x}, {"z", z}, {"height", h}});
    e.key_fields = 2;
    return e;
}
// `built`: whether the queued mobile has an instance to be drawn through (scene.instance): the
// original's `instance` field of its struct, the reimplementation's instance map (-1: the id is no
// mobile the case placed). Both follow the script's Actor::built (the harness writes the field after
// each move), so it is a label of the input, not a check: it marks the frames that exercise
// scene.instance, whose effect the object_draw, plane_query and shadow_draw events show.
EventRecord queue_event(std::int64_t index, std::int64_t id, std::int64_t built) {
    return event("scene_queue", {{"index", index}, {"id", id}, {"built", built}});
}
EventRecord plane_event(std::int64_t caster, std::int64_t terrain, std::int64_t height,
                        std::int64_t receiver) {
    return event(
        "plane_query",
        {{"caster", caster}, {"terrain_height", terrain}, {"height", height}, {"receiver", receiver}});
}
EventRecord shadow_event(std::int64_t caster, std::int64_t plane) {
    return event("shadow_draw", {{"caster", caster}, {"plane_height", plane}});
}
EventRecord object_event(std::int64_t id) { return event("object_draw", {{"id", id}}); }

// scene.terrain.face: a terrain triangle as the primary face routine is handed it: the packet
// (type, count, the header bytes after them, the vertex indices), the face level and each face
// vertex (u, v, level, screen x, y, z), and which routine (clipped: the partially visible one).
struct TerrainFaceSeen {
    bool clipped = false;
    std::int64_t type = 0, face_level = 0;
    std::vector<std::int64_t> material, vertices;
    FaceVertices at; // u, v, level, screen x, y, z per vertex
};
EventRecord terrain_face_event(TerrainFaceSeen f) {
    EventRecord e = event("terrain_face", {{"material", std::move(f.material)},
                                           {"clipped", f.clipped},
                                           {"type", f.type},
                                           {"vertices", std::move(f.vertices)},
                                           {"face_level", f.face_level},
                                           {"u", std::move(f.at.u)},
                                           {"v", std::move(f.at.v)},
                                           {"vertex_levels", std::move(f.at.levels)},
                                           {"screen_x", std::move(f.at.sx)},
                                           {"screen_y", std::move(f.at.sy)},
                                           {"screen_z", std::move(f.at.sz)}});
    return e;
}
template <typename T>
std::vector<std::int64_t> widened(const std::vector<T>& in) {
    return {in.begin(), in.end()};
}
EventRecord terrain_face_event(const events::FaceDraw& d) {
    FaceVertices at = screen_vertices(d.screen);
    at.u = widened(d.u), at.v = widened(d.v), at.levels = widened(d.vertex_levels);
    return terrain_face_event(
        {d.clipped, d.type, d.face_level, widened(d.material), widened(d.vertices), std::move(at)});
}

// A shadow as one side drew it, for the metrics (what the frames show), each side's own: the
// reimplementation's from its ShadowDrawn steps, the original's from its draw_3d_object_shadow_ calls
// (SceneRecorder). `pixels`: those the draw changed in its frame.
struct ShadowSeen {
    std::int64_t caster = 0;
    std::int32_t plane_height = 0, terrain_height = 0;
    std::uint32_t receiver = 0;
    std::uint64_t pixels = 0;
};
std::vector<ShadowSeen> reimpl_shadows(const std::vector<reimpl::SceneStep>& steps) {
    std::vector<ShadowSeen> out;
    for (const auto& step : steps)
        if (const auto* d = std::get_if<reimpl::ShadowDrawn>(&step))
            out.push_back({d->caster, d->plane_height, d->terrain_height, d->receiver, d->pixels});
    return out;
}

// Whether a queued id has an instance on the reimplementation's side (queue_event's `built`).
using BuiltOf = std::function<std::int64_t(std::uint32_t)>;

std::vector<EventRecord> reimpl_events(const std::vector<reimpl::SceneStep>& steps, const BuiltOf& built_of) {
    std::vector<EventRecord> out;
    for (const auto& step : steps) {
        if (const auto* s = std::get_if<reimpl::TerrainSample>(&step))
            out.push_back(sample_event(s->x, s->z, s->height));
        if (const auto* q = std::get_if<reimpl::QueueBuilt>(&step))
            for (std::size_t i = 0; i < q->ids.size(); ++i)
                out.push_back(queue_event(static_cast<std::int64_t>(i), q->ids[i], built_of(q->ids[i])));
        if (const auto* p = std::get_if<reimpl::PlaneQuery>(&step))
            out.push_back(plane_event(p->caster, p->terrain_height, p->height, p->receiver));
        if (const auto* d = std::get_if<reimpl::ShadowDrawn>(&step))
            out.push_back(shadow_event(d->caster, d->plane_height));
        if (const auto* o = std::get_if<reimpl::ObjectDrawn>(&step)) out.push_back(object_event(o->id));
        if (const auto* t = std::get_if<reimpl::TerrainDrawn>(&step))
            out.push_back(terrain_face_event(t->face));
    }
    return out;
}

// ---- both sides' mobiles, with the instances they are drawn through (scene.instance) ----

class SceneWorld {
public:
    SceneWorld(CaseContext& ctx, const reimpl::ModelArchive& models)
        : ctx_(ctx), o_(ctx.original), models_(models), world_(ctx.original, models),
          pos_at_(ctx.original.scratch(12)), rot_at_(ctx.original.scratch(36)),
          off_instance_(ctx.original.profile().offset_of("mobile", "instance")) {
        // Every script starts from an empty map: the original's after reset_mobiles_, with the
        // earlier scripts' mobiles still on it (abi.reset_mobiles), the reimplementation's new.
        if (world_.reset())
            after_reset_ = {sector_map_event(world_.original_occupied()),
                            sector_map_event(world_.reimpl_occupied())};
        else
            after_reset_ = {std::nullopt, sector_map_event(world_.reimpl_occupied())};
    }

    // The sectors each side left occupied by the reset, compared once, with the first input this
    // world is compared for (a world whose inputs are all left out compares none).
    void compare_reset(const std::string& input) {
        if (reset_compared_) return;
        reset_compared_ = true;
        std::vector<EventRecord> a, b = {after_reset_.second};
        if (after_reset_.first) a.push_back(*after_reset_.first);
        ctx_.events += a.size() + b.size();
        ctx_.comparator.compare(input, a, b);
    }

    // Puts an actor where it is at `frame` (arriving on frame 0), constructed anew on both sides; an
    // unbuilt one gets no instance on either side (the original's `instance` field 0).
    void place(const Actor& a, std::uint32_t frame) {
        const reimpl::Vec3 p = a.at(frame);
        if (frame == 0)
            world_.add(reimpl::Mobile{a.id, a.model, p, a.rotation});
        else
            world_.move(a.id, p);
        if (!a.built) {
            if (const auto at = world_.find_address(a.id)) o_.machine().write_u32(*at + off_instance_, 0);
            return;
        }
        o_.machine().write(pos_at_, pack_words(p));
        o_.machine().write(rot_at_, pack_words(a.rotation));
        const auto built = o_.call("construct_3d_object_", {a.model, pos_at_, rot_at_});
        require_success(ctx_, built, "construct_3d_object_(" + std::to_string(a.model) + ")",
                        Expect::Nonzero);
        o_.machine().write_u32(world_.address(a.id) + off_instance_, built.eax);
        mobile_of_[built.eax] = a.id;
        instances_.insert_or_assign(a.id,
                                    reimpl::construct(models_, a.model, reimpl::Transform{p, a.rotation}));
    }
    const reimpl::MobileMap& map() const { return world_.map(); }
    const reimpl::Instance* instance(std::uint32_t id) const {
        const auto it = instances_.find(id);
        return it == instances_.end() ? nullptr : &it->second;
    }
    // queue_event's `built` on each side: the original's from its struct's `instance` field.
    std::int64_t original_built(const emu::Machine& m, std::uint32_t id) const {
        const auto at = world_.find_address(id);
        return at ? std::int64_t{m.read_u32(*at + off_instance_) != 0} : -1;
    }
    std::int64_t reimpl_built(std::uint32_t id) const {
        return world_.map().contains(id) ? std::int64_t{instances_.count(id) != 0} : -1;
    }
    std::int64_t mobile_of(std::uint32_t guest_instance) const {
        const auto it = mobile_of_.find(guest_instance);
        return it == mobile_of_.end() ? -1 : it->second;
    }

private:
    CaseContext& ctx_;
    Original& o_;
    const reimpl::ModelArchive& models_;
    MobileWorld world_;
    std::uint32_t pos_at_, rot_at_, off_instance_;
    std::map<std::uint32_t, reimpl::Instance> instances_;
    std::map<std::uint32_t, std::uint32_t> mobile_of_; // guest instance -> mobile id
    // The sector_map events after the reset: the original's (none when reset_mobiles_ faulted), the
    // reimplementation's.
    std::pair<std::optional<EventRecord>, EventRecord> after_reset_;
    bool reset_compared_ = false;
};

// ---- the original's side: hooks installed once, recording while a frame is drawn ----

class SceneRecorder {
public:
    SceneRecorder(Original& o, const SceneSelection& scene) : o_(o), face_vertices_(o.profile()) {
        const Profile& p = o.profile();
        off_id_ = p.offset_of("mobile", "id");
        off_terrain_ = p.offset_of("shadow_params", "terrain_height");
        off_plane_ = p.offset_of("shadow_params", "plane_height");
        // Arguments where the profile's "args" put them, by name.
        if (scene.terrain_map) {
            // scene.sampler.standin: the original's own sampler reads the map written here; each
            // sample is recorded as it returns.
            o.machine().write(o.address("terrain_map"),
                              pack_words(sector_terrain_map(scene.islands).heights));
            o.tap("sample_terrain_height_", [this, ax = o.arg("sample_terrain_height_", "x"),
                                             az = o.arg("sample_terrain_height_", "z")](emu::Machine& m) {
                require_open("sample_terrain_height_");
                sample_at_ = {ax.i32(m), az.i32(m)};
            });
            o.on_return("sample_terrain_height_", [this](emu::Machine& m) {
                keep(sample_event(sample_at_[0], sample_at_[1],
                                  static_cast<std::int32_t>(m.reg(emu::Reg::eax))));
            });
        } else {
            const auto sampler_args = static_cast<unsigned>(p.routine("sample_terrain_height_").args.size());
            o.replace("sample_terrain_height_", sampler_args,
                      [this, islands = scene.islands, ax = o.arg("sample_terrain_height_", "x"),
                       az = o.arg("sample_terrain_height_", "z")](emu::Machine& m, const emu::Args&) {
                          require_open("sample_terrain_height_");
                          const std::int32_t x = ax.i32(m), z = az.i32(m);
                          const std::int32_t h = island_terrain(islands, x, z);
                          keep(sample_event(x, z, h));
                          return static_cast<std::uint32_t>(h);
                      });
        }
        o.tap("build_mobile_queue_", [this, ids = o.arg("build_mobile_queue_", "ids")](emu::Machine& m) {
            require_open("build_mobile_queue_");
            ids_at_ = ids.u32(m);
        });
        o.on_return("build_mobile_queue_", [this](emu::Machine& m) {
            const SceneWorld& w = world("build_mobile_queue_");
            for (std::uint32_t i = 0; i < m.reg(emu::Reg::eax) && i < reimpl::kQueueCapacity; ++i) {
                const std::uint32_t id = m.read_u32(ids_at_ + 4 * i);
                keep(queue_event(i, id, w.original_built(m, id)));
            }
            // A count past the 256-id buffer (mobile.capacity): an entry no mobile has, as in the
            // mobile family (the reimplementation's queue stops at 256).
            if (m.reg(emu::Reg::eax) > reimpl::kQueueCapacity)
                keep(queue_event(reimpl::kQueueCapacity, -1, -1));
        });
        o.tap("shadow_plane_height_", [this, caster = o.arg("shadow_plane_height_", "caster"),
                                       params = o.arg("shadow_plane_height_", "params")](emu::Machine& m) {
            require_open("shadow_plane_height_");
            caster_ = m.read_u32(caster.u32(m) + off_id_);
            terrain_ = static_cast<std::int32_t>(m.read_u32(params.u32(m) + off_terrain_));
        });
        o.on_return("shadow_plane_height_", [this](emu::Machine& m) {
            const std::uint32_t receiver = o_.u32("last_receiver");
            keep(plane_event(caster_, terrain_, static_cast<std::int32_t>(m.reg(emu::Reg::eax)), receiver));
            receiver_of_[caster_] = receiver;
        });
        // Each shadow as the original drew it, for the metrics: its caster, the plane and terrain
        // heights its params held, the receiver its caster's last plane query gave, and the pixels
        // the call changed in the framebuffer (read as it begins and as it returns).
        o.tap("draw_3d_object_shadow_",
              [this, instance = o.arg("draw_3d_object_shadow_", "instance"),
               params = o.arg("draw_3d_object_shadow_", "params")](emu::Machine& m) {
                  const std::uint32_t at = params.u32(m);
                  const auto plane = static_cast<std::int32_t>(m.read_u32(at + off_plane_));
                  const std::int64_t caster = world("draw_3d_object_shadow_").mobile_of(instance.u32(m));
                  keep(shadow_event(caster, plane));
                  const auto r = receiver_of_.find(caster);
                  shadows_.push_back({caster, plane, static_cast<std::int32_t>(m.read_u32(at + off_terrain_)),
                                      r == receiver_of_.end() ? 0 : r->second, 0});
                  shadow_from_ = framebuffer_.read();
                  ++depth_;
              });
        o.on_return("draw_3d_object_shadow_", [this](emu::Machine&) {
            if (!shadows_.empty()) shadows_.back().pixels = changed_pixels(framebuffer_.read(), shadow_from_);
            depth_ -= depth_ ? 1 : 0;
        });
        o.tap("draw_3d_object_", [this, instance = o.arg("draw_3d_object_", "instance")](emu::Machine& m) {
            keep(object_event(world("draw_3d_object_").mobile_of(instance.u32(m))));
            ++depth_;
        });
        // A face routine called outside an object's or a shadow's draw is a terrain face.
        o.on_return("draw_3d_object_", [this](emu::Machine&) { depth_ -= depth_ ? 1 : 0; });
        for (const FaceRoutine& f : {kFaceRoutines[0], kFaceRoutines[1]}) { // the primary ones
            o.tap(f.name,
                  [this, clipped = f.clipped, packet = o.arg(f.name, "packet"),
                   vertices = o.arg(f.name, "vertices"), level = o.arg(f.name, "level")](emu::Machine& m) {
                      require_open("a primary face routine");
                      if (depth_ == 0) terrain_face(m, clipped, packet.u32(m), vertices.u32(m), level.i32(m));
                  });
        }
    }
    // The image's own packet table decodes the terrain packets (never the reimplementation's).
    void decode_with(const FaceWitness& witness) { witness_ = &witness; }
    // One draw_scene_ call's recording: begin() before it, end() after it. A hooked routine the
    // original calls outside one (from construct_3d_object_ or add_mobile_, say) has no frame to
    // belong to: its hook stops the running call with a host_error fault saying so (it read the
    // world of a frame gone, or recorded into events the next begin() dropped unseen).
    void begin(const SceneWorld& world) {
        world_ = &world;
        depth_ = 0;
        events_.clear();
        shadows_.clear();
        receiver_of_.clear();
        o_.forget_pending_returns();
    }
    void end() { world_ = nullptr; }
    std::vector<EventRecord> take() { return std::exchange(events_, {}); }
    std::vector<ShadowSeen> take_shadows() { return std::exchange(shadows_, {}); }

private:
    void require_open(const char* what) const { (void)world(what); }
    const SceneWorld& world(const char* what) const {
        if (!world_)
            throw std::runtime_error(std::string(what) +
                                     " was called outside a draw_scene_ call: the harness records the "
                                     "original's frames only, and this call is not one");
        return *world_;
    }
    // Past the case's events_per_call the call is being stopped (Original::admit_event).
    void keep(EventRecord e) {
        if (o_.admit_event()) events_.push_back(std::move(e));
    }

    void terrain_face(emu::Machine& m, bool clipped, std::uint32_t packet, std::uint32_t fv,
                      std::int32_t level) {
        TerrainFaceSeen f;
        f.clipped = clipped;
        f.face_level = level;
        const std::uint8_t type = m.read_u8(packet), count = m.read_u8(packet + 1);
        f.type = type;
        if (const PacketKind* kind = witness_ ? witness_->kind(type) : nullptr) {
            const auto header = m.read_bytes(packet, kind->header);
            for (std::size_t i = 2; i < header.size(); ++i) f.material.push_back(header[i]);
            const auto records = m.read_bytes(packet + kind->header, std::size_t{count} * kind->per_vertex);
            for (std::size_t i = 0; i < count; ++i) f.vertices.push_back(records[i * kind->per_vertex]);
        }
        f.at = face_vertices_.read(m, fv, count);
        keep(terrain_face_event(std::move(f)));
    }

    Original& o_;
    const SceneWorld* world_ = nullptr;
    const FaceWitness* witness_ = nullptr;
    std::uint32_t depth_ = 0;
    FaceVertexLayout face_vertices_;
    std::uint32_t off_id_ = 0, off_terrain_ = 0, off_plane_ = 0, ids_at_ = 0, caster_ = 0;
    std::array<std::int32_t, 2> sample_at_{}; // the sample in progress (terrain_map)
    std::int32_t terrain_ = 0;
    std::vector<EventRecord> events_;
    GuestFramebuffer framebuffer_{o_};
    std::map<std::int64_t, std::uint32_t> receiver_of_; // caster -> its last plane query's receiver
    std::vector<ShadowSeen> shadows_;
    std::vector<std::uint8_t> shadow_from_;
};

// ---- what the frames show (metrics), per script and in all, each side's own ----

// One side's figures: counted from its own events (the same count for both sides) and its own
// shadows (ShadowSeen).
struct SideShows {
    std::uint64_t terrain_samples = 0, queue_entries = 0, plane_queries = 0, object_draws = 0,
                  shadow_draws = 0, receiver_hits = 0, substituted_shadow_frames = 0;
    std::map<Surface, std::uint64_t> frames_with, pixels_on;
    void add(const SideShows& o) {
        terrain_samples += o.terrain_samples, queue_entries += o.queue_entries;
        plane_queries += o.plane_queries, object_draws += o.object_draws, shadow_draws += o.shadow_draws;
        receiver_hits += o.receiver_hits, substituted_shadow_frames += o.substituted_shadow_frames;
        for (const auto& [surface, n] : o.frames_with) frames_with[surface] += n;
        for (const auto& [surface, n] : o.pixels_on) pixels_on[surface] += n;
    }
    void json_into(ojson& j, const std::string& side) const {
        j[side + "terrain_samples"] = terrain_samples;
        j[side + "queue_entries"] = queue_entries;
        j[side + "plane_queries"] = plane_queries;
        j[side + "receiver_hits"] = receiver_hits;
        j[side + "object_draws"] = object_draws;
        j[side + "shadow_draws"] = shadow_draws;
        j[side + "frames_with_apache_shadows"] = substituted_shadow_frames;
        for (Surface s : {Surface::Deck, Surface::Water, Surface::Terrain, Surface::Clouds}) {
            const std::string n(surface_name(s));
            j[side + "frames_with_" + n + "_shadows"] = frames_with.count(s) ? frames_with.at(s) : 0;
            j[side + "shadow_pixels_on_" + n] = pixels_on.count(s) ? pixels_on.at(s) : 0;
        }
    }
};

struct Shows {
    std::uint64_t frames = 0, differing = 0; // the comparison's own
    SideShows original, reimpl;
    void add(const Shows& o) {
        frames += o.frames, differing += o.differing;
        original.add(o.original);
        reimpl.add(o.reimpl);
    }
    ojson json() const {
        ojson j = {{"frames", frames}, {"frames_differing", differing}};
        original.json_into(j, "original_");
        reimpl.json_into(j, "reimpl_");
        return j;
    }
};

Surface surface_of(const ShadowSeen& d, std::int32_t cloud) {
    if (d.receiver) return Surface::Deck;
    if (d.plane_height == cloud && d.terrain_height != cloud) return Surface::Clouds;
    return d.terrain_height > 0 ? Surface::Terrain : Surface::Water;
}

// Counts one side's frame from its events and shadows; returns the surfaces its shadows visibly fell
// on. A substituted shadow (apache) is one whose caster the case placed as 0x4ba or 0x4bb.
std::set<Surface> count_frame(const std::vector<EventRecord>& events, const std::vector<ShadowSeen>& shadows,
                              const reimpl::MobileMap& map, std::int32_t cloud, SideShows& s) {
    for (const EventRecord& e : events) {
        const std::string_view kind = e.kind;
        s.terrain_samples += kind == "terrain_sample";
        s.queue_entries += kind == "scene_queue";
        s.object_draws += kind == "object_draw";
        s.shadow_draws += kind == "shadow_draw";
        if (kind != "plane_query") continue;
        ++s.plane_queries;
        const Value* receiver = e.find("receiver");
        s.receiver_hits += receiver && std::get<std::int64_t>(*receiver) != 0;
    }
    std::set<Surface> seen;
    bool apache = false;
    for (const ShadowSeen& d : shadows) {
        if (!d.pixels) continue;
        const Surface surface = surface_of(d, cloud);
        seen.insert(surface);
        s.pixels_on[surface] += d.pixels;
        const std::uint32_t model = d.caster >= 0 && map.contains(static_cast<std::uint32_t>(d.caster))
                                        ? map.mobile(static_cast<std::uint32_t>(d.caster)).model
                                        : 0;
        apache = apache || model == reimpl::kShadowSubstituted[0] || model == reimpl::kShadowSubstituted[1];
    }
    for (Surface surface : seen) ++s.frames_with[surface];
    s.substituted_shadow_frames += apache ? 1 : 0;
    return seen;
}

// One case's frames on both sides: the palette, the renderer and the recorder set up once, then the
// scripts in the case's order, frames numbered through.
std::vector<std::string> all_face_routines() {
    std::vector<std::string> out;
    for (const FaceRoutine& f : kFaceRoutines) out.emplace_back(f.name);
    return out;
}

class SceneRun {
public:
    explicit SceneRun(CaseContext& ctx)
        : ctx_(ctx), o_(ctx.original), c_(ctx.c), models_(reimpl::ModelArchive::parse(ctx.models)),
          textures_(reimpl::TextureArchive::parse(ctx.textures)),
          warzone_(c_.warzones.empty() ? 0 : c_.warzones.front()), palette_(boot_palette()),
          renderer_(models_, textures_, palette_), recorder_(o_, c_.scene), witness_(o_, all_face_routines()),
          pixel_flags_(flags_explaining(c_.allow, "pixels")) {
        recorder_.decode_with(witness_);
        guest_palette_ = o_.bytes(o_.address("palette_rgb"), 768);
        input_.light.direction = {c_.lights[0][0], c_.lights[0][1], c_.lights[0][2]};
        reimpl_light_ = input_.light;
        if (ctx.injection && ctx.injection->reimpl_light_swapped)
            std::swap(reimpl_light_.direction[0], reimpl_light_.direction[2]);
        const SceneSelection& s = c_.scene;
        input_.params = {reimpl::Scene{s.cloud_altitude, 64, 0x00300000}, s.cell_shift, s.cell_reach,
                         s.sea_colour, s.band_shift};
        camera_at_ = o_.scratch(GuestStruct(o_.profile(), "camera").size());
        params_at_ = o_.scratch(GuestStruct(o_.profile(), "scene_params").size());
        light_at_ = o_.scratch(GuestStruct(o_.profile(), "light").size());
        write_params({s.cell_shift, s.cell_reach, s.sea_colour, s.band_shift});
        o_.machine().write(light_at_, pack(o_.profile(), input_.light));
    }

    void script(const SceneScript& script) {
        const ScenePlan plan = scene_script(c_, models_, script.name, input_.light.direction);
        SceneWorld world(ctx_, models_);
        Shows shows;
        bool sampled = false;
        for (std::uint32_t f = 0; f < script.frames; ++f, ++frame_no_) {
            for (const Actor& a : plan.actors) world.place(a, f);
            input_.camera = plan.camera.at(f, script.frames);
            input_.state = frame_no_; // scene.state
            const std::string name = "frame " + std::to_string(frame_no_);
            // A frame is drawn from the world as placed and the camera alone (on both sides), so an
            // unselected frame is skipped; the actors are placed for every frame all the same.
            if (!ctx_.selected(name)) continue;
            world.compare_reset(name);
            const auto [fc, seen] = frame(name, world, shows);
            const bool sample = !sampled && seen.count(plan.shows);
            if (pictures_.choose(fc.differing != 0, sample)) {
                save_frame_pictures(ctx_, name + " (" + script.name + ")", frame_no_, original_frame_,
                                    reimpl_frame_, fc, guest_palette_);
                sampled = sampled || sample;
            }
        }
        ojson j = shows.json();
        j["shows"] = std::string(surface_name(plan.shows));
        per_script_[script.name] = j;
        all_.add(shows);
    }

    // A fixed camera (selection.scene.cameras): one frame of the terrain alone, numbered on from the
    // scripts' frames, its state the frame number as in a script.
    void fixed_camera(const SceneSelection::FixedCamera& fixed, std::size_t k) {
        const std::string name = "camera " + std::to_string(k);
        const std::uint32_t frame_no = frame_no_++;
        if (!ctx_.selected(name)) return;
        SceneWorld world(ctx_, models_);
        world.compare_reset(name);
        input_.camera.position = fixed.position;
        input_.camera.rotation = fixed.rotation;
        input_.state = frame_no;
        Shows shows;
        const auto [fc, seen] = frame(name, world, shows);
        if (pictures_.choose(fc.differing != 0, false))
            save_frame_pictures(ctx_, name, frame_no, original_frame_, reimpl_frame_, fc, guest_palette_);
        all_.add(shows);
    }

    // A parameter set outside scene.params.valid: both sides refuse it (draw_scene_ returns 1), and
    // neither makes a call or paints a pixel before refusing: the reimplementation's draw_scene runs
    // on the same parameters, and both frames are compared as for a drawn frame. The case's own
    // parameters are put back after.
    void refused(const std::array<std::uint32_t, 4>& p, std::size_t k) {
        const std::string name = "refused parameters " + std::to_string(k);
        if (!ctx_.selected(name)) return;
        SceneWorld world(ctx_, models_);
        world.compare_reset(name);
        reimpl::SceneParams params = input_.params;
        params.cell_shift = p[0], params.cell_reach = p[1], params.sea_colour = p[2],
        params.band_shift = p[3];
        const SceneSelection& s = c_.scene;
        write_params(p);
        const Drawn d = draw(world, params, {true, true, true});
        write_params({s.cell_shift, s.cell_reach, s.sea_colour, s.band_shift});
        if (!d.original.ok())
            throw OriginalFailed("draw_scene_ faulted on refused parameters: " + d.original.fault->message);
        compare_refusal(name,
                        "draw_scene_(cell_shift " + std::to_string(p[0]) + ", cell_reach " +
                            std::to_string(p[1]) + ", sea_colour " + std::to_string(p[2]) + ", band_shift " +
                            std::to_string(p[3]) + ")",
                        d);
    }

    // abi.null: draw_scene_ with its camera, parameters or light null (`argument`) on both sides: both
    // refuse it (result 1), with no call and no pixel, as for refused parameters.
    void null_argument(const char* argument) {
        const std::string name = std::string("null ") + argument;
        if (!ctx_.selected(name)) return;
        SceneWorld world(ctx_, models_);
        world.compare_reset(name);
        const Drawn d = draw(world, input_.params,
                             {std::string_view(argument) != "camera", std::string_view(argument) != "params",
                              std::string_view(argument) != "light"});
        if (!d.original.ok())
            throw OriginalFailed("draw_scene_ faulted with a null " + std::string(argument) + ": " +
                                 d.original.fault->message);
        compare_refusal(name, std::string("draw_scene_(null ") + argument + ")", d);
    }

    void finish() {
        for (const char* routine :
             {"draw_scene_", "build_mobile_queue_", "shadow_plane_height_", "draw_3d_object_",
              "draw_3d_object_shadow_", "construct_3d_object_", "add_mobile_", "move_mobile_"})
            o_.note_ran(routine);
        ctx_.report["frame_selection"] = pictures_.json();
        // Each figure but frames and frames_differing (the comparison's own) is counted on each side
        // from that side's own events and shadows, named original_ and reimpl_ (docs/architecture.md,
        // "Metrics").
        ctx_.report["metrics"] = all_.json();
        ctx_.report["metrics"]["scripts"] = per_script_;
    }

private:
    // The scene parameters draw_scene_ reads (scene.abi: the case's limits, then these four).
    void write_params(const std::array<std::uint32_t, 4>& q) {
        const std::int32_t cloud[] = {c_.scene.cloud_altitude}, near[] = {64}, far[] = {0x00300000};
        const std::int32_t shift[] = {static_cast<std::int32_t>(q[0])},
                           reach[] = {static_cast<std::int32_t>(q[1])};
        const std::int32_t sea[] = {static_cast<std::int32_t>(q[2])},
                           band[] = {static_cast<std::int32_t>(q[3])};
        o_.machine().write(params_at_, GuestStruct(o_.profile(), "scene_params")
                                           .pack({{"cloud_altitude", cloud},
                                                  {"near_limit", near},
                                                  {"far_limit", far},
                                                  {"cell_shift", shift},
                                                  {"cell_reach", reach},
                                                  {"sea_colour", sea},
                                                  {"band_shift", band}}));
    }

    reimpl::PaletteTables boot_palette() {
        const auto init = o_.call("initialise_3d_palette_", {static_cast<std::uint32_t>(warzone_)});
        require_success(ctx_, init, "initialise_3d_palette_(" + std::to_string(warzone_) + ")", Expect::Zero);
        return reimpl::build_palette(ctx_.palette, static_cast<std::uint32_t>(warzone_));
    }

    // Which of draw_scene_'s pointer arguments are given (the others null, abi.null).
    struct Given {
        bool camera = true, params = true, light = true;
    };
    // One draw_scene_ on both sides, each from the same marked background (marked_background: a
    // draw that clears the framebuffer differs there): the reimplementation first, so that where
    // its frame carries an allowed cause the original's draw is watched for its own evidence of it
    // (FaceWitness). `params` are the reimplementation's (the original's are written at params_at_).
    struct Drawn {
        reimpl::SceneRenderer::Call reimpl;
        reimpl::Frame frame;
        emu::CallResult original;
        std::vector<EventRecord> original_events;
        std::vector<ShadowSeen> original_shadows;
        std::vector<std::uint8_t> original_taint;
        const SceneWorld* world = nullptr; // the mobiles it was drawn from
    };
    static std::vector<EventRecord> reimpl_events_of(const Drawn& d) {
        return reimpl_events(d.reimpl.steps, [&d](std::uint32_t id) { return d.world->reimpl_built(id); });
    }
    Drawn draw(const SceneWorld& world, const reimpl::SceneParams& params, Given given) {
        Drawn d;
        d.world = &world;
        d.frame.pixels = background_;
        const reimpl::TerrainSampler terrain = [this](std::int32_t x, std::int32_t z) {
            return c_.scene.terrain_map ? sector_terrain_(x, z) : island_terrain(c_.scene.islands, x, z);
        };
        d.reimpl = in_phase(Phase::reimpl, [&] {
            return renderer_.draw_scene(
                given.camera ? &input_.camera : nullptr, given.params ? &params : nullptr,
                given.light ? &reimpl_light_ : nullptr, input_.state, world.map(),
                [&](std::uint32_t id) { return world.instance(id); }, terrain, d.frame);
        });
        o_.machine().write(camera_at_, pack(o_.profile(), input_.camera));
        framebuffer_.fill(marked_background(framebuffer_.size()));
        recorder_.begin(world);
        witness_.begin();
        const std::uint32_t watched = taint_causes(d.frame.taint, pixel_flags_);
        if (watched) witness_.arm(watched);
        d.original = o_.call("draw_scene_", {given.camera ? camera_at_ : 0, given.params ? params_at_ : 0,
                                             given.light ? light_at_ : 0, input_.state});
        d.original_taint = witness_.take_taint();
        if (watched) witness_.arm(0);
        recorder_.end();
        d.original_events = recorder_.take();
        d.original_shadows = recorder_.take_shadows();
        original_frame_ = framebuffer_.read();
        reimpl_frame_ = d.frame.pixels;
        return d;
    }

    // Both frames; their drawn pixels counted against the background both started from (the same
    // pixels only when the framebuffers are one size, fb.size: otherwise compare_frame reports the
    // sizes).
    FrameComparison compare_frames(const std::string& name, const Drawn& d, const FrameEvents& events) {
        const bool one_size = original_frame_.size() == background_.size();
        return ctx_.comparator.compare_frame(
            name, events, original_frame_, d.frame.pixels, d.frame.taint, d.original_taint, kWidth,
            one_size ? std::span<const std::uint8_t>(background_) : std::span<const std::uint8_t>());
    }

    // A refused call: each side's calls and result (a rejection event), then both frames.
    void compare_refusal(const std::string& name, const std::string& routine, const Drawn& d) {
        std::vector<EventRecord> original = d.original_events, reimpl = reimpl_events_of(d);
        original.push_back(rejection_event(routine, d.original.eax));
        reimpl.push_back(rejection_event(routine, d.reimpl.result));
        ctx_.comparator.compare(name, original, reimpl);
        compare_frames(name, d, {&original, &reimpl});
        ctx_.events += original.size() + reimpl.size() + 2;
    }

    // One frame on both sides: the calls compared, then the frames (scene.observed).
    std::pair<FrameComparison, std::set<Surface>> frame(const std::string& name, const SceneWorld& world,
                                                        Shows& shows) {
        const Drawn d = draw(world, input_.params, {});
        if (d.original.ok())
            require_success(ctx_, d.original, "draw_scene_ (the case's scene parameters)", Expect::Zero);
        const std::vector<EventRecord> reimpl = reimpl_events_of(d);
        ctx_.comparator.compare(name, d.original_events, reimpl);
        const auto fc = compare_frames(name, d, {&d.original_events, &reimpl});
        ctx_.events += d.original_events.size() + reimpl.size() + 2;
        ++shows.frames;
        shows.differing += fc.differing ? 1 : 0;
        const std::int32_t cloud = input_.params.limits.cloud_altitude;
        std::set<Surface> seen =
            count_frame(d.original_events, d.original_shadows, world.map(), cloud, shows.original);
        seen.merge(count_frame(reimpl, reimpl_shadows(d.reimpl.steps), world.map(), cloud, shows.reimpl));
        return {fc, seen};
    }

    CaseContext& ctx_;
    Original& o_;
    const Case& c_;
    const reimpl::ModelArchive models_;
    const reimpl::TextureArchive textures_;
    const std::int32_t warzone_;
    const reimpl::PaletteTables palette_;
    reimpl::SceneRenderer renderer_;
    SceneRecorder recorder_;
    FaceWitness witness_;
    std::uint32_t pixel_flags_;
    std::vector<std::uint8_t> guest_palette_, original_frame_, reimpl_frame_;
    GuestFramebuffer framebuffer_{o_};
    const std::vector<std::uint8_t> background_ = marked_background(reimpl::Frame().pixels.size());
    std::uint32_t camera_at_ = 0, params_at_ = 0, light_at_ = 0, frame_no_ = 0;
    // The sample is one frame per script (script() keeps to one), so its size is not bounded here.
    FramePictures pictures_{"per script the first frame that shows its surface",
                            std::numeric_limits<std::size_t>::max()};
    reimpl::SceneInput input_;
    const reimpl::SectorTerrain sector_terrain_ = sector_terrain_map(c_.scene.islands);
    reimpl::Light reimpl_light_;
    Shows all_;
    ojson per_script_ = ojson::object();
};

} // namespace

void run_scene(CaseContext& ctx) {
    SceneRun run(ctx);
    for (const SceneScript& script : ctx.c.scene.scripts) run.script(script);
    for (std::size_t k = 0; k < ctx.c.scene.cameras.size(); ++k) run.fixed_camera(ctx.c.scene.cameras[k], k);
    for (std::size_t k = 0; k < ctx.c.scene.refused.size(); ++k) run.refused(ctx.c.scene.refused[k], k);
    if (ctx.c.null_arguments)
        for (const char* argument : {"camera", "params", "light"}) run.null_argument(argument);
    run.finish();
}

} // namespace refcheck::harness
