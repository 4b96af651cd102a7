#include "refcheck/harness/case.hpp"
#include "refcheck/harness/json_bounded.hpp"

#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/hash.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <span>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <set>

namespace refcheck::harness {

using nlohmann::json;

std::string_view family_name(Family f) {
    switch (f) {
        case Family::Loader: return "loader";
        case Family::Palette: return "palette";
        case Family::Construct: return "construct";
        case Family::Program: return "program";
        case Family::Shadow: return "shadow";
        case Family::Mobile: return "mobile";
        case Family::Receiver: return "receiver";
        case Family::Scene: return "scene";
    }
    return "?";
}

namespace {

constexpr std::uint32_t kMaxSteps = 10000, kMaxQueries = 100000, kMaxScriptFrames = 1000;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
    throw CaseError(file.string() + ": " + what);
}

template <typename T>
struct Element {
    using type = T;
};
template <typename T>
struct Element<std::vector<T>> {
    using type = typename Element<T>::type;
};

// nlohmann converts a number to any arithmetic type with a plain cast: 1e300 to int32 is undefined
// behaviour, 4294967296 to uint32 is 0 (found by fuzz/case_json). Every number bound for an integer
// must be an integer that fits.
template <typename I>
void check_integers(const json& v, const char* key, const std::filesystem::path& file) {
    if (v.is_array()) {
        for (const auto& e : v) check_integers<I>(e, key, file);
        return;
    }
    if (!v.is_number()) return; // get<T> reports the wrong type
    bool fits = false;
    if (v.is_number_unsigned())
        fits = v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<I>::max());
    else if (v.is_number_integer())
        fits = v.get<std::int64_t>() >= 0
                   ? static_cast<std::uint64_t>(v.get<std::int64_t>()) <=
                         static_cast<std::uint64_t>(std::numeric_limits<I>::max())
                   : std::is_signed_v<I> &&
                         v.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<I>::min());
    if (!fits)
        fail(file,
             std::string("key \"") + key + "\": " + v.dump() + " is not an integer in the range it needs");
}

template <typename T>
T get(const json& j, const char* key, const T& fallback, const std::filesystem::path& file) {
    if (!j.contains(key)) return fallback;
    using E = typename Element<T>::type;
    if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) check_integers<E>(j.at(key), key, file);
    try {
        return j.at(key).get<T>();
    } catch (const json::exception& e) {
        fail(file, std::string("key \"") + key + "\": " + e.what());
    }
}

Family parse_family(const std::string& s, const std::filesystem::path& file) {
    if (s == "loader") return Family::Loader;
    if (s == "palette") return Family::Palette;
    if (s == "construct") return Family::Construct;
    if (s == "program") return Family::Program;
    if (s == "shadow") return Family::Shadow;
    if (s == "mobile") return Family::Mobile;
    if (s == "receiver") return Family::Receiver;
    if (s == "scene") return Family::Scene;
    fail(file, "unknown family \"" + s +
                   "\" (loader, palette, construct, program, shadow, mobile, receiver, scene)");
}

RecordSelection parse_records(const json& j, const std::filesystem::path& file) {
    RecordSelection r;
    if (!j.is_object()) fail(file, "\"selection.records\" must be an object");
    r.encoding = get<std::string>(j, "encoding", "any", file);
    if (r.encoding != "any" && r.encoding != "s16" && r.encoding != "grid")
        fail(file, "\"selection.records.encoding\" must be any, s16 or grid");
    if (j.contains("from")) r.from = get<std::uint32_t>(j, "from", 0, file);
    if (j.contains("to")) r.to = get<std::uint32_t>(j, "to", 0, file);
    r.list = get<std::vector<std::uint32_t>>(j, "list", {}, file);
    r.stride = get<std::uint32_t>(j, "stride", 1, file);
    if (r.stride == 0) fail(file, "\"selection.records.stride\" must be positive");
    return r;
}

