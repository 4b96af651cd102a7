// Shadow family: complete shadow frames. The original's draw_3d_object_shadow_ runs under emulation
// with its shadow face routine rasterising into its framebuffer; the reimplementation draws the
// same instance's shadow into its own frame; the frames are compared pixel for pixel.
#include "family/families.hpp"
#include "family/recorder.hpp"
#include "refcheck/harness/phase.hpp"
#include "family/invalid_program.hpp"
#include "family/placement.hpp"
#include "report/png.hpp"
#include "family/selection.hpp"

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <limits>

namespace refcheck::harness {

namespace {
constexpr std::uint32_t kWidth = 320, kHeight = 200;
// How far below the shadow's plane the family puts the ground under the model (terrain_height).
constexpr std::int64_t kGroundBelowPlane = 1024;
std::int32_t ground_below(std::int32_t plane) {
    return static_cast<std::int32_t>(std::max<std::int64_t>(std::int64_t{plane} - kGroundBelowPlane,
                                                            std::numeric_limits<std::int32_t>::min()));
}

// abi.shadow_face: one draw_shadow_face_ call, the mesh and each face vertex's u, v, level and
// screen x, y, z, as the original's routine is handed it and as the reimplementation draws it
// (shadow.mesh: u = v = 0, level 31; they were not read, so an original handing other values
// stayed equivalent).
EventRecord shadow_face_event(std::int64_t mesh, FaceVertices v) {
    return {"shadow_face",
            {{"mesh", mesh},
             {"u", std::move(v.u)},
             {"v", std::move(v.v)},
             {"levels", std::move(v.levels)},
             {"screen_x", std::move(v.sx)},
             {"screen_y", std::move(v.sy)},
             {"screen_z", std::move(v.sz)}},
            1,
            0,
            {}};
}
EventRecord shadow_face_event(const reimpl::ShadowFace& f) {
    FaceVertices v = screen_vertices(f.screen);
    for (std::size_t i = 0; i < f.screen.size(); ++i) {
        v.u.push_back(reimpl::kShadowVertexU);
        v.v.push_back(reimpl::kShadowVertexV);
        v.levels.push_back(reimpl::kShadowVertexLevel);
    }
    return shadow_face_event(static_cast<std::int64_t>(f.mesh), std::move(v));
}

} // namespace

bool FramePictures::choose(bool differing, bool sample_candidate) {
    ++compared_;
    if (differing) {
        ++differing_;
        ++shown_differing_;
        return true;
    }
    if (!sample_candidate || shown_sample_ >= samples_) return false;
    ++shown_sample_;
    return true;
}

ojson FramePictures::json() const {
    return {{"rule", "every differing frame, plus " + sample_rule_},
            {"compared", compared_},
            {"differing", differing_},
            {"shown_differing", shown_differing_},
            {"shown_sample", shown_sample_}};
}

GuestFramebuffer::GuestFramebuffer(Original& original)
    : o_(original), address_(original.address("framebuffer")),
      size_(original.profile().data.at("framebuffer").size), background_(marked_background(size_)) {}

void GuestFramebuffer::fill_background() const { o_.machine().write(address_, background_); }

void GuestFramebuffer::fill(std::span<const std::uint8_t> pixels) const {
    o_.machine().write(address_, pixels.first(std::min<std::size_t>(pixels.size(), size_)));
}

std::vector<std::uint8_t> GuestFramebuffer::read() const { return o_.bytes(address_, size_); }

std::vector<std::uint8_t> marked_background(std::size_t size) {
    std::vector<std::uint8_t> pixels(size, reimpl::kClearColour);
    for (std::size_t p = 0; p < size; ++p)
        if ((p / kWidth) % 8 == 3 && (p % kWidth) % 8 == 3) pixels[p] = reimpl::kClearColour + 1;
    return pixels;
}

reimpl::Frame marked_frame() {
    static const reimpl::Frame marked = [] { // built once: a copy per frame, not a pass of divisions
        reimpl::Frame frame;
        frame.pixels = marked_background(frame.pixels.size());
        return frame;
    }();
    return marked;
}

std::size_t changed_pixels(std::span<const std::uint8_t> pixels, std::span<const std::uint8_t> background) {
    std::size_t n = 0;
    for (std::size_t p = 0; p < pixels.size(); ++p) n += p >= background.size() || pixels[p] != background[p];
    return n;
}

void save_frame_pictures(CaseContext& ctx, const std::string& input, std::size_t n,
                         std::span<const std::uint8_t> original, std::span<const std::uint8_t> reimpl,
                         const FrameComparison& comparison, std::span<const std::uint8_t> palette) {
    // Pictures are 320 x 200: a frame of another size (a profile's framebuffer) is cut or padded.
    auto fit = [](std::span<const std::uint8_t> px, std::uint8_t pad) {
        std::vector<std::uint8_t> out(px.begin(),
                                      px.begin() + std::min<std::size_t>(px.size(), kWidth * kHeight));
        out.resize(kWidth * kHeight, pad);
        return out;
    };
    const auto a = fit(original, reimpl::kClearColour), b = fit(reimpl, reimpl::kClearColour);
    const auto explained = fit(comparison.explained, 0);
    const FrameComparison& fc = comparison;
    const std::string stem = ctx.c.name + "/frame-" + std::to_string(n);
    const auto a_rgb = to_rgb(a, palette);
    ctx.files->emplace_back(stem + "-original.png", encode_png(kWidth, kHeight, a_rgb));
    ctx.files->emplace_back(stem + "-reimpl.png", encode_png(kWidth, kHeight, to_rgb(b, palette)));
    ctx.files->emplace_back(stem + "-diff.png",
                            encode_png(kWidth, kHeight, difference_rgb(a_rgb, a, b, explained)));
    ctx.report["frames"].push_back({{"input", input},
                                    {"differing_pixels", fc.differing},
                                    {"unexplained_pixels", fc.unexplained},
                                    {"explained_by", fc.causes},
                                    {"original_png", stem + "-original.png"},
                                    {"reimpl_png", stem + "-reimpl.png"},
                                    {"diff_png", stem + "-diff.png"}});
}

void run_shadow(CaseContext& ctx) {
    Original& o = ctx.original;
    const Case& c = ctx.c;
    InvalidProgramCheck invalid(c);
    invalid.archive(ctx.models);
    const auto models = reimpl::ModelArchive::parse(ctx.models, invalid.cut_lists());
    require_success(ctx, o.call("initialise_3d_palette_", {0}), "initialise_3d_palette_(0)", Expect::Zero);
    const auto palette = o.bytes(o.address("palette_rgb"), 768);
    const GuestFramebuffer framebuffer(o);
    const std::uint32_t camera_at = o.scratch(GuestStruct(o.profile(), "camera").size()),
                        params_at = o.scratch(GuestStruct(o.profile(), "shadow_params").size());
    const std::uint32_t origin_at = o.scratch(12), identity_at = o.scratch(36);
    o.machine().write(origin_at, pack_words(reimpl::Vec3{}));
    o.machine().write(identity_at, pack_words(reimpl::kIdentityQ31));
    o.note_ran("draw_3d_object_shadow_");
    o.note_ran("draw_shadow_face_");
    // Every shadow face the original draws, in order (it still rasterises: the frames are compared too).
    std::vector<EventRecord> faces;
    const FaceVertexLayout layout(o.profile());
    o.tap("draw_shadow_face_",
          [&, vertices = o.arg("draw_shadow_face_", "vertices"), count = o.arg("draw_shadow_face_", "count"),
           mesh = o.arg("draw_shadow_face_", "mesh")](emu::Machine& m) {
              if (!o.admit_event()) return; // past the case's events_per_call: the call is being stopped
              const std::uint32_t n = std::min<std::uint32_t>(count.u32(m), 256); // the vertex list's bound
              faces.push_back(shadow_face_event(mesh.u32(m), layout.read(m, vertices.u32(m), n)));
          });

    std::uint64_t frames = 0, differing = 0, drawn = 0, reimpl_drawn = 0, records = 0;
    const std::vector<std::uint8_t> reimpl_background = marked_frame().pixels; // each reimpl frame's start
    FramePictures pictures("the first frame with a shadow drawn", 1);
    reimpl::ShadowRenderer renderer(models, invalid.mode());
    for (const std::uint32_t record : select_records(c, models)) {
        if (!ctx.selects_within("record " + std::to_string(record) + " ")) continue;
        ++records;
        const auto built = o.call("construct_3d_object_", {record, origin_at, identity_at});
        require_success(ctx, built, "construct_3d_object_(" + std::to_string(record) + ")", Expect::Nonzero);
        const reimpl::Instance root =
            in_phase(Phase::reimpl, [&] { return reimpl::construct(models, record, reimpl::Transform{}); });
        const auto& h = models.record(record).header;
        if (c.null_arguments && records == 1) {
            // abi.null: draw_3d_object_shadow_ with each pointer argument null: no face on either
            // side.
            const reimpl::Camera camera = camera_for(models.record(record), c.views.at(0));
            o.machine().write(camera_at, pack(o.profile(), camera));
            reimpl::ShadowParams params;
            params.sun = {c.suns.at(0)[0], c.suns.at(0)[1], c.suns.at(0)[2]};
            params.plane_height = h.bounds[2];
            params.terrain_height = ground_below(h.bounds[2]);
            o.machine().write(params_at, pack(o.profile(), params));
            const struct {
                const char* argument;
                std::array<std::uint32_t, 3> guest;
                bool instance, camera, params;
            } calls[] = {{"instance", {0, camera_at, params_at}, false, true, true},
                         {"camera", {built.eax, 0, params_at}, true, false, true},
                         {"params", {built.eax, camera_at, 0}, true, true, false}};
            for (const auto& call : calls) {
                const std::string input = "record " + std::to_string(record) + " null " + call.argument;
                if (!ctx.selected(input)) continue;
                framebuffer.fill_background();
                faces.clear();
                const auto r =
                    o.call("draw_3d_object_shadow_", {call.guest[0], call.guest[1], call.guest[2], 0});
                if (!r.ok())
                    throw OriginalFailed("draw_3d_object_shadow_ faulted with a null " +
                                         std::string(call.argument) + ": " + r.fault->message);
                reimpl::Frame frame = marked_frame();
                const auto drawn_faces = in_phase(Phase::reimpl, [&] {
                    return renderer.draw(call.instance ? &root : nullptr, call.camera ? &camera : nullptr,
                                         call.params ? &params : nullptr, 0, frame);
                });
                const std::string routine = std::string("draw_3d_object_shadow_(null ") + call.argument + ")";
                std::vector<EventRecord> original = faces, reimpl_faces;
                for (const auto& f : drawn_faces) reimpl_faces.push_back(shadow_face_event(f));
                // The rejection's result is what each side drew: the pixels it changed in its frame
                // (the original's framebuffer as the call left it), each against the marked
                // background it started from (a clear to the clear colour changes the marks), zero
                // for a guard that held.
                const auto drawn = [](std::span<const std::uint8_t> pixels,
                                      std::span<const std::uint8_t> background) {
                    return static_cast<std::int64_t>(changed_pixels(pixels, background));
                };
                original.push_back(
                    rejection_event(routine, drawn(framebuffer.read(), framebuffer.background())));
                reimpl_faces.push_back(rejection_event(routine, drawn(frame.pixels, marked_frame().pixels)));
                ctx.comparator.compare(input, original, reimpl_faces);
                ctx.events += original.size() + reimpl_faces.size();
            }
        }
        for (std::size_t vi = 0; vi < c.views.size(); ++vi) {
            const View& view = c.views[vi];
            for (std::size_t si = 0; si < c.suns.size(); ++si) {
                reimpl::ShadowParams params;
                params.sun = {c.suns[si][0], c.suns[si][1], c.suns[si][2]};
                // The plane the shadow falls on: the model's lowest point. The ground under it lies
                // lower (a deck's plane above the sea, shadow.plane.rule), so that a draw projecting
                // onto terrain_height instead of plane_height (shadow.project's h) differs: with both
                // at the lowest point, it stayed equivalent over every shadow case.
                params.plane_height = h.bounds[2];
                params.terrain_height = ground_below(h.bounds[2]);
                o.machine().write(params_at, pack(o.profile(), params));
                // A probing view places a shadow point, which moves with the sun: one camera per sun.
                const reimpl::Camera camera =
                    view.probe ? shadow_camera_for(models.record(reimpl::shadow_geometry(models, record)),
                                                   view, params.sun, params.plane_height)
                               : camera_for(models.record(record), view);
                o.machine().write(camera_at, pack(o.profile(), camera));
                for (const std::uint32_t state : c.states) {
                    const std::string input = "record " + std::to_string(record) + " view " +
                                              std::to_string(vi) + " sun " + std::to_string(si) + " state " +
                                              std::to_string(state);
                    if (!ctx.selected(input)) continue;
                    framebuffer.fill_background();
                    faces.clear();
                    o.call("draw_3d_object_shadow_", {built.eax, camera_at, params_at, state});
                    const auto original = framebuffer.read();
                    reimpl::Frame frame = marked_frame();
                    const auto drawn_faces = in_phase(
                        Phase::reimpl, [&] { return renderer.draw(root, camera, params, state, frame); });
                    if (invalid.active())
                        invalid.input(input, renderer.take_stops(), [&] {
                            reimpl::Frame ignored;
                            (void)reimpl::draw_shadow(models, root, camera, params, state, ignored);
                        });
                    std::vector<EventRecord> reimpl_faces;
                    for (const auto& f : drawn_faces) reimpl_faces.push_back(shadow_face_event(f));
                    ctx.comparator.compare(input, faces, reimpl_faces);
                    ctx.events += faces.size() + reimpl_faces.size();
                    const auto fc =
                        ctx.comparator.compare_frame(input, {&faces, &reimpl_faces}, original, frame.pixels,
                                                     frame.taint, {}, kWidth, framebuffer.background());
                    ++frames;
                    ctx.events += 2;
                    differing += fc.differing ? 1 : 0;
                    const bool any = changed_pixels(original, framebuffer.background()) != 0;
                    drawn += any ? 1 : 0;
                    reimpl_drawn += changed_pixels(frame.pixels, reimpl_background) != 0 ? 1 : 0;
                    if (pictures.choose(fc.differing != 0, any))
                        save_frame_pictures(ctx, input, frames, original, frame.pixels, fc, palette);
                }
            }
        }
    }
    compare_record_selection(ctx, models);
    ctx.report["frame_selection"] = pictures.json();
    ctx.report["metrics"] = {{"records", records},
                             {"shadow_frames", frames},
                             {"original_frames_with_shadow_pixels", drawn},
                             {"reimpl_frames_with_shadow_pixels", reimpl_drawn},
                             {"frames_differing", differing}};
    if (invalid.active()) ctx.report["invalid_program"] = invalid.finish(ctx.narrowed());
}

} // namespace refcheck::harness
