// One case from start to report: profile checked, inputs hashed, the original booted, the family
// run, the report assembled. Never throws: problems become a report with status "error".
#include "run/case_observer.hpp"
#include "run/case_part.hpp"
#include "refcheck/harness/filter.hpp"
#include "family/families.hpp"

#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/input_watch.hpp"
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/run.hpp"
#include "refcheck/emu/data_root.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace refcheck::harness {

namespace fs = std::filesystem;

std::vector<std::string> needed_symbols(Family f) {
    std::vector<std::string> n = {"initialise_3d_objects_", "object_table",  "object_count", "object_archive",
                                  "object_archive_size",    "texture_table", "texture_count"};
    auto add = [&](std::initializer_list<const char*> more) { n.insert(n.end(), more.begin(), more.end()); };
    switch (f) {
        case Family::Loader: break;
        case Family::Palette:
            add({"initialise_3d_palette_", "palette_rgb", "intensity_table", "ramp_table", "glass_table",
                 "haze_table"});
            break;
        case Family::Construct: add({"construct_3d_object_"}); break;
        case Family::Program:
            add({"initialise_3d_palette_", "construct_3d_object_", "draw_3d_object_",
                 "draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
                 "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_",
                 "polygon_winding_", "draw_attached_object_", "palette_rgb", "framebuffer", "run_program",
                 "packet_kinds", "gouraud_enabled", "op_ifmask", "op_choose", "op_select"});
            break;
        case Family::Shadow:
            add({"initialise_3d_palette_", "construct_3d_object_", "draw_3d_object_shadow_",
                 "draw_shadow_face_", "polygon_winding_", "palette_rgb", "framebuffer"});
            break;
        case Family::Mobile:
            add({"reset_mobiles_", "add_mobile_", "move_mobile_", "remove_mobile_", "build_mobile_queue_",
                 "sector_map"});
            break;
        case Family::Receiver:
            add({"reset_mobiles_", "add_mobile_", "move_mobile_", "shadow_plane_height_", "last_receiver",
                 "sector_map"});
            break;
        case Family::Scene:
            add({"initialise_3d_palette_",
                 "construct_3d_object_",
                 "draw_scene_",
                 "sample_terrain_height_",
                 "build_mobile_queue_",
                 "shadow_plane_height_",
                 "draw_3d_object_",
                 "draw_3d_object_shadow_",
                 "reset_mobiles_",
                 "add_mobile_",
                 "move_mobile_",
                 "sector_map",
                 "last_receiver",
                 "palette_rgb",
                 "framebuffer",
                 "run_program",
                 "packet_kinds",
                 "gouraud_enabled",
                 "op_ifmask",
                 "op_choose",
                 "op_select"});
            break;
    }
    return n;
}

namespace {

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
    for (const auto& v : c.views) {
        views.push_back({{"yaw", v.yaw}, {"pitch", v.pitch}, {"roll", v.roll}, {"distance", v.distance}});
        if (v.probe) views.back()["probe"] = *v.probe;
        if (v.position) views.back()["position"] = *v.position;
        if (v.rotation) views.back()["rotation"] = *v.rotation;
    }
    s["views"] = views;
    s["lights"] = c.lights;
    s["states"] = c.states;
    s["warzones"] = c.warzones;
    if (!c.only.empty()) s["only"] = c.only;
    if (c.filter) s["filter"] = c.filter->pattern();
    return s;
}

} // namespace