std::vector<View> parse_views(const json& j, const std::filesystem::path& file) {
    std::vector<View> out;
    if (!j.is_array()) fail(file, "\"selection.views\" must be an array");
    for (const auto& v : j) {
        View view;
        view.yaw = get<std::int32_t>(v, "yaw", 0, file);
        view.pitch = get<std::int32_t>(v, "pitch", 0, file);
        view.roll = get<std::int32_t>(v, "roll", 0, file);
        view.distance = get<std::int32_t>(v, "distance", 4, file);
        if (view.distance < 1 || view.distance > 1000) fail(file, "view distance must be 1..1000 radii");
        if (v.contains("probe")) {
            const auto probe = get<std::vector<std::int32_t>>(v, "probe", {}, file);
            if (probe.size() != 3) fail(file, "a view's \"probe\" must be a camera-space point [x, y, z]");
            if (v.contains("distance"))
                fail(file, "a probing view places its camera itself: no \"distance\"");
            view.probe = std::array<std::int32_t, 3>{probe[0], probe[1], probe[2]};
        }
        if (v.contains("position")) {
            const auto at = get<std::vector<std::int32_t>>(v, "position", {}, file);
            if (at.size() != 3) fail(file, "a view's \"position\" must be a world point [x, y, z]");
            if (v.contains("distance") || v.contains("probe"))
                fail(file, "a placed view (\"position\") takes neither \"distance\" nor \"probe\"");
            view.position = std::array<std::int32_t, 3>{at[0], at[1], at[2]};
        }
        if (v.contains("rotation")) {
            const auto r = get<std::vector<std::int32_t>>(v, "rotation", {}, file);
            if (r.size() != 9)
                fail(file, "a view's \"rotation\" must be nine Q14 words (rows right, up, forward)");
            if (!view.position || v.contains("yaw") || v.contains("pitch") || v.contains("roll"))
                fail(file, "a view's \"rotation\" goes with a \"position\" and without yaw, pitch or roll");
            view.rotation.emplace();
            std::copy(r.begin(), r.end(), view.rotation->begin());
        }
        out.push_back(view);
    }
    return out;
}

// scene.params.valid, as the case format checks it.
bool valid_scene_params(std::uint32_t cell_shift, std::uint32_t cell_reach, std::uint32_t sea_colour,
                        std::uint32_t band_shift) {
    return cell_shift >= 8 && cell_shift <= 24 && cell_reach <= 15 && sea_colour <= 255 && band_shift <= 31;
}

// selection.scene (scene family; scene.params.valid bounds the parameters).
SceneSelection parse_scene(const json& j, const std::filesystem::path& file) {
    if (!j.is_object()) fail(file, "\"selection.scene\" must be an object");
    SceneSelection s;
    s.cell_shift = get<std::uint32_t>(j, "cell_shift", s.cell_shift, file);
    s.cell_reach = get<std::uint32_t>(j, "cell_reach", s.cell_reach, file);
    s.sea_colour = get<std::uint32_t>(j, "sea_colour", s.sea_colour, file);
    s.band_shift = get<std::uint32_t>(j, "band_shift", s.band_shift, file);
    s.cloud_altitude = get<std::int32_t>(j, "cloud_altitude", s.cloud_altitude, file);
    if (!valid_scene_params(s.cell_shift, s.cell_reach, s.sea_colour, s.band_shift))
        fail(file,
             "selection.scene: cell_shift 8..24, cell_reach 0..15, sea_colour 0..255, band_shift 0..31");
    for (const auto& i : j.value("islands", json::array())) {
        Island island{get<std::int32_t>(i, "x", 0, file), get<std::int32_t>(i, "z", 0, file),
                      get<std::int32_t>(i, "radius", 1, file), get<std::int32_t>(i, "height", 0, file)};
        if (island.radius < 1 || island.radius > (1 << 20) || island.height < 0 || island.height > (1 << 20))
            fail(file, "an island has a radius of 1..2^20 and a height of 0..2^20");
        s.islands.push_back(island);
    }
    s.terrain_map = get<bool>(j, "terrain_map", false, file);
    for (const auto& r : j.value("refused", json::array())) {
        // Every element an integer that fits (a float such as 2.6e38 cast to uint32 is undefined
        // behaviour: found by fuzz/case_json under UBSan).
        if (!r.is_array()) fail(file, "selection.scene.refused: each entry is an array of 4 integers");
        check_integers<std::uint32_t>(r, "selection.scene.refused", file);
        const auto v = r.get<std::vector<std::uint32_t>>();
        if (v.size() != 4)
            fail(file,
                 "selection.scene.refused: each entry is [cell_shift, cell_reach, sea_colour, band_shift]");
        if (valid_scene_params(v[0], v[1], v[2], v[3]))
            fail(file,
                 "selection.scene.refused: an entry inside scene.params.valid (cell_shift 8..24, cell_reach "
                 "0..15, sea_colour 0..255, band_shift 0..31) is no refusal");
        s.refused.push_back({v[0], v[1], v[2], v[3]});
    }
    for (const auto& cam : j.value("cameras", json::array())) {
        const auto at = get<std::vector<std::int32_t>>(cam, "position", {}, file);
        const auto r = get<std::vector<std::int32_t>>(cam, "rotation", {}, file);
        if (at.size() != 3 || r.size() != 9)
            fail(file, "selection.scene.cameras: each is {\"position\": [x, y, z], \"rotation\": [nine Q14 "
                       "words]}");
        SceneSelection::FixedCamera fixed;
        std::copy(at.begin(), at.end(), fixed.position.begin());
        std::copy(r.begin(), r.end(), fixed.rotation.begin());
        s.cameras.push_back(fixed);
    }
    for (const auto& sc : j.value("scripts", json::array())) {
        s.scripts.push_back(
            {get<std::string>(sc, "name", "", file), get<std::uint32_t>(sc, "frames", 0, file)});
        if (s.scripts.back().frames == 0 || s.scripts.back().frames > kMaxScriptFrames)
            fail(file, "a scene script's \"frames\" is 1 to " + std::to_string(kMaxScriptFrames) + ", not " +
                           std::to_string(s.scripts.back().frames));
    }
    return s;
}

