// Program family: the face programs of the selected records under an enumerated matrix of views,
// lights and animation states. The original's draw_3d_object_ runs under emulation with its face
// routines replaced by recorders (or tapped, when they run); the reimplementation's interpreter runs
// on the same integers; the two event streams are compared per input.
#include "family/families.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/phase.hpp"
#include "family/invalid_program.hpp"
#include "family/placement.hpp"
#include "family/recorder.hpp"
#include "family/selection.hpp"
#include "run/case_part.hpp"

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace refcheck::harness {

namespace {

// How many of `events` are draws (faces and attached objects).
std::int64_t draws(const std::vector<EventRecord>& events) {
    return std::count_if(events.begin(), events.end(), [](const EventRecord& e) {
        return e.kind == "face_draw" || e.kind == "attached_draw";
    });
}

// A hash of a few integers (the sets below are only counted: no order is needed).
struct IntsHash {
    static std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
        h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        return h;
    }
    template <class A, class B>
    std::size_t operator()(const std::pair<A, B>& p) const {
        return mix(mix(0, static_cast<std::uint64_t>(p.first)), static_cast<std::uint64_t>(p.second));
    }
    template <class A, class B, class C>
    std::size_t operator()(const std::tuple<A, B, C>& t) const {
        return mix(operator()(std::pair(std::get<0>(t), std::get<1>(t))),
                   static_cast<std::uint64_t>(std::get<2>(t)));
    }
};

// What ran, by side: `original_*` from the original's own events of the inputs whose streams
// agreed (its face packets, its state switches and where they sent the walk), `reimpl_*` from the
// reimplementation's (which also knows op 2's outcome from its winding).
struct ProgramMetrics {
    std::uint64_t inputs = 0, records = 0;
    using Pairs = std::unordered_set<std::pair<std::int64_t, std::int64_t>, IntsHash>;
    Pairs packets; // original: (record, offset)
    std::unordered_set<std::tuple<std::int64_t, std::int64_t, std::int64_t>, IntsHash>
        cf_outcomes;       // original: (record, offset, next)
    Pairs cf_instructions; // original: (record, offset)
    std::unordered_set<std::tuple<std::uint32_t, std::uint32_t, std::int64_t>, IntsHash>
        reimpl_cf_cases; // ops 2-5
};

// A split case's part hands its metrics to the finish (run/case_part.hpp): the counts, and the
// seen-sets as flat lists of integers (their union is the unsplit run's set).
template <class Set>
ojson flat(const Set& set) {
    ojson out = ojson::array();
    for (const auto& e : set) std::apply([&](auto... v) { (out.push_back(v), ...); }, e);
    return out;
}
template <class Set, std::size_t N>
void unflatten(const ojson& flat, Set& set) {
    if (flat.size() % N)
        throw std::runtime_error("part_state: a seen-set's list is not in tuples of " + std::to_string(N));
    for (std::size_t i = 0; i < flat.size(); i += N) {
        typename Set::value_type e;
        std::size_t k = i;
        std::apply([&](auto&... v) { ((v = flat.at(k++).get<std::remove_reference_t<decltype(v)>>()), ...); },
                   e);
        set.insert(e);
    }
}
ojson part_json(const ProgramMetrics& m) {
    return {{"records", m.records},
            {"inputs", m.inputs},
            {"packets", flat(m.packets)},
            {"cf_outcomes", flat(m.cf_outcomes)},
            {"cf_instructions", flat(m.cf_instructions)},
            {"reimpl_cf_cases", flat(m.reimpl_cf_cases)}};
}
void absorb(ProgramMetrics& m, const ojson& j) {
    m.records += j.at("records").get<std::uint64_t>();
    m.inputs += j.at("inputs").get<std::uint64_t>();
    unflatten<ProgramMetrics::Pairs, 2>(j.at("packets"), m.packets);
    unflatten<decltype(m.cf_outcomes), 3>(j.at("cf_outcomes"), m.cf_outcomes);
    unflatten<ProgramMetrics::Pairs, 2>(j.at("cf_instructions"), m.cf_instructions);
    unflatten<decltype(m.reimpl_cf_cases), 3>(j.at("reimpl_cf_cases"), m.reimpl_cf_cases);
}

std::int64_t int_field(const EventRecord& e, std::string_view name) {
    const Value* v = e.find(name);
    const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr;
    return i ? *i : -1;
}

std::string input_name(std::uint32_t record, std::size_t view, std::size_t light, std::uint32_t state) {
    return "record " + std::to_string(record) + " view " + std::to_string(view) + " light " +
           std::to_string(light) + " state " + std::to_string(state);
}

// Counts what an input whose streams agreed has checked: on the original's side its packets and
// its state switches' outcomes; on the reimplementation's its control-flow cases (ops 2-5).
void count_checked(const std::vector<EventRecord>& original, const std::vector<events::Event>& events,
                   ProgramMetrics& m) {
    // insert, not emplace: a packet seen before (most are) is found without allocating a node.
    for (const auto& e : original) {
        if (e.kind == "face_draw") {
            m.packets.insert({int_field(e, "record"), int_field(e, "offset")});
        } else if (e.kind == "control_flow") {
            m.cf_outcomes.insert({int_field(e, "record"), int_field(e, "offset"), int_field(e, "next")});
            m.cf_instructions.insert({int_field(e, "record"), int_field(e, "offset")});
        }
    }
    for (const auto& ev : events) {
        if (const auto* w = std::get_if<events::WindingDecision>(&ev)) {
            if (w->opcode == 2) m.reimpl_cf_cases.insert({w->record, w->offset, w->winding >= 0 ? 1 : 0});
        } else if (const auto* c = std::get_if<events::ControlFlow>(&ev)) {
            m.reimpl_cf_cases.insert({c->record, c->offset, c->taken});
        }
    }
}

constexpr std::uint32_t kWidth = 320; // fb.size: the row pitch

// Frame mode: the original's face routines run and rasterise into its framebuffer; the
// reimplementation rasterises its own events; the frames are compared pixel by pixel.
class FrameCheck {
public:
    FrameCheck(CaseContext& ctx, const reimpl::TextureArchive& textures) : ctx_(ctx), o_(ctx.original) {
        require_success(ctx, o_.call("initialise_3d_palette_", {0}), "initialise_3d_palette_(0)",
                        Expect::Zero);
        o_.note_ran("initialise_3d_palette_");
        palette_ = reimpl::build_palette(ctx.palette, 0);
        rasteriser_.emplace(palette_, textures);
        guest_palette_ = o_.bytes(o_.address("palette_rgb"), 768);
        pixel_flags_ = flags_explaining(ctx.c.allow, "pixels");
    }
    // Both sides' frames start from the marked background (marked_background): a draw that clears
    // the framebuffer erases its marks (fb.clear).
    void clear() { framebuffer_.fill_background(); }
    // The reimplementation's frame of an input's events; whether the original's draw of it must be
    // watched for its own evidence (the frame carries a cause the case allows for pixels).
    std::uint32_t render(const std::vector<events::Event>& events) {
        frame_ = marked_frame();
        for (const auto& ev : events)
            if (const auto* f = std::get_if<events::FaceDraw>(&ev)) rasteriser_->draw(*f, frame_);
        return taint_causes(frame_.taint, pixel_flags_);
    }
    void compare(const std::string& input, const FrameEvents& events,
                 const std::vector<std::uint8_t>& original_taint) {
        const auto original = framebuffer_.read();
        const reimpl::Frame& frame = frame_;
        const FrameComparison fc =
            ctx_.comparator.compare_frame(input, events, original, frame.pixels, frame.taint, original_taint,
                                          kWidth, framebuffer_.background());
        ++frames_;
        differing_ += fc.differing ? 1 : 0;
        const bool drawn = changed_pixels(original, framebuffer_.background()) != 0;
        if (pictures_.choose(fc.differing != 0, drawn)) save(input, original, frame.pixels, fc);
    }
    ojson metrics() const { return {{"frames", frames_}, {"frames_differing", differing_}}; }
    // The pixels the last render() changed in the reimplementation's frame.
    std::size_t reimpl_changed() const { return changed_pixels(frame_.pixels, marked_frame().pixels); }
    // A split case (run/case_part.hpp): a part hands on its frame counts (its pictures are in its
    // report's "frames" and beside it); the finish takes the parts' frames in order, numbering them on
    // from the frames before, and keeps the pictures the unsplit run keeps: every differing frame,
    // and the first part's sample (a later part's first drawn frame is not the case's first).
    ojson part_json() const { return {{"frames", frames_}, {"differing", differing_}}; }
    void absorb(const std::vector<CaseResult>& parts) {
        const std::string prefix = ctx_.c.name + "/frame-";
        for (const CaseResult& p : parts) {
            const ojson& state = part_state_of(p).at("family").at("frames");
            const auto frames = state.at("frames").get<std::uint64_t>();
            const ojson& saved = member(p.report, "frames");
            for (const ojson& entry : saved) {
                if (!pictures_.choose(entry.at("differing_pixels").get<std::uint64_t>() != 0, true)) continue;
                ojson kept = entry;
                for (const char* png : {"original_png", "reimpl_png", "diff_png"}) {
                    const std::string name = entry.at(png).get<std::string>();
                    const std::size_t dash = name.find('-', prefix.size());
                    if (name.rfind(prefix, 0) != 0 || dash == std::string::npos)
                        throw std::runtime_error("part_state: a frame picture named " + name);
                    const std::uint64_t n = std::stoull(name.substr(prefix.size(), dash - prefix.size()));
                    const std::string renamed = prefix + std::to_string(frames_ + n) + name.substr(dash);
                    const auto file = std::find_if(p.files.begin(), p.files.end(),
                                                   [&](const auto& f) { return f.first == name; });
                    if (file == p.files.end()) throw std::runtime_error("part_state: no picture " + name);
                    ctx_.files->emplace_back(renamed, file->second);
                    kept[png] = renamed;
                }
                ctx_.report["frames"].push_back(std::move(kept));
            }
            for (std::uint64_t k = saved.size(); k < frames; ++k) pictures_.choose(false, false);
            frames_ += frames;
            differing_ += state.at("differing").get<std::uint64_t>();
        }
    }
    ojson selection() const { return pictures_.json(); }

private:
    void save(const std::string& input, const std::vector<std::uint8_t>& a,
              const std::vector<std::uint8_t>& b, const FrameComparison& fc) {
        save_frame_pictures(ctx_, input, frames_, a, b, fc, guest_palette_);
    }
    CaseContext& ctx_;
    Original& o_;
    reimpl::PaletteTables palette_;
    std::optional<reimpl::Rasteriser> rasteriser_;
    std::vector<std::uint8_t> guest_palette_;
    GuestFramebuffer framebuffer_{o_};
    std::uint32_t pixel_flags_ = 0;
    reimpl::Frame frame_;
    std::uint64_t frames_ = 0, differing_ = 0;
    FramePictures pictures_{"the first drawn frame", 1};
};

} // namespace