namespace {
// What the seeded light swap (--inject-reimpl-light-swap) does to a case: of the lights the
// reimplementation is given (the program family: every light of the selection, each input; the scene
// family: its one light; the others: none), how many the swap changes. A light with x equal to z
// is the same light swapped: a case whose lights are all such runs the reimplementation unmodified.
struct LightSwapEffect {
    std::size_t lights = 0;
    std::size_t changed = 0;
};
LightSwapEffect light_swap_effect(const Case& c) {
    LightSwapEffect e;
    if (c.family == Family::Program) e.lights = c.lights.size();
    if (c.family == Family::Scene) e.lights = std::min<std::size_t>(1, c.lights.size());
    for (std::size_t k = 0; k < e.lights; ++k) e.changed += c.lights[k].at(0) != c.lights[k].at(2) ? 1 : 0;
    return e;
}

// The case report's "injected": each patch with the bytes it replaced, and the light swap with what
// it changed in this case (none is said in words: such a case tests the reimplementation's input
// unmodified, whatever the banner announced).
ojson apply_injection(Original& o, const Injection& injection, const Case& c,
                      std::vector<AppliedPatch>& applied_patches) {
    ojson j = ojson::object();
    ojson patches = ojson::array();
    for (const auto& p : injection.patches) {
        const AppliedPatch applied = o.patch(p); // PatchMismatch: the case is an error, nothing runs
        applied_patches.push_back(applied);
        ojson entry = {{"where", p.where},
                       {"address", emu::hex(applied.address)},
                       {"bytes", hex_string(p.bytes)},
                       {"replaced", hex_string(applied.replaced)}};
        if (!p.expected.empty()) entry["expected"] = hex_string(p.expected);
        patches.push_back(entry);
    }
    if (!patches.empty()) j["patches"] = patches;
    if (injection.reimpl_light_swapped) {
        j["reimpl_light"] = "x and z swapped";
        const LightSwapEffect e = light_swap_effect(c);
        j["reimpl_lights"] = e.lights;
        j["reimpl_lights_changed"] = e.changed;
        if (e.changed == 0)
            j["reimpl_light_inert"] = e.lights == 0 ? "the " + std::string(family_name(c.family)) +
                                                          " family gives the reimplementation no light"
                                                    : "every light of this case has x equal to z";
    }
    return j;
}
// Whether a patch's bytes ran in this case, by the case's coverage (every block run inside the
// covered routines' span): true when a block that ran overlaps them, false when none did, null when
// they lie outside that span (data, or code past the routines), where coverage cannot tell. A block
// at a replaced routine's entry does not count: the replacement took over before its first
// instruction. Coverage counts a block run when it is entered: one that held a fault of the case
// before the patch (or at an EIP only known to be the block's start) may have run only up to the
// fault, so when every block overlapping the patch did, it cannot tell either (null, and `why`).
ojson patch_executed(const Original& original, const AppliedPatch& p, std::string& why) {
    const emu::Coverage& coverage = original.machine().coverage();
    const emu::Range span = coverage.span();
    const std::uint64_t end = std::uint64_t{p.address} + p.patch.bytes.size();
    if (!span.contains(p.address) || end > span.end) return nullptr;
    const std::vector<std::uint32_t>& replaced = original.replaced_entries();
    bool cut = false;
    for (const auto& [start, hits] : coverage.blocks()) {
        if (!(start < end && std::uint64_t{start} + hits.size > p.address) ||
            std::find(replaced.begin(), replaced.end(), start) != replaced.end())
            continue;
        bool faulted_before = false;
        for (const ojson& f : original.faults()) {
            const ojson& eip = member(f, "eip");
            if (!eip.is_string()) continue;
            const auto at = static_cast<std::uint32_t>(std::stoul(eip.get<std::string>(), nullptr, 16));
            const bool exact = member(f, "eip_exact") != false;
            if (exact ? at >= start && at < p.address : at == start) faulted_before = true;
        }
        if (!faulted_before) return true;
        cut = true;
    }
    if (!cut) return false;
    why =
        "a fault of the case in the block holding the patch, before it: the block may have run only up to it";
    return nullptr;
}
} // namespace

void require_success(CaseContext& ctx, const emu::CallResult& r, const std::string& call, Expect expect) {
    if (!r.ok()) throw OriginalFailed(call + " faulted: " + r.fault->message);
    if (expect == Expect::Zero ? r.eax == 0 : r.eax != 0) return;
    EventRecord e;
    e.kind = "fault";
    e.fields = {{"routine", call},
                {"fault", std::string("returned_failure")},
                {"message",
                 call + " returned " + std::to_string(r.eax) +
                     (expect == Expect::Zero ? ", the case needs 0" : ", the case needs a nonzero result")}};
    e.key_fields = 1;
    ctx.comparator.fault(std::move(e), ctx.inputs_started ? std::string() : "boot");
    throw OriginalFailed(call + " returned " + std::to_string(r.eax));
}