const std::set<std::string> kKeys = {"schema",       "family", "description", "image",
                                     "profile",      "data",   "selection",   "hooks",
                                     "tolerance",    "allow",  "rules",       "compares",
                                     "blank_frames", "limits", "rejects",     "invalid_program"};

} // namespace

namespace {
Case parse_case(const json& j, const std::filesystem::path& file);
} // namespace

Case load_case(const std::filesystem::path& file) {
    // Read once: the case parsed and the SHA-256 its reports give are of the same bytes.
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot read the case file");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) fail(file, "cannot read the case file");
    json j;
    try {
        j = parse_json_bounded<json>(bytes);
    } catch (const std::exception& e) {
        fail(file, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object()) fail(file, "a case is a JSON object");
    try {
        Case c = parse_case(j, file);
        c.sha256 = sha256_hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
        return c;
    } catch (const json::exception& e) {
        // A part of another JSON type than the one read from it (a "selection" that is a number...):
        // a CaseError naming the file, not nlohmann's type_error (fuzz/case_json).
        fail(file, std::string("malformed: ") + e.what());
    }
}

namespace {

Case parse_case(const json& j, const std::filesystem::path& file) {
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!kKeys.count(it.key())) fail(file, "unknown key \"" + it.key() + "\"");
    if (get<std::string>(j, "schema", "", file) != "refcheck-case/1")
        fail(file, "\"schema\" must be \"refcheck-case/1\"");
    Case c;
    c.file = file;
    c.name = file.stem().string();
    if (!j.contains("family")) fail(file, "missing \"family\"");
    c.family = parse_family(get<std::string>(j, "family", "", file), file);
    c.description = get<std::string>(j, "description", "", file);
    c.image = get<std::string>(j, "image", "default", file);
    c.profile = get<std::string>(j, "profile", "default", file);
    c.data = get<std::string>(j, "data", "default", file);
    // "generated:NAME" names a root the build generates under its data folder (run.cpp pick_data):
    // a NAME that is absolute or climbs out of it ("generated:../../..") named any folder, "/" too.
    if (c.data.starts_with("generated:")) {
        const std::filesystem::path name = c.data.substr(std::string_view("generated:").size());
        if (name.empty() || name.is_absolute() || name.has_root_name() ||
            std::any_of(name.begin(), name.end(), [](const std::filesystem::path& p) { return p == ".."; }))
            fail(file,
                 "\"data\": \"" + c.data +
                     "\" names no generated data root: after \"generated:\" comes a folder under the build's "
                     "data folder (e.g. \"generated:hostile/NAME\"), never an absolute path or \"..\"");
    }
    const json sel = j.value("selection", json::object());
    if (!sel.is_object()) fail(file, "\"selection\" must be an object");
    if (sel.contains("records")) c.records = parse_records(sel.at("records"), file);
    if (sel.contains("views")) c.views = parse_views(sel.at("views"), file);
    c.lights = get<std::vector<std::vector<std::int32_t>>>(sel, "lights", {}, file);
    for (const auto& l : c.lights)
        if (l.size() != 3) fail(file, "a light is [x, y, z] (Q14)");
    c.states = get<std::vector<std::uint32_t>>(sel, "states", {}, file);
    c.warzones = get<std::vector<std::int32_t>>(sel, "warzones", {}, file);
    c.reinitialise = get<bool>(sel, "reinitialise", false, file);
    c.gouraud = get<bool>(sel, "gouraud", true, file);
    if (!c.gouraud && c.family != Family::Program)
        fail(file, "\"selection.gouraud\" applies to the program family only");
    c.null_arguments = get<bool>(sel, "null_arguments", false, file);
    c.isolate_records = get<bool>(sel, "isolate_records", false, file);
    if (c.isolate_records && c.family != Family::Program)
        fail(file, "\"selection.isolate_records\" applies to the program family only");
    if (c.null_arguments && c.family != Family::Program && c.family != Family::Shadow &&
        c.family != Family::Receiver && c.family != Family::Scene && c.family != Family::Construct)
        fail(file,
             "\"selection.null_arguments\" applies to the program, shadow, receiver, scene and construct "
             "families");
    if (sel.contains("queue_limits")) {
        const auto v = get<std::vector<std::int32_t>>(sel, "queue_limits", {}, file);
        if (v.size() != 2 || v[0] > v[1])
            fail(file, "\"selection.queue_limits\" is [near, far] with near <= far");
        c.queue_limits = std::array<std::int32_t, 2>{v[0], v[1]};
    }
    c.unmodelled = get<bool>(sel, "unmodelled", false, file);
    c.camera_one = get<std::int32_t>(sel, "camera_one", 16384, file);
    if (c.camera_one < 1)
        fail(file, "\"selection.camera_one\" is 1.0 in the camera's rotation: 1 to 2^31 - 1");
    if ((c.queue_limits || c.unmodelled || sel.contains("camera_one")) && c.family != Family::Mobile)
        fail(file, "\"selection.queue_limits\", \"selection.unmodelled\" and \"selection.camera_one\" apply "
                   "to the mobile family only");
    c.tilted = get<bool>(sel, "tilted", false, file);
    if (c.tilted && c.family != Family::Receiver)
        fail(file, "\"selection.tilted\" applies to the receiver family only");
    c.suns = get<std::vector<std::vector<std::int32_t>>>(sel, "suns", {}, file);
    // A sun with y >= 0 (pointing up) draws nothing (shadow.project): a case may show that, but a
    // probing view, which places its shadow point along the sun, needs every sun to shine down.
    const bool probes =
        std::any_of(c.views.begin(), c.views.end(), [](const View& v) { return v.probe.has_value(); });
    for (const auto& d : c.suns) {
        if (d.size() != 3) fail(file, "a sun is [x, y, z] (Q14)");
        if (d[1] >= 0 && probes)
            fail(file,
                 "a sun with y >= 0 (it draws nothing, shadow.project) cannot be seen by a probing view, "
                 "which places its shadow point along the sun");
    }
    c.steps = get<std::uint32_t>(sel, "steps", 0, file);
    // Counts that set how much the harness generates before any emulated call (no instruction
    // budget applies there): a case asking for 2^32 - 1 steps ran for hours. The caps are far above
    // what the shipped cases use (384 steps, 400 queries, 24 frames a script).
    if (c.steps > kMaxSteps)
        fail(file, "\"selection.steps\" is at most " + std::to_string(kMaxSteps) + ", not " +
                       std::to_string(c.steps));
    if (sel.contains("script")) {
        if (c.family != Family::Mobile) fail(file, "\"selection.script\" applies to the mobile family only");
        if (sel.contains("steps") || sel.contains("seed"))
            fail(file, "\"selection.script\" replaces \"selection.steps\" and \"selection.seed\"");
        const json& steps = sel.at("script");
        if (!steps.is_array() || steps.empty())
            fail(file, "\"selection.script\" is a nonempty array of steps");
        std::set<std::uint32_t> live, departed;
        for (std::size_t k = 0; k < steps.size(); ++k) {
            const json& st = steps[k];
            const std::string where = "\"selection.script\" step " + std::to_string(k);
            if (!st.is_object() || st.contains("add") + st.contains("move") + st.contains("remove") != 1)
                fail(file, where + " is one of {\"add\": ID, ...}, {\"move\": ID, ...}, {\"remove\": ID}");
            Case::MobileScriptStep s;
            const char* op = st.contains("add") ? "add" : st.contains("move") ? "move" : "remove";
            s.op = st.contains("add")    ? Case::MobileScriptStep::Op::Add
                   : st.contains("move") ? Case::MobileScriptStep::Op::Move
                                         : Case::MobileScriptStep::Op::Remove;
            s.id = get<std::uint32_t>(st, op, 0, file);
            if (s.id == 0) fail(file, where + ": a mobile id is 1 or more");
            const auto triple = [&](const json& o, const char* key) {
                const auto v = get<std::vector<std::int32_t>>(o, key, {}, file);
                if (v.size() != 3) fail(file, where + ": \"" + key + "\" is [x, y, z]");
                return std::array<std::int32_t, 3>{v[0], v[1], v[2]};
            };
            switch (s.op) {
                case Case::MobileScriptStep::Op::Add:
                    if (live.count(s.id))
                        fail(file, where + ": mobile " + std::to_string(s.id) + " is already added");
                    s.model = get<std::uint32_t>(st, "model", 0, file);
                    s.position = triple(st, "position");
                    s.yaw = get<std::int32_t>(st, "yaw", 0, file);
                    if (st.contains("links")) {
                        const auto v = get<std::vector<std::uint32_t>>(st, "links", {}, file);
                        if (v.size() != 2) fail(file, where + ": \"links\" is [prev, next] (raw words)");
                        s.links = std::array<std::uint32_t, 2>{v[0], v[1]};
                    }
                    live.insert(s.id);
                    departed.erase(s.id);
                    break;
                case Case::MobileScriptStep::Op::Move:
                    if (!live.count(s.id))
                        fail(file, where + ": mobile " + std::to_string(s.id) + " is not added");
                    s.position = triple(st, "position");
                    break;
                case Case::MobileScriptStep::Op::Remove:
                    if (!live.count(s.id) && !departed.count(s.id))
                        fail(file, where + ": mobile " + std::to_string(s.id) + " was never added");
                    s.again = departed.count(s.id) != 0;
                    live.erase(s.id);
                    departed.insert(s.id);
                    break;
            }
            if (st.contains("camera")) {
                const json& cam = st.at("camera");
                if (!cam.is_object() || !cam.contains("position"))
                    fail(file, where + ": \"camera\" is {\"position\": [x, y, z], \"rotation\": [9 words]}");
                s.camera_position = triple(cam, "position");
                if (cam.contains("rotation")) {
                    const auto r = get<std::vector<std::int32_t>>(cam, "rotation", {}, file);
                    if (r.size() != 9) fail(file, where + ": a camera's \"rotation\" is nine words");
                    std::array<std::int32_t, 9> words{};
                    std::copy(r.begin(), r.end(), words.begin());
                    s.camera_rotation = words;
                }
            }
            c.mobile_script.push_back(s);
        }
        c.steps = static_cast<std::uint32_t>(c.mobile_script.size());
        if (c.steps > kMaxSteps)
            fail(file, "\"selection.script\" has at most " + std::to_string(kMaxSteps) + " steps, not " +
                           std::to_string(c.steps));
    }
    c.queries = get<std::uint32_t>(sel, "queries", 0, file);
    if (c.queries > kMaxQueries)
        fail(file, "\"selection.queries\" is at most " + std::to_string(kMaxQueries) + ", not " +
                       std::to_string(c.queries));
    c.seed = get<std::uint64_t>(sel, "seed", 1, file);
    if (sel.contains("centre")) {
        const auto centre = get<std::vector<std::int64_t>>(sel, "centre", {}, file);
        // The scripts place everything within a few million units of the centre; this margin keeps
        // every position they make inside int32 on both sides.
        constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - (std::int64_t{1} << 24);
        if (centre.size() != 2 || std::abs(centre[0]) > kLimit || std::abs(centre[1]) > kLimit)
            fail(file, "\"selection.centre\" is [x, z] with |x|, |z| <= 2^31 - 2^24 (world units)");
        c.centre = std::array<std::int32_t, 2>{static_cast<std::int32_t>(centre[0]),
                                               static_cast<std::int32_t>(centre[1])};
    }
    if (sel.contains("scene")) c.scene = parse_scene(sel.at("scene"), file);
    const json hooks = j.value("hooks", json::object());
    c.replace = get<std::vector<std::string>>(hooks, "replace", {}, file);
    c.run = get<std::vector<std::string>>(hooks, "run", {}, file);
    static const std::set<std::string> kFaceRoutines = {
        "draw_completely_visible_primary_face_", "draw_partially_visible_primary_face_",
        "draw_completely_visible_secondary_face_", "draw_partially_visible_secondary_face_"};
    for (const auto* list : {&c.replace, &c.run})
        for (const auto& name : *list)
            if (!kFaceRoutines.count(name))
                fail(file, "hooks name \"" + name + "\", which is not one of the four face routines");
    const json tol = j.value("tolerance", json::object());
    c.tolerance = get<std::int64_t>(tol, "grid_rounding", 0, file);
    if (c.tolerance < 0 || c.tolerance > 65535)
        fail(file,
             "\"tolerance\": \"grid_rounding\" is the half-size of div.grid_tolerance's camera-space box, "
             "0 to 65535");
    c.allow = get<std::vector<std::string>>(j, "allow", {}, file);
    for (const auto& id : c.allow)
        if (!find_known_divergence(id))
            fail(file, "\"allow\" names \"" + id + "\", which is not in the known-divergence registry");
    c.rules = get<std::vector<std::string>>(j, "rules", {}, file);
    if (j.contains("rejects")) {
        const json& rj = j.at("rejects");
        if (!rj.is_object())
            fail(file,
                 "\"rejects\" is {\"archive\": NAME, \"record\": N or null, \"reason\": NAME (optional)}");
        Rejection rej;
        rej.archive = get<std::string>(rj, "archive", "", file);
        if (rej.archive != "3DOBJS.BIN" && rej.archive != "OBJTEXT.BIN" && rej.archive != "3DPAL.RGB")
            fail(file, "\"rejects\": \"archive\" is \"3DOBJS.BIN\", \"OBJTEXT.BIN\" or \"3DPAL.RGB\"");
        if (rj.contains("record") && !rj.at("record").is_null())
            rej.record = get<std::uint32_t>(rj, "record", 0, file);
        if (rj.contains("reason")) {
            // A name, never a number: the numbers are each image's own (its profile's "values" of
            // initialise_error), and a case runs on any image.
            if (!rj.at("reason").is_string() || rj.at("reason").get<std::string>().empty())
                fail(file, "\"rejects\": \"reason\" names the reason, one of the \"values\" of the "
                           "profile's initialise_error (e.g. \"textures_record\"), not " +
                               rj.at("reason").dump());
            rej.reason = rj.at("reason").get<std::string>();
        }
        const Family needs = rej.archive == "3DPAL.RGB" ? Family::Palette : Family::Loader;
        if (c.family != needs)
            fail(file, "\"rejects\" of " + rej.archive + " is for " + std::string(family_name(needs)) +
                           " cases only");
        c.rejects = rej;
    }
    c.compares = get<std::vector<std::string>>(j, "compares",
                                               c.rejects ? std::vector<std::string>{"rejection"}
                                                         : default_compared_kinds(c.family, !c.run.empty()),
                                               file);
    if (c.compares.empty()) fail(file, "\"compares\" names no event kind: a case must compare something");
    static const std::set<std::string> kKinds = {
        "archive",       "table",        "texture",     "instance",    "face_draw",      "winding_decision",
        "attached_draw", "control_flow", "frame",       "queue_entry", "receiver_query", "terrain_sample",
        "terrain_face",  "shadow_face",  "scene_queue", "plane_query", "object_draw",    "shadow_draw",
        "rejection",     "sector_list",  "sector_map",  "departed"};
    for (const auto& k : c.compares)
        if (!kKinds.count(k))
            fail(file, "\"compares\" names \"" + k + "\", which is not an event kind refcheck compares");
    c.blank_frames = get<bool>(j, "blank_frames", false, file);
    const json limits = j.value("limits", json::object());
    c.instructions_per_call =
        get<std::uint64_t>(limits, "instructions_per_call", Case::kDefaultInstructionsPerCall, file);
    c.instructions_per_case =
        get<std::uint64_t>(limits, "instructions_per_case", Case::kDefaultInstructionsPerCase, file);
    c.events_per_call = get<std::uint64_t>(limits, "events_per_call", Case::kDefaultEventsPerCall, file);
    if (c.instructions_per_call == 0 || c.instructions_per_case == 0)
        fail(file, "\"limits\": instruction budgets must be at least 1");
    if (c.events_per_call == 0) fail(file, "\"limits\": events_per_call must be at least 1");
    if (c.family == Family::Program && (c.views.empty() || c.lights.empty() || c.states.empty()))
        fail(file, "a program case needs selection.views, selection.lights and selection.states");
    if (c.family == Family::Palette && c.warzones.empty()) c.warzones = {0};
    if (c.family == Family::Shadow && (c.views.empty() || c.suns.empty() || c.states.empty()))
        fail(file, "a shadow case needs selection.views, selection.suns and selection.states");
    if (c.family == Family::Mobile && c.steps == 0) fail(file, "a mobile case needs selection.steps");
    if (c.family == Family::Receiver && c.queries == 0) fail(file, "a receiver case needs selection.queries");
    if (j.contains("invalid_program")) {
        const json& ij = j.at("invalid_program");
        if (!ij.is_object() || !ij.contains("record"))
            fail(
                file,
                "\"invalid_program\" is {\"record\": N}: the record whose draw program the data root breaks");
        c.invalid_program = get<std::uint32_t>(ij, "record", 0, file);
        if (c.family != Family::Program && c.family != Family::Shadow && c.family != Family::Construct)
            fail(file, "\"invalid_program\" is for the program, shadow and construct families");
        if (c.data.rfind("generated:", 0) != 0)
            fail(file,
                 "\"invalid_program\" needs a generated data root (\"data\": \"generated:hostile/NAME\")");
    }
    if (c.centre && c.family != Family::Mobile && c.family != Family::Receiver)
        fail(file, "\"selection.centre\" is for the mobile and receiver families");
    if (c.family == Family::Scene &&
        ((c.scene.scripts.empty() && c.scene.cameras.empty()) || c.lights.size() != 1))
        fail(file, "a scene case needs selection.scene.scripts or selection.scene.cameras, and one light in "
                   "selection.lights");
    return c;
}

} // namespace

