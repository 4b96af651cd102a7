// One case from start to report: profile checked, inputs hashed, the original booted, the family
// run, the report assembled. Never throws: problems become a report with status "error".
#include "families.hpp"

#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/run.hpp"
#include "refcheck/reimpl/format_error.hpp"

#include <fstream>

namespace refcheck::harness {

namespace fs = std::filesystem;

std::vector<std::string> needed_symbols(Family f) {
    std::vector<std::string> n = {"initialise_3d_objects_", "object_table", "object_count", "object_archive",
                                  "object_archive_size", "texture_table", "texture_count"};
    auto add = [&](std::initializer_list<const char*> more) { n.insert(n.end(), more.begin(), more.end()); };
    switch (f) {
        case Family::Loader: break;
        case Family::Palette:
            add({"initialise_3d_palette_", "palette_rgb", "intensity_table", "ramp_table", "glass_table", "haze_table"});
            break;
        case Family::Construct: add({"construct_3d_object_"}); break;
        case Family::Program:
            add({"initialise_3d_palette_", "construct_3d_object_", "draw_3d_object_",
                 "draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
                 "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_",
                 "polygon_winding_", "draw_attached_object_", "palette_rgb", "framebuffer"});
            break;
        case Family::Shadow:
            add({"initialise_3d_palette_", "construct_3d_object_", "draw_3d_object_shadow_", "draw_shadow_face_",
                 "polygon_winding_", "palette_rgb", "framebuffer"});
            break;
        case Family::Mobile:
            add({"reset_mobiles_", "add_mobile_", "move_mobile_", "remove_mobile_", "build_mobile_queue_"});
            break;
        case Family::Receiver:
            add({"reset_mobiles_", "add_mobile_", "move_mobile_", "shadow_plane_height_", "last_receiver"});
            break;
        case Family::Scene:
            add({"initialise_3d_palette_", "construct_3d_object_", "draw_scene_", "sample_terrain_height_",
                 "build_mobile_queue_", "shadow_plane_height_", "draw_3d_object_", "draw_3d_object_shadow_",
                 "reset_mobiles_", "add_mobile_", "move_mobile_", "last_receiver", "palette_rgb", "framebuffer"});
            break;
    }
    return n;
}

namespace {

std::vector<std::uint8_t> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), {}};
}

ojson selection_json(const Case& c) {
    ojson s;
    ojson r;
    r["encoding"] = c.records.encoding;
    if (c.records.from) r["from"] = *c.records.from;
    if (c.records.to) r["to"] = *c.records.to;
    if (!c.records.list.empty()) r["list"] = c.records.list;
    r["stride"] = c.records.stride;
    s["records"] = r;
    ojson views = ojson::array();
    for (const auto& v : c.views)
        views.push_back({{"yaw", v.yaw}, {"pitch", v.pitch}, {"roll", v.roll}, {"distance", v.distance}});
    s["views"] = views;
    s["lights"] = c.lights;
    s["states"] = c.states;
    s["warzones"] = c.warzones;
    if (!c.only.empty()) s["only"] = c.only;
    return s;
}

}  // namespace

namespace {
ojson apply_injection(Original& o, const Injection& injection) {
    ojson j = ojson::object();
    ojson patches = ojson::array();
    for (const auto& p : injection.patches) {
        const std::uint32_t at = o.patch(p.where, p.bytes);
        std::string hex;
        for (auto b : p.bytes) hex += emu::hex(b).substr(8);
        patches.push_back({{"where", p.where}, {"address", emu::hex(at)}, {"bytes", hex}});
    }
    if (!patches.empty()) j["patches"] = patches;
    if (injection.reimpl_light_swapped) j["reimpl_light"] = "x and z swapped";
    return j;
}
}  // namespace

CaseResult run_case(const Case& c, const Environment& env, const Injection& injection) {
    return run_case_with(c, env, injection, nullptr);
}