namespace {
// The reimplementation's verdict on the archives, for a boot the original refused: its validator's
// message when it rejects them too (the data root is broken), else empty (the original's refusal of
// archives the reimplementation accepts is a divergence).
std::optional<reimpl::FormatError> reimpl_error(const CaseContext& ctx) {
    for (const char* archive : {"3DOBJS.BIN", "OBJTEXT.BIN"})
        if (auto missing = ctx.missing_archive(archive)) return missing;
    try {
        (void)reimpl::ModelArchive::parse(ctx.models);
        (void)reimpl::TextureArchive::parse(ctx.textures);
        return std::nullopt;
    } catch (const reimpl::FormatError& e) {
        return e;
    }
}
std::string reimpl_rejection(const CaseContext& ctx) {
    const auto e = reimpl_error(ctx);
    return e ? e->what() : std::string();
}

// A refusal's reason as cases and profiles name them: the archive's ("objects", "textures",
// "palette") and the kind of check that refused ("objects_table", "textures_record").
std::string refusal_reason(const reimpl::FormatError& e) {
    const std::string& archive = e.where().archive;
    const std::string prefix = archive == reimpl::kModelArchiveName     ? "objects"
                               : archive == reimpl::kTextureArchiveName ? "textures"
                               : archive == reimpl::kPaletteFileName    ? "palette"
                                                                        : archive;
    return prefix + "_" + std::string(reimpl::check_name(e.where().check));
}

std::string describe_rejection(const std::string& archive, std::optional<std::uint32_t> record) {
    return archive + (record ? " record " + std::to_string(*record) : std::string(" (its table)"));
}

// A case on a hostile data root ("rejects"): the original's initialiser of the broken archive must
// return its failure, 1 (abi.init_objects for 3DOBJS.BIN and OBJTEXT.BIN, abi.init_palette for
// 3DPAL.RGB, whose case first needs the objects accepted), and the reimplementation's validator
// must refuse the file (result 1) naming the archive and record the case says are broken. The two
// results are compared as one "rejection" event; a refusal of something else than the case names is
// an error.
void compare_rejection(CaseContext& ctx, const emu::CallResult& boot) {
    const Rejection& want = *ctx.c.rejects;
    std::string routine = "initialise_3d_objects_";
    emu::CallResult result = boot;
    std::optional<reimpl::FormatError> error;
    if (want.archive == "3DPAL.RGB") {
        require_success(ctx, boot, routine, Expect::Zero);
        const auto warzone = static_cast<std::uint32_t>(ctx.c.warzones.front());
        routine = "initialise_3d_palette_";
        result = ctx.original.call(routine, {warzone});
        try {
            error = ctx.missing_archive("3DPAL.RGB");
            if (!error) (void)reimpl::build_palette(ctx.palette, warzone);
        } catch (const reimpl::FormatError& e) {
            error = e;
        }
    } else {
        error = reimpl_error(ctx);
    }
    if (!result.ok()) throw OriginalFailed(routine + " faulted: " + result.fault->message);
    // The case exists to show a refusal: with neither side refusing, the two results (0 and 0)
    // matched and the case was equivalent on a root nothing found broken (its generator writing a
    // valid root, or a --data root in place of the hostile one). That is not a pass.
    if (result.eax == 0 && !error)
        throw std::runtime_error(
            "nothing refused: both sides accept the data root the case says is broken (" +
            describe_rejection(want.archive, want.record) + "): " + routine +
            " returned 0 and the reimplementation's validator accepts it");
    ojson report = {{"expected", describe_rejection(want.archive, want.record)},
                    {"original_result", result.eax},
                    {"reimpl_error", error ? ojson(error->what()) : ojson(nullptr)}};
    // Why the original refused, where the case states it: the image's own initialise_error. Its
    // result alone (1) matched whatever check refused, so an original without the check the case is
    // about, refusing the root at a later one, passed.
    // The case names the reason; the profile gives the number the image's initialise_error holds
    // for that name ("values"). A profile without the global or without that name (the real
    // image's template) does not say why the image refuses, and the report says the reason was not
    // compared and why.
    std::optional<std::string> original_reason;
    if (want.reason) {
        const auto& data = ctx.original.profile().data;
        const auto global = data.find("initialise_error");
        std::string not_compared;
        if (global == data.end() || !global->second.address)
            not_compared = "the profile has no data \"initialise_error\" with an address: the image does "
                           "not say why it refuses, only that it does (result 1)";
        else if (!global->second.values.count(*want.reason))
            not_compared = "the profile's \"initialise_error\" has no \"values\" entry \"" + *want.reason +
                           "\": the image's number for this reason is not known";
        if (!not_compared.empty()) {
            report["reason_not_compared"] = not_compared;
            // What the image holds, so that its profile's owner can name it (not compared).
            if (global != data.end() && global->second.address)
                report["original_value"] = ctx.original.u32("initialise_error");
        } else {
            // The original's reason is the name its value has in the profile (each number names
            // one reason: load_profile refuses two names sharing one); a value the profile names
            // nothing is shown as its number.
            const std::uint32_t value = ctx.original.u32("initialise_error");
            original_reason = initialise_error_name(ctx.original, *want.reason);
            report["original_reason"] = {{"name", *original_reason}, {"value", value}};
            report["expected_reason"] = {{"name", *want.reason},
                                         {"value", global->second.values.at(*want.reason)}};
        }
    }
    // The reimplementation's reason is its own account of which check refused (FormatError's
    // check), named as the cases name reasons: it was the case's, granted on the case's word, so a
    // validator refusing the case's record by another check than the case's matched the original.
    std::optional<std::string> reimpl_reason;
    if (error) reimpl_reason = refusal_reason(*error);
    if (reimpl_reason) report["reimpl_reason"] = *reimpl_reason;
    ctx.report["rejection"] = report;
    if (error && (error->where().archive != want.archive || error->where().record != want.record))
        throw std::runtime_error("the reimplementation refuses " +
                                 describe_rejection(error->where().archive, error->where().record) +
                                 ", the case expects " + describe_rejection(want.archive, want.record) +
                                 ": " + error->what());
    if (reimpl_reason && want.reason && *reimpl_reason != *want.reason)
        throw std::runtime_error("the reimplementation refuses " +
                                 describe_rejection(want.archive, want.record) + " at a check of kind \"" +
                                 *reimpl_reason + "\", the case says \"" + *want.reason +
                                 "\": " + error->what());
    // Each side's reason is compared where the original's is known (named by the profile).
    ctx.comparator.compare("data root", {rejection_event(routine, result.eax, original_reason)},
                           {rejection_event(routine, error ? 1 : 0,
                                            original_reason ? reimpl_reason : std::optional<std::string>{})});
    ctx.events += 2;
    ctx.original.note_ran(routine);
}
} // namespace