std::vector<std::string> default_compared_kinds(Family f, bool frames) {
    switch (f) {
        case Family::Loader: return {"archive", "table", "texture"};
        case Family::Palette: return {"table"};
        case Family::Construct: return {"instance"};
        case Family::Program:
            if (frames) return {"face_draw", "winding_decision", "frame"};
            return {"face_draw", "winding_decision"};
        case Family::Shadow:
            return {"frame"}; // shadow faces are compared too; a case of non-casters has none
        case Family::Mobile: return {"queue_entry", "sector_list", "sector_map"};
        case Family::Receiver: return {"receiver_query"};
        case Family::Scene:
            return {"terrain_sample", "terrain_face", "scene_queue", "plane_query",
                    "object_draw",    "shadow_draw",  "frame",       "sector_map"};
    }
    return {};
}

void check_case_names(const std::vector<std::filesystem::path>& files) {
    std::map<std::string, std::filesystem::path> seen;
    for (const auto& f : files) {
        const std::string name = f.stem().string();
        // A case's outputs are named by it: "..", "." or nothing would name a folder, not a file
        // in the output folder ("...json" ran whole, then failed writing ../coverage.drcov).
        if (name.empty() || name == "." || name == "..")
            throw std::runtime_error("case file " + f.string() + " is named \"" + name +
                                     "\", which names a folder, not a report in the output folder; rename "
                                     "the file");
        if (name == "run")
            throw std::runtime_error("case file " + f.string() +
                                     " is named \"run\", as the run's index run.json is: its report would be "
                                     "written over; rename the file");
        if (const auto [it, fresh] = seen.emplace(name, f); !fresh)
            throw std::runtime_error(
                "case files " + it->second.string() + " and " + f.string() + " have the same name \"" + name +
                "\": a run writes each case's report by its name, so one would be written "
                "over the other; rename one, or run them apart");
    }
}

std::vector<std::filesystem::path> list_cases(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace refcheck::harness