CaseResult run_case_with(const Case& c, const Environment& env, const Injection& injection, InputProbe* probe) {
    CaseResult result;
    result.name = c.name;
    ojson& r = result.report;
    r["schema"] = kCaseReportSchema;
    r["case"] = c.name;
    r["family"] = std::string(family_name(c.family));
    r["description"] = c.description;
    r["rules"] = c.rules;
    r["allow"] = c.allow;
    r["status"] = "error";
    CompareOptions options;
    options.allowed = c.allow;
    options.tolerance = c.tolerance;
    Comparator comparator(options);
    comparator.only(c.only);
    std::optional<ExerciseCounter> exercised;  // the claimed rules' predicates, over matched events
    if (env.rules) {
        exercised.emplace(exercise_counter(c, *env.rules));
        comparator.observe_matches([&](const EventRecord& a, const EventRecord& b) { exercised->observe(a, b); });
    }
    std::unique_ptr<Original> original;
    std::vector<RoutineBlocks> covered;  // the profile's routines and those they call
    std::optional<CoverageReasons> reasons;  // for this image, when the run has them
    std::vector<KeyedBlock> keyed;           // the blocks of the reasons' groups
    try {
        const Profile profile = load_profile(env.profile);
        const auto missing = profile.missing(needed_symbols(c.family));
        if (!missing.empty()) {
            std::string list;
            for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
            throw ProfileError(env.profile.filename().string() + " lacks an address for: " + list);
        }
        r["inputs"] = {{"image", {{"file", env.image.filename().string()}, {"sha256", sha256_file(env.image)}}},
                       {"profile", {{"file", env.profile.filename().string()}, {"sha256", sha256_file(env.profile)}}}};
        CaseContext ctx{c, env, *(original = std::make_unique<Original>(env, profile)),
                        read_file(env.data / "3DDATA" / "3DOBJS.BIN"), read_file(env.data / "3DDATA" / "OBJTEXT.BIN"),
                        read_file(env.data / "3DPAL.RGB"), comparator, r};
        covered = discover_routines(original->machine(), profile_entries(profile));  // before any patch
        enable_coverage(original->machine(), covered);
        if (env.coverage_reasons) {
            reasons = load_coverage_reasons(*env.coverage_reasons);
            if (reasons->image == env.image.filename().string())
                keyed = keyed_blocks(original->machine(), covered, *reasons);
            else
                reasons.reset();
        }
        if (!injection.empty()) r["injected"] = apply_injection(*original, injection);
        ctx.injection = &injection;
        ctx.files = &result.files;
        ctx.probe = probe;
        r["inputs"]["archives"] = {{"3DDATA/3DOBJS.BIN", sha256_hex(ctx.models)},
                                   {"3DDATA/OBJTEXT.BIN", sha256_hex(ctx.textures)},
                                   {"3DPAL.RGB", sha256_hex(ctx.palette)}};
        r["selection"] = selection_json(c);
        const auto boot = original->call("initialise_3d_objects_", {});
        if (!boot.ok() || boot.eax != 0)
            throw std::runtime_error("initialise_3d_objects_ failed: " +
                                     (boot.fault ? boot.fault->message : "returned " + std::to_string(boot.eax)));
        original->note_ran("initialise_3d_objects_");
        switch (c.family) {
            case Family::Loader: run_loader(ctx); break;
            case Family::Palette: run_palette(ctx); break;
            case Family::Construct: run_construct(ctx); break;
            case Family::Program: run_program(ctx); break;
            case Family::Shadow: run_shadow(ctx); break;
            case Family::Mobile: run_mobile(ctx); break;
            case Family::Receiver: run_receiver(ctx); break;
            case Family::Scene: run_scene(ctx); break;
        }
        if (!c.only.empty() && !comparator.saw_only())
            throw std::runtime_error("--only: the case has no input named \"" + c.only + "\"");
        result.events = ctx.events;
        const Counts& counts = comparator.counts();
        result.status = counts.unexplained ? Status::Divergent : Status::Equivalent;
        r["status"] = std::string(status_name(result.status));
    } catch (const reimpl::FormatError& e) {
        r["error"] = std::string("reimplementation: ") + e.what();
    } catch (const std::exception& e) {
        r["error"] = e.what();
    }
    r["hooks"] = original ? original->hooks_json() : ojson::object();
    r["files"] = original ? original->files_json() : ojson::array();
    r["counts"] = to_json(comparator.counts());
    if (comparator.first_unexplained()) r["first_unexplained"] = to_json(*comparator.first_unexplained());
    if (comparator.first_known()) r["first_known"] = to_json(*comparator.first_known());
    r["faults"] = original ? ojson(original->faults()) : ojson::array();
    if (original && !covered.empty()) {
        const std::string drcov = c.name + "/coverage.drcov";
        r["coverage"] = coverage_json(covered, original->machine().coverage(), env.image.filename().string());
        r["coverage"]["drcov"] = drcov;
        if (reasons) annotate_coverage(r["coverage"], keyed, *reasons);
        result.files.emplace_back(drcov, drcov_bytes(original->machine()));
    }
    if (exercised) r["exercised"] = exercised->json(r);
    return result;
}

}  // namespace refcheck::harness