namespace {
std::string describe_selection(const Case& c) {
    std::string s = "records " + c.records.encoding;
    if (!c.records.list.empty()) {
        s += " list of " + std::to_string(c.records.list.size());
    } else {
        if (c.records.from) s += " from " + std::to_string(*c.records.from);
        if (c.records.to) s += " to " + std::to_string(*c.records.to);
    }
    if (c.records.stride > 1) s += " stride " + std::to_string(c.records.stride);
    return s;
}
} // namespace

// An equivalent verdict must rest on something compared: an input selected, events compared, and
// every event kind the case exists to compare compared at least once.
void require_compared(const Case& c, const Counts& counts, bool narrowed) {
    if (const CasePart* part = case_part(); part && !part->finishing()) return; // a share: the finish checks
    if (counts.inputs == 0)
        throw std::runtime_error(
            "nothing compared: the case's selection selects no input on this data root (" +
            describe_selection(c) + (c.only.empty() ? "" : ", narrowed to \"" + c.only + "\"") + ")");
    if (counts.compared == 0)
        throw std::runtime_error("nothing compared: " + std::to_string(counts.inputs) +
                                 " input(s) ran, and neither side produced an event" +
                                 (counts.blank_frames
                                      ? " (" + std::to_string(counts.blank_frames) +
                                            " blank frame(s) on both sides, which this case does not count)"
                                      : std::string()));
    if (narrowed) return; // some inputs need not show every kind
    std::string never;
    for (const auto& k : c.compares) {
        const auto it = counts.by_kind.find(k);
        if (it == counts.by_kind.end() || it->second == 0) never += (never.empty() ? "" : ", ") + k;
    }
    if (!never.empty())
        throw std::runtime_error("nothing compared of the event kind(s) the case exists to compare: " +
                                 never + " (\"compares\" in " + c.file.filename().string() + ")");
}

fs::path archive_file(const fs::path& data, std::string_view guest_name, std::string_view archive) {
    std::string written(guest_name);
    std::replace(written.begin(), written.end(), '\\', '/');
    std::error_code ec;
    if (!fs::is_directory(data, ec)) return data / written;
    const emu::Resolution r = emu::DataRoot(data).resolve(guest_name);
    if (r.status == emu::Resolution::Status::refused)
        throw reimpl::FormatError(
            reimpl::Location{std::string(archive), std::nullopt, 0, reimpl::Check::open},
            "the data root refuses " + std::string(guest_name) + ": " + r.reason);
    return r.status == emu::Resolution::Status::found ? r.host : data / written;
}

std::vector<std::uint8_t> read_data_archive(const fs::path& data, std::string_view guest_name,
                                            std::string_view archive, InputWatch* watch) {
    const fs::path file = archive_file(data, guest_name, archive);
    // The file by its name in the data root ("3DDATA/3DOBJS.BIN"), never by where the root lies: a
    // report quotes the reimplementation's message, and must read the same in every checkout.
    std::string label(guest_name);
    std::replace(label.begin(), label.end(), '\\', '/');
    if (watch) watch->watch(file, label); // before the read: a write during it shows too
    std::vector<std::uint8_t> bytes = reimpl::read_archive(file, archive, label);
    if (watch) watch->given(file, sha256_hex(bytes)); // what the guest's read of it must match
    return bytes;
}