void run_program(CaseContext& ctx) {
    Original& o = ctx.original;
    const Case& c = ctx.c;
    InvalidProgramCheck invalid(c);
    invalid.archive(ctx.models);
    const auto models = reimpl::ModelArchive::parse(ctx.models, invalid.cut_lists());
    const auto textures = reimpl::TextureArchive::parse(ctx.textures);
    reimpl::DrawOptions options;
    options.invalid_data = invalid.mode();
    options.gouraud = c.gouraud;
    // light.gouraud: the original reads the global at every draw (run_program's entry).
    if (!c.gouraud) o.write_u32("gouraud_enabled", 0);
    reimpl::Interpreter interpreter(models, textures, options);
    for (const auto& name : c.run)
        if (std::find(c.replace.begin(), c.replace.end(), name) != c.replace.end())
            throw std::runtime_error("hooks: " + name + " is both replaced and run");
    const bool run_faces = !c.run.empty();
    Recorder recorder(o, c.run);
    std::optional<FrameCheck> frames;
    if (run_faces) frames.emplace(ctx, textures);

    const std::uint32_t camera_at = o.scratch(GuestStruct(o.profile(), "camera").size()),
                        light_at = o.scratch(GuestStruct(o.profile(), "light").size());
    const std::uint32_t origin_at = o.scratch(12), identity_at = o.scratch(36);
    o.machine().write(origin_at, pack_words(reimpl::Vec3{}));
    o.machine().write(identity_at, pack_words(reimpl::kIdentityQ31));
    std::vector<reimpl::Light> lights;
    for (const auto& l : c.lights) lights.push_back(reimpl::Light{{l[0], l[1], l[2]}});
    const bool swap_light = ctx.injection && ctx.injection->reimpl_light_swapped;

    ProgramMetrics m;
    std::uint64_t unexplained_before = 0;
    // The reimplementation's events, raw and converted, their storage kept from input to input
    // (ReusedSink, EventStream); the null-argument inputs use them too.
    ReusedSink sink;
    EventStream reimpl_stream;
    std::vector<const events::Event*> control_flow;
    if (ctx.probe) recorder.observe([&](std::size_t index) { ctx.probe->event(o, index); });
    // With isolate_records, every record starts from the guest state here, after the boot and the
    // set-up: the stale stack and heap bytes the original reads (a missing normal's face level,
    // fault.normal.missing) are then the set-up's, not the previous record's.
    std::optional<emu::Snapshot> start;
    if (c.isolate_records) start.emplace(o.machine().snapshot());
    ctx.report["record_start"] = c.isolate_records ? "isolated" : "carried";
    // A split case's part compares the inputs of its share of the records; the finish none.
    const CasePart* part = case_part();
    const std::vector<std::uint32_t> records = select_records(c, models);
    // A record's weight for sharing the records out: its bytes (vertices, normals, face program)
    // and a fixed cost per record (the restore, the instance's construction), in bytes' stead.
    std::vector<std::uint64_t> weights;
    if (part && !part->finishing())
        for (const std::uint32_t record : records)
            weights.push_back(models.record(record).extent.size() + 1024);
    const std::vector<std::size_t> owner =
        part && !part->finishing() ? part->shares(weights) : std::vector<std::size_t>{};
    for (std::size_t ri = 0; ri < records.size(); ++ri) {
        const std::uint32_t record = records[ri];
        if (part && (part->finishing() || owner[ri] != part->index)) continue;
        if (!ctx.selects_within("record " + std::to_string(record) + " ")) continue;
        if (start) o.restore(*start); // the seeded patches and a served mutant kept
        ++m.records;
        // abi.null: with "null_arguments", construct_3d_object_'s null position and rotation (the
        // origin and the identity) build every instance.
        const auto built = c.null_arguments
                               ? o.call("construct_3d_object_", {record, 0, 0})
                               : o.call("construct_3d_object_", {record, origin_at, identity_at});
        if (!built.ok() || !built.eax) {
            // The original could not build the instance: a divergence (a fault is one already), and
            // nothing of this record can be compared.
            ctx.report["construct_failures"].push_back(record);
            if (built.ok()) {
                try {
                    require_success(ctx, built, "construct_3d_object_(" + std::to_string(record) + ")",
                                    Expect::Nonzero);
                } catch (const OriginalFailed&) {}
            }
            // The fault is the record's: named by the first of its inputs the case compares (the
            // input compared next is another record's, or none when this record is the last).
            std::vector<std::string> inputs;
            if (c.null_arguments && m.records == 1)
                for (const char* argument : {"instance", "camera", "light"})
                    inputs.push_back("record " + std::to_string(record) + " null " + argument);
            for (std::size_t vi = 0; vi < c.views.size(); ++vi)
                for (std::size_t li = 0; li < lights.size(); ++li)
                    for (const std::uint32_t state : c.states)
                        inputs.push_back(input_name(record, vi, li, state));
            const auto first = std::find_if(inputs.begin(), inputs.end(),
                                            [&](const std::string& input) { return ctx.narrowed_to(input); });
            if (first != inputs.end()) ctx.comparator.label_faults(*first);
            continue;
        }
        const reimpl::Instance root = in_phase(Phase::reimpl, [&] {
            return c.null_arguments ? reimpl::construct(models, record, nullptr, nullptr)
                                    : reimpl::construct(models, record, reimpl::Transform{});
        });
        if (c.null_arguments && m.records == 1) {
            // abi.null: draw_3d_object_ with each pointer argument null, after a draw of the first
            // record's instance: nothing is drawn on either side.
            const reimpl::Camera camera = camera_for(models.record(record), c.views.at(0));
            o.machine().write(camera_at, pack(o.profile(), camera));
            o.machine().write(light_at, pack(o.profile(), lights.at(0)));
            const reimpl::Instance* root_p = &root;
            const reimpl::Camera* camera_p = &camera;
            const reimpl::Light* light_p = &lights[0];
            const struct {
                const char* argument;
                std::array<std::uint32_t, 3> guest;
                bool instance, camera, light;
            } calls[] = {{"instance", {0, camera_at, light_at}, false, true, true},
                         {"camera", {built.eax, 0, light_at}, true, false, true},
                         {"light", {built.eax, camera_at, 0}, true, true, false}};
            const GuestFramebuffer framebuffer(o);
            for (const auto& call : calls) {
                const std::string input = "record " + std::to_string(record) + " null " + call.argument;
                if (!ctx.selected(input)) continue;
                sink.clear();
                in_phase(Phase::reimpl, [&] {
                    interpreter.draw(call.instance ? root_p : nullptr, call.camera ? camera_p : nullptr,
                                     call.light ? light_p : nullptr, 0, sink);
                });
                recorder.begin(record, call.guest[0]);
                framebuffer.fill_background();
                const auto r = o.call("draw_3d_object_", {call.guest[0], call.guest[1], call.guest[2], 0});
                recorder.end();
                if (!r.ok())
                    throw OriginalFailed("draw_3d_object_ faulted with a null " + std::string(call.argument) +
                                         ": " + r.fault->message);
                const std::string routine = std::string("draw_3d_object_(null ") + call.argument + ")";
                std::vector<EventRecord> original = recorder.events();
                reimpl_stream.clear();
                control_flow.clear();
                convert_reimpl(sink.events(), reimpl_stream, control_flow);
                std::vector<EventRecord> reimpl_events = reimpl_stream.events();
                // The rejection's result is what each side drew: its draw events (faces and
                // attached objects) for this call, zero for a guard that held.
                original.push_back(rejection_event(routine, draws(original)));
                reimpl_events.push_back(rejection_event(routine, draws(reimpl_events)));
                // And the pixels each changed from the marked background it started from: the
                // original's framebuffer as the call left it (a draw painting it directly, not through
                // a face routine, showed in no event); the reimplementation's frame of its events
                // where the case rasterises (frames), else none: its draw paints only through them.
                std::int64_t reimpl_pixels = 0;
                if (frames) {
                    (void)frames->render(sink.events());
                    reimpl_pixels = static_cast<std::int64_t>(frames->reimpl_changed());
                }
                original.push_back(rejection_event(
                    routine + " pixels",
                    static_cast<std::int64_t>(changed_pixels(framebuffer.read(), framebuffer.background()))));
                reimpl_events.push_back(rejection_event(routine + " pixels", reimpl_pixels));
                ctx.events += original.size() + reimpl_events.size();
                ctx.comparator.compare(input, original, reimpl_events);
            }
        }
        for (std::size_t vi = 0; vi < c.views.size(); ++vi) {
            const reimpl::Camera camera = camera_for(models.record(record), c.views[vi]);
            o.machine().write(camera_at, pack(o.profile(), camera));
            for (std::size_t li = 0; li < lights.size(); ++li) {
                o.machine().write(light_at, pack(o.profile(), lights[li]));
                for (const std::uint32_t state : c.states) {
                    const std::string input = input_name(record, vi, li, state);
                    if (!ctx.selected(input)) continue;
                    ++m.inputs;
                    // The reimplementation first: where its frame carries a cause the case allows,
                    // the original's draw is watched for its own evidence of it (FaceWitness).
                    sink.clear();
                    reimpl::Light light = lights[li];
                    if (swap_light) std::swap(light.direction[0], light.direction[2]);
                    in_phase(Phase::reimpl, [&] {
                        interpreter.draw(root, reimpl::DrawInput{camera, light, state}, sink);
                    });
                    if (invalid.active())
                        invalid.input(input, interpreter.take_stops(), [&] {
                            events::VectorSink ignored;
                            reimpl::Interpreter(models, textures)
                                .draw(root, reimpl::DrawInput{camera, light, state}, ignored);
                        });
                    const std::uint32_t watched = frames ? frames->render(sink.events()) : 0;

                    recorder.begin(record, built.eax);
                    if (frames) frames->clear();
                    if (watched) recorder.witness().arm(watched);
                    if (ctx.probe) ctx.probe->begin(o);
                    o.call("draw_3d_object_", {built.eax, camera_at, light_at, state});
                    recorder.end();
                    if (ctx.probe) ctx.probe->end(o);
                    // Only frames read the taint (64,000 bytes an input, all zero when not armed).
                    std::vector<std::uint8_t> original_taint;
                    if (frames) original_taint = recorder.witness().take_taint();
                    if (watched) recorder.witness().arm(0);
                    const std::vector<EventRecord>& original = recorder.events();

                    reimpl_stream.clear();
                    control_flow.clear();
                    convert_reimpl(sink.events(), reimpl_stream, control_flow);
                    const std::vector<EventRecord>& reimpl_events = reimpl_stream.events();
                    if (ctx.probe) ctx.probe->streams(original, reimpl_events, sink.events());

                    ctx.events += original.size() + reimpl_events.size();
                    ctx.comparator.compare(input, original, reimpl_events);
                    if (frames) frames->compare(input, {&original, &reimpl_events}, original_taint);
                    if (ctx.comparator.counts().unexplained == unexplained_before)
                        count_checked(original, sink.events(), m);
                    unexplained_before = ctx.comparator.counts().unexplained;
                }
            }
        }
    }
    if (part && part->finishing()) {
        // The parts must have shared out exactly this selection, in order: each part's records are
        // the next ones after the part before, and together they end at the selection's end. A
        // merge that would lose or repeat a record is refused (the case is an error).
        std::size_t next = 0;
        for (std::size_t k = 0; k < part->finish->size(); ++k) {
            const ojson& f = part_state_of((*part->finish)[k]).at("family");
            const auto from = f.at("owned_from").get<std::size_t>(), to = f.at("owned_to").get<std::size_t>();
            if (f.at("selected").get<std::size_t>() != records.size() || from != next || to < from)
                throw std::runtime_error("the parts do not share out the case's " +
                                         std::to_string(records.size()) +
                                         " selected records in order: part " + std::to_string(k + 1) +
                                         " of " + std::to_string(part->finish->size()) + " holds records " +
                                         std::to_string(from) + " to " + std::to_string(to) + " of " +
                                         f.at("selected").dump() + ", expected from " + std::to_string(next));
            next = to;
        }
        if (next != records.size())
            throw std::runtime_error("the parts do not share out the case's " +
                                     std::to_string(records.size()) + " selected records: they end at " +
                                     std::to_string(next));
        for (const CaseResult& p : *part->finish) absorb(m, part_state_of(p).at("family"));
        if (frames) frames->absorb(*part->finish);
    } else if (part) {
        ctx.report["part_family"] = part_json(m);
        // Which of the selected records this part held: [owned_from, owned_to) of `selected`.
        // The owners are non-decreasing: a part's records run from the first owned by it or a later
        // part to the first owned by a later part (an empty share is an empty range there).
        const auto from = static_cast<std::size_t>(std::lower_bound(owner.begin(), owner.end(), part->index) -
                                                   owner.begin());
        const auto to = static_cast<std::size_t>(std::upper_bound(owner.begin(), owner.end(), part->index) -
                                                 owner.begin());
        ctx.report["part_family"]["selected"] = records.size();
        ctx.report["part_family"]["owned_from"] = from;
        ctx.report["part_family"]["owned_to"] = to;
        if (frames) ctx.report["part_family"]["frames"] = frames->part_json();
    }
    // After the inputs, as the finish of a split case runs it after the parts' (the same order).
    if (!part || part->finishing()) compare_record_selection(ctx, models);
    const auto& by_kind = ctx.comparator.counts().by_kind;
    auto kind = [&](const char* k) {
        auto it = by_kind.find(k);
        return it == by_kind.end() ? 0ull : it->second;
    };
    ctx.report["metrics"] = {{"records", m.records},
                             {"inputs", m.inputs},
                             {"draw_events", kind("face_draw") + kind("attached_draw")},
                             {"face_draw_events", kind("face_draw")},
                             {"attached_draw_events", kind("attached_draw")},
                             {"winding_events", kind("winding_decision")},
                             {"control_flow_events", kind("control_flow")},
                             {"original_packet_checks", m.packets.size()},
                             {"original_control_flow_instructions", m.cf_instructions.size()},
                             {"original_control_flow_outcomes", m.cf_outcomes.size()},
                             {"reimpl_control_flow_cases", m.reimpl_cf_cases.size()}};
    if (frames) ctx.report["metrics"].update(frames->metrics());
    if (frames) ctx.report["frame_selection"] = frames->selection();
    if (invalid.active()) ctx.report["invalid_program"] = invalid.finish(ctx.narrowed());
}

} // namespace refcheck::harness