namespace {
// The archives a case reads from its data root: the report's name for each (inputs.archives), the
// guest's, and the reimplementation's (a FormatError's archive). Models, textures, palette.
struct DataArchive {
    const char* label;
    const char* guest;
    const char* name;
};
constexpr std::array<DataArchive, 3> kArchives{{{"3DDATA/3DOBJS.BIN", "3DDATA\\3DOBJS.BIN", "3DOBJS.BIN"},
                                                {"3DDATA/OBJTEXT.BIN", "3DDATA\\OBJTEXT.BIN", "OBJTEXT.BIN"},
                                                {"3DPAL.RGB", "3DPAL.RGB", "3DPAL.RGB"}}};

// What is wrong with what the case names by SHA-256 (a file the guest read that is not the bytes
// the reimplementation was given, or changed since it was opened; an input changed during the
// case); empty when nothing.
std::string inputs_as_run(const InputWatch& watched, const GuestReads& reads) {
    std::string out;
    if (!reads.problems.empty())
        out = "the original's reads are not what the report names: " + reads.problems;
    if (const std::string changed = watched.changed(); !changed.empty())
        out += (out.empty() ? "" : "\n") +
               std::string("an input file changed while the case ran, so the original and the "
                           "reimplementation may have read different bytes and the report's SHA-256 may "
                           "not be what ran: ") +
               changed;
    return out;
}

// The report's "files": the original's file accesses, a file it read named by SHA-256.
ojson files_named(const Original& original, const GuestReads& reads) {
    ojson files = original.files_json();
    for (std::size_t k = 0; k < reads.sha256.size() && k < files.size(); ++k)
        if (!reads.sha256[k].empty()) files[k]["sha256"] = reads.sha256[k];
    return files;
}
} // namespace

ojson archive_hashes(const fs::path& data) {
    ojson out = ojson::object();
    for (const DataArchive& a : kArchives) {
        try {
            out[a.label] = sha256_hex(read_data_archive(data, a.guest, a.name));
        } catch (const reimpl::FormatError&) {
            out[a.label] = nullptr; // as run_case names an archive the data root lacks
        }
    }
    return out;
}

CaseResult run_case(const Case& c, const Environment& env, const Injection& injection) {
    return run_case_with(c, env, injection, nullptr);
}

ojson case_report_head(const Case& c) {
    ojson r;
    r["schema"] = kCaseReportSchema;
    r["case"] = c.name;
    // The case file as parsed (what refcheck diff requires of a fix: the same case), not as it is
    // now: an edit during the run does not change what this case ran.
    if (!c.sha256.empty()) r["case_sha256"] = c.sha256;
    r["family"] = std::string(family_name(c.family));
    r["description"] = c.description;
    r["rules"] = c.rules;
    r["allow"] = c.allow;
    r["compares"] = c.compares;
    if (c.blank_frames) r["blank_frames"] = true;
    r["status"] = "error";
    return r;
}

namespace {
// The finish of a split case (case_part.hpp): what the parts compared, added before the family runs
// (which then compares nothing and reports the merged metrics) and the report is assembled.
void absorb_parts(const std::vector<CaseResult>& parts, CaseContext& ctx, Comparator& comparator,
                  ExerciseCounter* exercised, Original& original) {
    emu::Coverage& coverage = original.machine().coverage();
    for (const CaseResult& part : parts) {
        const ojson& s = part_state_of(part);
        comparator.absorb(counts_from_json(s.at("counts")));
        if (exercised)
            exercised->absorb(s.at("observed").get<std::vector<std::uint64_t>>(),
                              s.at("matched").get<std::uint64_t>());
        for (const ojson& b : s.at("blocks"))
            coverage.record(b.at(0).get<std::uint32_t>(), b.at(1).get<std::uint32_t>());
        ctx.events += s.at("events").get<std::uint64_t>();
        for (const ojson& name : s.at("ran")) original.note_ran(name.get<std::string>());
    }
}

DiscoveryMemo& discovery_memo() {
    static DiscoveryMemo memo;
    return memo;
}

// A part's state for the finish (case_part.hpp).
ojson part_state(std::uint64_t events, const Comparator& comparator, const ExerciseCounter* exercised,
                 Original& original, std::uint64_t boot_instructions, const ojson& family) {
    ojson s;
    s["counts"] = to_json(comparator.counts());
    if (exercised) {
        s["observed"] = exercised->observed();
        s["matched"] = exercised->matched();
    }
    ojson blocks = ojson::array();
    for (const auto& [address, hits] : original.machine().coverage().blocks())
        blocks.push_back(ojson::array({address, hits.size}));
    s["blocks"] = std::move(blocks);
    s["events"] = events;
    s["ran"] = original.noted_ran(); // the finish checks them against the parts' merged coverage
    s["instructions_boot"] = boot_instructions;
    s["instructions_total"] = original.instructions_total();
    if (comparator.first_known()) s["first_known"] = to_json(*comparator.first_known());
    s["family"] = family;
    return s;
}
} // namespace

CaseResult run_case_with(const Case& c, const Environment& env, const Injection& injection,
                         InputProbe* probe) {
    const CasePart* part = case_part();
    CaseResult result;
    result.name = c.name;
    ojson& r = result.report;
    r = case_report_head(c);
    if (part && (probe || !splittable(c, injection))) {
        r["error"] = "case " + c.name + " cannot be split below the case level, yet ran as a part of one";
        return result;
    }
    CompareOptions options;
    options.allowed = c.allow;
    options.tolerance = c.tolerance;
    options.clear_colour = reimpl::kClearColour; // what the families clear both framebuffers to
    options.blank_frames_count = c.blank_frames;
    Comparator comparator(options);
    comparator.only(c.only);
    comparator.only_set(c.only_inputs);
    if (c.filter)
        comparator.only_matching(
            [&c](const std::string& input) { return c.filter->selects_input(c.name, input); });
    std::optional<ExerciseCounter> exercised; // the claimed rules' predicates, over matched events
    if (env.rules) {
        exercised.emplace(exercise_counter(c, *env.rules));
        comparator.observe_matches(
            [&](const EventRecord& a, const EventRecord& b) { exercised->observe(a, b); });
        comparator.observe_inputs([&](const std::string&) { exercised->begin_input(); });
    }
    std::unique_ptr<Original> original;
    std::vector<RoutineBlocks> covered;        // the profile's routines and those they call
    std::vector<AppliedPatch> applied_patches; // the seeded patches, for whether each one's bytes ran
    std::optional<CoverageReasons> reasons;    // for this image, when the run has them
    std::vector<KeyedBlock> keyed;             // the blocks of the reasons' groups
    bool reasons_apply = false;                // the reasons are for this image's hash
    std::uint64_t boot_instructions = 0;       // a part's instructions before its family ran
    InputWatch watched; // what the report names by SHA-256, stamped before it is first read
    std::optional<GuestReads> guest_reads; // the files the guest read, by SHA-256
    try {
        watched.watch(env.profile, "the profile");
        watched.watch(env.image, "the image");
        const Profile profile = load_profile(env.profile); // the Original keeps its own copy
        std::vector<std::string> needed = needed_symbols(c.family);
        if (c.scene.terrain_map) needed.emplace_back("terrain_map"); // scene.sampler.standin
        for (auto& n : profile.needed_by_boot()) needed.push_back(std::move(n));
        const auto missing = profile.missing(needed);
        if (!missing.empty()) {
            std::string list;
            for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
            throw ProfileError(env.profile.filename().string() + " lacks an address for: " + list);
        }
        const std::string image_sha256 = sha256_file(env.image);
        if (const std::string mismatch =
                profile_image_mismatch(profile, env.profile.filename(), env.image.filename(), image_sha256);
            !mismatch.empty())
            throw ProfileError(mismatch);
        r["inputs"] = {
            {"image", {{"file", env.image.filename().string()}, {"sha256", image_sha256}}},
            {"profile", {{"file", env.profile.filename().string()}, {"sha256", sha256_file(env.profile)}}}};
        std::vector<reimpl::FormatError> lacking;
        const auto archive = [&](const DataArchive& a) {
            try {
                return read_data_archive(env.data, a.guest, a.name, &watched);
            } catch (const reimpl::FormatError& e) {
                lacking.push_back(e); // refused at boot by both sides, or an error there
                return std::vector<std::uint8_t>{};
            }
        };
        CaseContext ctx{c,
                        env,
                        *(original = std::make_unique<Original>(env, profile)),
                        archive(kArchives[0]),
                        archive(kArchives[1]),
                        archive(kArchives[2]),
                        comparator,
                        r};
        ctx.missing = std::move(lacking);
        original->on_fault([&comparator, &ctx](const std::string& routine, const emu::Fault& f) {
            comparator.fault(fault_event(routine, f), ctx.inputs_started ? std::string() : "boot");
        });
        original->set_case_limits(c.instructions_per_call, c.instructions_per_case, c.events_per_call);
        r["limits"] = {{"instructions_per_call", c.instructions_per_call},
                       {"instructions_per_case", c.instructions_per_case},
                       {"events_per_call", c.events_per_call},
                       {"wall_ms_per_call", Original::kWallBackstopMs},
                       {"stops_at_first_overrun", true}};
        // Before any patch; the static disassembly is remembered across the cases of this process
        // (a worker's, single-threaded) and reused only where the memory it read is unchanged.
        const std::vector<RoutineBlocks>& found =
            discovery_memo().routines(original->machine(), image_sha256, profile_entries(profile));
        covered = found;
        enable_coverage(original->machine(), covered);
        if (CaseObserver* observer = case_observer()) observer->booted(*original, comparator);
        if (env.coverage_reasons) {
            reasons = load_coverage_reasons(*env.coverage_reasons);
            // The reasons are scoped to one image hash: another image gets none, and says so.
            reasons_apply = reasons->image_sha256 == image_sha256;
            if (reasons_apply) keyed = discovery_memo().keyed(original->machine(), found, *reasons);
        }
        if (!injection.empty()) r["injected"] = apply_injection(*original, injection, c, applied_patches);
        ctx.injection = &injection;
        ctx.files = &result.files;
        ctx.probe = probe;
        // A file the data root lacks is named null.
        r["inputs"]["archives"] = ojson::object();
        for (const DataArchive& a : kArchives)
            r["inputs"]["archives"][a.label] =
                ctx.missing_archive(a.name) ? ojson(nullptr) : ojson(watched.given_sha256(a.label));
        r["selection"] = selection_json(c);
        bool stopped = false;
        try {
            if (!profile.boot_until.empty()) {
                // Boot mode: the C runtime's start-up runs from the entry point until it reaches the
                // profile's routine; its faults are boot faults like the initialiser's.
                const auto started = original->run_entry_until(profile.boot_until);
                if (!started.ok())
                    throw OriginalFailed("the start-up from the entry point faulted before " +
                                         profile.boot_until + ": " + started.fault->message);
                r["boot"] = {{"entry_until", profile.boot_until},
                             {"address", emu::hex(profile.address_of(profile.boot_until))}};
            }
            const auto boot = original->call("initialise_3d_objects_", {});
            if (c.rejects) {
                ctx.inputs_started = true;
                original->note_ran("initialise_3d_objects_");
                compare_rejection(ctx, boot);
            } else {
                if (boot.ok() && boot.eax != 0) {
                    // Both sides refuse a broken data root: an error, the reimplementation's validator first
                    // (archive, record, byte offset), the original's reaction second.
                    const std::string rejected = reimpl_rejection(ctx);
                    if (!rejected.empty())
                        throw std::runtime_error("the data root is invalid: " + rejected +
                                                 "\n  the original agrees: initialise_3d_objects_ returned " +
                                                 std::to_string(boot.eax));
                }
                require_success(ctx, boot, "initialise_3d_objects_", Expect::Zero);
                original->note_ran("initialise_3d_objects_");
                ctx.inputs_started = true;
                boot_instructions = original->instructions_total();
                if (part && part->finishing())
                    absorb_parts(*part->finish, ctx, comparator, exercised ? &*exercised : nullptr,
                                 *original);
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
                if (part && part->finishing()) {
                    // The report's file accesses are the finish's own (its boot's and set-up's, no
                    // record): each part's must be the same, or its records read files the merged
                    // report would not show.
                    const ojson files =
                        files_named(*original, watched.guest_reads(original->file_accesses()));
                    // Each part ran on this finish's image, profile and archives (by SHA-256): parts
                    // of another run (refcheck merge with another --data) are not this case's.
                    const std::size_t n = part->finish->size();
                    for (std::size_t k = 0; k < n; ++k) {
                        const ojson& report = (*part->finish)[k].report;
                        const std::string which =
                            "part " + std::to_string(k + 1) + " of " + std::to_string(n);
                        if (member(report, "inputs") != r.at("inputs"))
                            throw std::runtime_error(which +
                                                     " ran on other inputs than this finish (image, profile "
                                                     "or archives by SHA-256: " +
                                                     member(report, "inputs").dump() + " against " +
                                                     r.at("inputs").dump() +
                                                     "): its results are not this case's");
                        if (member(report, "files") != files)
                            throw std::runtime_error(
                                which +
                                " read files the boot and set-up did not (its records read files): its "
                                "accesses cannot be merged");
                    }
                }
            }
        } catch (const OriginalFailed& e) {
            stopped = true;
            r["stopped"] =
                std::string("the original failed where the case needs it to succeed, so the case stopped: ") +
                e.what();
        }
        // An allocation the emulator's heap refused only because it never reuses freed blocks: a
        // real heap might have served it, so what the original did next (fail, or go on without the
        // memory) is the emulator's doing, and no verdict stands. It was a divergence (or an
        // equivalence) blamed on, or credited to, the original.
        if (const auto& refusal = original->machine().heap().refused_for_space())
            throw std::runtime_error(
                "the emulator's guest heap (" +
                std::to_string(original->machine().heap().region().size() >> 20) +
                " MiB, freed blocks never reused) refused " + refusal->routine + "'s request of " +
                std::to_string(refusal->size) + " bytes with " + std::to_string(refusal->in_use) +
                " bytes in use, though the request alone fits: a real heap might have served it, so the "
                "case cannot say what the original does (an emulator limit, not a verdict)");
        if (!c.only.empty() && !comparator.saw_only()) {
            if (!stopped) throw std::runtime_error("--only: the case has no input named \"" + c.only + "\"");
            // Input names are known only as the family reaches them: a case that stopped first (at
            // its boot, say) cannot tell a misspelt name from one it never reached, and says so.
            r["stopped"] = r["stopped"].get<std::string>() + "; --only \"" + c.only +
                           "\" names no input the case reached before it stopped, so whether the case has "
                           "one is not known";
        }
        result.events = ctx.events;
        const Counts& counts = comparator.counts();
        // A case that compared nothing is an error, not an equivalent one: checked before the
        // status is set, so that the result (the CLI's table, the workers) never says equivalent.
        if (!counts.unexplained) require_compared(c, counts, ctx.narrowed());
        // Both sides read, and the report names, the files as they were stamped: an edit during the
        // case is an error, whatever the comparison found.
        // What the guest read, hashed from the files it opened (unchanged since), must be what the
        // reimplementation was given under the same name.
        guest_reads = watched.guest_reads(original->file_accesses());
        if (std::string problems = inputs_as_run(watched, *guest_reads); !problems.empty())
            throw std::runtime_error(problems);
        if (exercised && ctx.narrowed()) exercised->set_narrowed();
        if (ctx.narrowed()) r["selection"]["inputs_left_out"] = ctx.left_out_count();
        result.status = counts.unexplained ? Status::Divergent : Status::Equivalent;
        r["status"] = std::string(status_name(result.status));
    } catch (const PreconditionError& e) {
        r["error"] = std::string("precondition: ") + e.what() +
                     " (the data root may be valid; this case cannot run on it)";
        r["precondition"] = e.what();
    } catch (const reimpl::FormatError& e) {
        r["error"] = std::string("reimplementation: ") + e.what();
    } catch (const std::exception& e) {
        r["error"] = e.what();
    }
    // The fault handler holds the try block's context and the families' taps and replacements their
    // recorders, all gone now: no call may run into them (the case observer's finished() included).
    if (original) original->close("case " + c.name + " has finished; the objects its hooks hold are gone");
    r["hooks"] = original ? original->hooks_json() : ojson::object();
    if (original && !guest_reads) {
        // The case stopped before the check: what it read still goes into the error (a guest that
        // read other bytes than the reimplementation was given fails in other ways first).
        guest_reads = watched.guest_reads(original->file_accesses());
        if (r.contains("error"))
            if (const std::string problems = inputs_as_run(watched, *guest_reads); !problems.empty())
                r["error"] = r.at("error").get<std::string>() + "\n" + problems;
    }
    r["files"] = original ? files_named(*original, *guest_reads) : ojson::array();
    r["counts"] = to_json(comparator.counts());
    if (comparator.first_unexplained()) r["first_unexplained"] = to_json(*comparator.first_unexplained());
    if (comparator.first_known()) {
        r["first_known"] = to_json(*comparator.first_known());
    } else if (part && part->finishing()) {
        // The first known divergence of the unsplit run is the first part's that has one.
        for (const CaseResult& p : *part->finish)
            if (part_state_of(p).contains("first_known")) {
                r["first_known"] = part_state_of(p).at("first_known");
                break;
            }
    }
    r["faults"] = original ? ojson(original->faults()) : ojson::array();
    if (original && !covered.empty()) {
        const std::string drcov = c.name + "/coverage.drcov";
        r["coverage"] = coverage_json(covered, original->machine().coverage(), env.image.filename().string());
        r["coverage"]["drcov"] = drcov;
        if (reasons && reasons_apply) annotate_coverage(r["coverage"], keyed, *reasons);
        if (reasons && !reasons_apply) note_reasons_for_another_image(r["coverage"], *reasons);
        result.files.emplace_back(drcov, drcov_bytes(original->machine()));
    }
    // "injected" is there only when every patch was applied (a mismatch stops the case first).
    if (original && r.contains("injected"))
        for (std::size_t k = 0; k < applied_patches.size(); ++k) {
            std::string why;
            r["injected"]["patches"][k]["executed"] = patch_executed(*original, applied_patches[k], why);
            if (!why.empty()) r["injected"]["patches"][k]["executed_unknown"] = why;
        }
    if (exercised) r["exercised"] = exercised->json(r);
    if (part && !part->finishing() && original && r.at("status") == "equivalent") {
        ojson family = r.contains("part_family") ? r.at("part_family") : ojson::object();
        r.erase("part_family");
        r["part_state"] = part_state(result.events, comparator, exercised ? &*exercised : nullptr, *original,
                                     boot_instructions, family);
    }
    if (CaseObserver* observer = case_observer(); observer && original) observer->finished(*original, r);
    return result;
}

} // namespace refcheck::harness
