// Assembled scenes end to end (the scene family): a short run of the shipped scripts shows what
// they claim (shadows on the carrier's deck, on the water, on the island and on the cloud layer, the
// Apaches' substituted shadows), and a seeded fault in the original's shadow plane is found at the
// first shadow draw it changes, which the test predicts from the reimplementation and the script.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "detour.hpp"

#include "family/scene_script.hpp" // harness/src: the scripted inputs of the scene family

#include "refcheck/emu/machine.hpp"
#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/scene.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <cstdio>
#include <map>
#include <regex>

namespace refcheck::cli_test {
namespace {

class SceneTest : public CliTest {};

const fs::path kDefaultData = kSmallData.parent_path() / "default";

// The shipped case with each script cut to `frames` frames (and only the scripts named, when given).
ojson short_scenes(std::uint32_t frames, const std::vector<std::string>& only = {}) {
    ojson j = read_json(shipped_case("scenes"));
    ojson scripts = ojson::array();
    for (auto s : j.at("selection").at("scene").at("scripts")) {
        if (!only.empty() &&
            std::find(only.begin(), only.end(), s.at("name").get<std::string>()) == only.end())
            continue;
        s["frames"] = frames;
        scripts.push_back(s);
    }
    j["selection"]["scene"]["scripts"] = scripts;
    return j;
}

TEST_F(SceneTest, AShortRunOfTheShippedScriptsShowsShadowsOnEverySurfaceTheyClaim) {
    const fs::path file = write_case("scenes-short", short_scenes(3));
    const Result run = refcheck("run " + quote(file) + " --data " + quote(kDefaultData) + " --out out");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson report = read_json(path("out/scenes-short.json"));
    const ojson& m = report.at("metrics");
    EXPECT_EQ(m.at("frames"), 12);
    EXPECT_EQ(report.at("counts").at("unexplained"), 0); // differing frames only by known divergences
    // Each side counts its own (original_, reimpl_); an equivalent run's agree.
    for (const std::string side : {"original_", "reimpl_"}) {
        for (const std::string script : {"deck", "sea", "island", "clouds"}) {
            const ojson& s = m.at("scripts").at(script);
            const std::string shows = s.at("shows").get<std::string>();
            EXPECT_EQ(s.at(side + "frames_with_" + shows + "_shadows"), 3)
                << side << script << " shows " << shows << " in every frame";
            EXPECT_GT(s.at(side + "shadow_pixels_on_" + shows).get<std::uint64_t>(), 0u) << side << script;
        }
        EXPECT_GT(m.at(side + "receiver_hits").get<int>(), 0) << side;
        EXPECT_GT(m.at(side + "frames_with_apache_shadows").get<int>(), 0) << side; // 0x4ba / 0x4bb
        EXPECT_GE(m.at(side + "terrain_samples").get<int>(), 12 * 14 * 14) << side; // (2R + 2)², R = 6
    }
    for (const auto& [name, value] : m.items())
        if (name.starts_with("original_")) {
            EXPECT_EQ(value, m.at("reimpl_" + name.substr(9))) << name;
        }
    // A sample picture per script (and the first differing frames), original / reimplementation /
    // difference, beside the report and in the HTML page.
    for (const std::string script : {"deck", "sea", "island", "clouds"}) {
        const auto& frames = report.at("frames");
        EXPECT_TRUE(std::any_of(
            frames.begin(), frames.end(),
            [&](const ojson& f) { return f.at("input").get<std::string>().ends_with("(" + script + ")"); }))
            << "no picture of " << script;
    }
    const std::string html = read_text(path("out/index.html"));
    for (const auto& f : report.at("frames"))
        for (const char* key : {"original_png", "reimpl_png", "diff_png"}) {
            EXPECT_TRUE(fs::exists(path("out/" + f.at(key).get<std::string>()))) << f.at(key);
            // Linked beside the page, not embedded (issue 15: the page stays small).
            const std::string linked = "src=\"" + f.at(key).get<std::string>() + "\"";
            EXPECT_NE(html.find(linked), std::string::npos) << f.at(key);
        }
}

// ---- the seeded fault ---------------------------------------------------------------------------

// In draw_scene_body (plan_shadows inlined or not), the store of shadow_plane_height_'s result into
// the shadow's params (`mov dword ptr [reg + 0x1c], eax`, plane_height at 8 + 20 in the planned
// shadow) after the call through the routine's address.
CodeSite plane_store() {
    emu::Machine machine;
    const emu::Image& image = machine.load(kImage);
    const auto routine = image.address_of("shadow_plane_height_");
    if (!routine) throw std::runtime_error("standin.exe has no symbol shadow_plane_height_");
    char address[16];
    std::snprintf(address, sizeof address, "0x%x", *routine);
    const std::regex store(R"(mov dword ptr \[e[a-z]{2} \+ 0x1c\], eax)");
    for (const char* function : {"plan_shadows", "draw_scene_body"}) {
        if (!image.address_of(function)) continue;
        bool loaded = false;
        try {
            return find_instruction(function, [&](const emu::Instruction& in) {
                loaded = loaded || in.text.find(address) != std::string::npos;
                return loaded && std::regex_match(in.text, store);
            });
        } catch (const std::runtime_error&) {}
    }
    throw std::runtime_error("no store of shadow_plane_height_'s result found");
}

// Frame 0 of the deck script as the reimplementation draws it in a run: its scene steps, in order.
std::vector<reimpl::SceneStep> deck_frame_0(const fs::path& case_file) {
    const harness::Case c = harness::load_case(case_file);
    const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    const auto textures =
        reimpl::TextureArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "OBJTEXT.BIN"));
    const auto palette = reimpl::build_palette(reimpl::read_file_bytes(kSmallData / "3DPAL.RGB"), 3);
    reimpl::SceneInput in;
    in.light.direction = {c.lights[0][0], c.lights[0][1], c.lights[0][2]};
    in.params = {reimpl::Scene{c.scene.cloud_altitude, 64, 0x00300000}, c.scene.cell_shift,
                 c.scene.cell_reach, c.scene.sea_colour, c.scene.band_shift};
    const harness::ScenePlan plan = harness::scene_script(c, models, "deck", in.light.direction);
    in.camera = plan.camera.at(0, c.scene.scripts.front().frames);
    reimpl::MobileMap map;
    std::map<std::uint32_t, reimpl::Instance> instances;
    for (const auto& a : plan.actors) {
        map.add(reimpl::Mobile{a.id, a.model, a.at(0), a.rotation});
        instances.emplace(a.id, reimpl::construct(models, a.model, reimpl::Transform{a.at(0), a.rotation}));
    }
    reimpl::Frame frame;
    reimpl::SceneRenderer renderer(models, textures, palette);
    const auto steps = renderer.render(
        in, map, [&](std::uint32_t id) { return &instances.at(id); },
        [&](std::int32_t x, std::int32_t z) { return harness::island_terrain(c.scene.islands, x, z); },
        frame);
    return steps;
}

// Frame 0 of the deck script drawn by the reimplementation as a run draws it: the index of the
// first shadow draw in the compared stream, its caster and plane.
struct FirstShadow {
    std::size_t index = 0;
    std::uint32_t caster = 0;
    std::int32_t plane = 0;
};
FirstShadow first_shadow_of_deck(const fs::path& case_file) {
    const auto steps = deck_frame_0(case_file);
    std::size_t index = 0;
    for (const auto& step : steps) {
        if (const auto* d = std::get_if<reimpl::ShadowDrawn>(&step))
            return {index, d->caster, d->plane_height};
        const auto* q = std::get_if<reimpl::QueueBuilt>(&step);
        index += q ? q->ids.size() : 1; // one event per step, one per queue entry
    }
    throw std::runtime_error("frame 0 of the deck script draws no shadow");
}

TEST_F(SceneTest, ShadowPlaneStoredWrongDivergesAtTheFirstShadowDrawOfTheFirstFrame) {
    const CodeSite site = plane_store();
    ASSERT_EQ(site.bytes.size(), 3u) << site.instruction.text; // 89 /r disp8
    ASSERT_EQ(site.bytes[0], 0x89);
    ASSERT_EQ((site.bytes[1] >> 3) & 7, 0) << "the stored register is eax";
    std::vector<std::uint8_t> patched = site.bytes;
    patched[1] |= 2 << 3; // store edx (the params pointer, preserved by the watcall) instead

    const fs::path file = write_case("small-scenes", short_scenes(2, {"deck"}));
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result run =
        refcheck("run " + common + " --out patched --patch " + site.where() + ":" + hex_bytes(patched));
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("patched/small-scenes.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_EQ(report.at("injected").at("patches").at(0).at("where"), site.where());

    const FirstShadow expected = first_shadow_of_deck(file);
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "frame 0");
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    EXPECT_EQ(d.at("original_index"), expected.index);
    EXPECT_EQ(d.at("reimpl_index"), expected.index);
    EXPECT_EQ(d.at("original").at("kind"), "shadow_draw");
    EXPECT_EQ(d.at("original").at("fields").at("caster"), expected.caster);
    EXPECT_EQ(d.at("reimpl").at("fields").at("plane_height"), expected.plane);
    ASSERT_EQ(d.at("fields").size(), 1u);
    EXPECT_EQ(d.at("fields").at(0).at("field"), "plane_height");
    // The original projected onto the height of an address in the stand-in's image instead.
    emu::Machine machine;
    const emu::Image& image = machine.load(kImage);
    const auto wrong = d.at("original").at("fields").at("plane_height").get<std::int64_t>();
    EXPECT_GE(wrong, image.range().begin);
    EXPECT_LT(wrong, image.range().end);
    // Everything before it matched: the same events on both sides.
    EXPECT_EQ(d.at("context").at("original_before"), d.at("context").at("reimpl_before"));
}

// ---- a survivor of refcheck mutate, killed by the terrain_face events -------------------------------

// In draw_triangle, the conditional jump after the test of a vertex's sy against the frame's last
// row (`cmp ..., 0xc7`): it chooses the completely or the partially visible face routine. Before the
// scene family compared terrain faces this mutant survived every frame (both routines draw the same
// pixels on screen); negated, it must diverge at the first terrain face whose choice it changes.
CodeSite visibility_jump() {
    bool after = false;
    return find_instruction("draw_triangle", [&](const emu::Instruction& in) {
        if (after) return true;
        after = in.text.starts_with("cmp ") && in.text.ends_with(", 0xc7");
        return false;
    });
}

// The compared index of the first terrain face of frame 0 of the deck script whose routine the
// negated jump changes: with it, a face is drawn clipped when any vertex has sx off the frame or sy
// on it (instead of either off it).
struct FirstChoice {
    std::size_t index = 0;
    bool clipped = false; // the reimplementation's choice
};
FirstChoice first_changed_choice(const fs::path& case_file) {
    const auto steps = deck_frame_0(case_file);
    std::size_t index = 0;
    for (const auto& step : steps) {
        if (const auto* t = std::get_if<reimpl::TerrainDrawn>(&step)) {
            const bool mutant = std::any_of(t->face.screen.begin(), t->face.screen.end(), [](const auto& p) {
                const bool sx_off = p.sx < 0 || p.sx > 319, sy_on = p.sy >= 0 && p.sy <= 199;
                return sx_off || sy_on;
            });
            if (mutant != t->face.clipped) return {index, t->face.clipped};
        }
        const auto* q = std::get_if<reimpl::QueueBuilt>(&step);
        index += q ? q->ids.size() : 1; // one event per step, one per queue entry
    }
    throw std::runtime_error("no terrain face of frame 0 of the deck script changes its routine");
}

TEST_F(SceneTest, TerrainFaceRoutineChosenWrongDivergesAtTheFirstFaceItChanges) {
    const CodeSite site = visibility_jump();
    ASSERT_EQ(site.bytes.size(), 2u) << site.instruction.text; // a short Jcc
    ASSERT_EQ(site.bytes[0] & 0xf0, 0x70) << site.instruction.text;
    std::vector<std::uint8_t> negated = site.bytes;
    negated[0] ^= 1;

    const fs::path file = write_case("small-scenes", short_scenes(1, {"deck"}));
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson clean_report = read_json(path("clean/small-scenes.json"));
    EXPECT_GT(clean_report.at("counts").at("by_kind").at("terrain_face").get<int>(), 0);
    const Result run = refcheck("run " + common + " --out patched --patch '" + site.where() + ":" +
                                hex_bytes(site.bytes) + "->" + hex_bytes(negated) + "'");
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("patched/small-scenes.json"));
    const FirstChoice expected = first_changed_choice(file);
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), "frame 0");
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    EXPECT_EQ(d.at("original_index"), expected.index);
    EXPECT_EQ(d.at("original").at("kind"), "terrain_face");
    EXPECT_EQ(d.at("reimpl").at("fields").at("clipped"), expected.clipped);
    EXPECT_EQ(d.at("original").at("fields").at("clipped"), !expected.clipped);
}

// ---- the parameter limits (coverage-scene-limits-high): a validity test moved by one -------------

TEST_F(SceneTest, CellShiftLimitMovedByOneFailsTheHighLimitsCase) {
    // scene.params.valid's cell_shift <= 24, compiled as (cell_shift - 8) <= 16: `cmp REG, 0x10`.
    const CodeSite site = find_instruction("draw_scene_body", [](const emu::Instruction& in) {
        return in.text.starts_with("cmp ") && in.text.ends_with(", 0x10");
    });
    ASSERT_EQ(site.bytes.back(), 0x10) << site.instruction.text; // an imm8 compare
    std::vector<std::uint8_t> moved = site.bytes;
    moved.back() = 0x0f; // cell_shift <= 23
    const std::string common =
        quote(shipped_case("coverage-scene-limits-high")) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result run = refcheck("run " + common + " --out patched --patch '" + site.where() + ":" +
                                hex_bytes(site.bytes) + "->" + hex_bytes(moved) + "'");
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("patched/coverage-scene-limits-high.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    // The original refuses the case's cell_shift of 24: its draw_scene_ returned 1 (invalid), and the
    // case stops there.
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("kind"), "original_fault") << d.dump();
    EXPECT_EQ(d.at("original").at("fields").at("fault"), "returned_failure") << d.dump();
    EXPECT_TRUE(d.at("original").at("fields").at("routine").get<std::string>().starts_with("draw_scene_"))
        << d.dump();
}

// ---- a refused call and a clear, seen in the frames -------------------------------------------------

// The scene metrics were the reimplementation's figures: an original whose shadow draws paint
// nothing still reported shadow pixels on every surface. Each side now counts its own, the
// original's shadow pixels those its draw_3d_object_shadow_ calls changed in its framebuffer.
TEST_F(SceneTest, AnOriginalWhoseShadowsPaintNothingShowsNoShadowPixels) {
    const Detour s = detour_site("draw_3d_object_shadow_");
    const std::vector<std::uint8_t> code = {0x31, 0xc0, 0xc3}; // xor eax, eax; ret: the body does nothing
    const fs::path file = write_case("scenes-short", short_scenes(2, {"sea"}));
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kDefaultData) + " --out patched" +
                              detour_patches(s, code));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("patched/scenes-short.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson m = report.at("metrics");
    EXPECT_EQ(m.at("original_shadow_draws"), m.at("reimpl_shadow_draws")); // the calls were made
    EXPECT_GT(m.at("reimpl_shadow_pixels_on_water").get<std::uint64_t>(), 0u);
    EXPECT_GT(m.at("reimpl_frames_with_water_shadows").get<std::uint64_t>(), 0u);
    for (const std::string surface : {"deck", "water", "terrain", "clouds"}) {
        EXPECT_EQ(m.at("original_shadow_pixels_on_" + surface), 0) << surface;
        EXPECT_EQ(m.at("original_frames_with_" + surface + "_shadows"), 0) << surface;
    }
    EXPECT_EQ(m.at("original_frames_with_apache_shadows"), 0);
}

// A draw_scene_ that refuses (result 1) but paints the framebuffer first: the refused and null
// argument inputs compared the original's calls and result with a reimplementation's side the
// harness made up (scene_result and no step), never a frame, and stayed equivalent. Both sides now
// draw the call from the same background and their frames are compared.
TEST_F(SceneTest, ARefusedDrawThatPaintsTheFramebufferDiverges) {
    const Detour s = detour_site("draw_scene_");
    // push the four arguments again; call draw_scene_body; add esp, 16; cmp eax, 1; jne done;
    // push eax; fill with 0x10; pop eax; done: ret
    std::vector<std::uint8_t> code;
    for (int k = 0; k < 4; ++k) code.insert(code.end(), {0xff, 0x74, 0x24, 0x10});
    code.push_back(0xe8), put32(code, s.body - (s.at + static_cast<emu::Address>(code.size()) + 4));
    code.insert(code.end(), {0x83, 0xc4, 0x10, 0x83, 0xf8, 0x01, 0x75, 0x10, 0x50});
    fill_framebuffer(code, s, 0x10);
    code.insert(code.end(), {0x58, 0xc3});
    ASSERT_EQ(code.size(), 46u);
    for (const std::string name : {"coverage-scene-refused", "coverage-null-arguments-scene"}) {
        const std::string run = "run " + quote(shipped_case(name)) + " --out " + name;
        const Result clean = refcheck(run);
        ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
        const Result r = refcheck(run + "-patched" + detour_patches(s, code));
        EXPECT_EQ(r.code, 1) << r.out << r.err;
        const ojson report = read_json(path(name + "-patched/" + name + ".json"));
        EXPECT_EQ(report.at("status"), "divergent") << name;
        const ojson& d = report.at("first_unexplained");
        EXPECT_EQ(d.at("original").at("kind"), "frame") << d;
        EXPECT_EQ(d.at("fields").at(0).at("field"), "pixels") << d;
        const std::string input = d.at("input");
        EXPECT_TRUE(input.starts_with("refused parameters ") || input.starts_with("null ")) << input;
    }
}

// A draw_scene_ that clears the framebuffer to the clear colour before drawing (scene.clear says it
// never clears): both sides started from the clear colour alone, so it could not be told from one
// that never clears. They now start from marked_background, whose marks a clear erases.
TEST_F(SceneTest, ADrawThatClearsTheFramebufferFirstDiverges) {
    const Detour s = detour_site("draw_scene_");
    std::vector<std::uint8_t> code; // fill with the clear colour; jmp draw_scene_body
    fill_framebuffer(code, s, 224);
    jump_to_body(code, s);
    const std::string run = "run " + quote(shipped_case("coverage-scene-cameras")) + " --out ";
    ASSERT_EQ(refcheck(run + "clean").code, 0);
    const Result r = refcheck(run + "patched" + detour_patches(s, code));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("patched/coverage-scene-cameras.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "frame") << d;
    // The first mark nothing paints over: the clear colour in the original's frame.
    EXPECT_NE(d.at("fields").at(0).at("diff").get<std::string>().find(": 224 -> 225"), std::string::npos)
        << d;
}

// shadow.receiver.self: the receiver scan skips the caster. The receiver family's casters are not
// receivers, so its cases (which claimed the rule, Proven by their coverage of the routine) stayed
// equivalent with the skip removed; the carrier of the scenes' deck script casts a shadow and
// receives, and without the skip receives its own shadow at its first plane query.
TEST_F(SceneTest, TheReceiverScanSkippingTheCasterIsKilledByTheScenes) {
    const std::vector<emu::Instruction> code = instructions_of("receives");
    std::optional<CodeSite> skip;
    for (std::size_t i = 1; i < code.size() && !skip; ++i)
        if (code[i - 1].text.starts_with("cmp dword ptr [") && code[i].text.starts_with("je "))
            skip = find_instruction(
                "receives", [&](const emu::Instruction& in) { return in.address == code[i].address; });
    ASSERT_TRUE(skip) << "no je after a cmp of the caster's id in receives";
    const fs::path file = write_case("deck-scenes", short_scenes(2, {"deck"}));
    const std::string common = "run " + quote(file) + " --data " + quote(kSmallData);
    ASSERT_EQ(refcheck(common + " --out clean").code, 0);
    const Result r = refcheck(common + " --out patched --patch " +
                              quote(skip->where() + ":" + hex_bytes(skip->bytes) + "->" +
                                    hex_bytes(std::vector<std::uint8_t>(skip->bytes.size(), 0x90))));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("patched/deck-scenes.json"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "plane_query") << d;
    EXPECT_EQ(d.at("original").at("fields").at("receiver"), d.at("original").at("fields").at("caster")) << d;
    const ojson scenes = read_json(shipped_case("scenes")), receivers = read_json(shipped_case("receivers"));
    auto claims = [](const ojson& c) {
        const ojson& rules = c.at("rules");
        return std::find(rules.begin(), rules.end(), "shadow.receiver.self") != rules.end();
    };
    EXPECT_TRUE(claims(scenes));
    EXPECT_FALSE(claims(receivers));
}

// scene.instance: a mobile whose `instance` is 0 is neither drawn nor casts a shadow. No script
// placed one, so an original that drew it (draw_objects without its instance test) or planned its
// shadow (plan_shadows without casts_shadow's) stayed equivalent. The sea script's formation now has an unbuilt
// A-10 (scene_script.hpp), which either patch draws or queries for at the first frame.
TEST_F(SceneTest, AMobileWithoutAnInstanceIsNeitherDrawnNorCastsAShadow) {
    char field[32];
    std::snprintf(field, sizeof field, " + 0x%x]", profile_offset("mobile", "instance"));
    // The first `je` within four instructions after `function` loads the mobile's instance field.
    auto instance_test = [&](const std::string& function) {
        const std::vector<emu::Instruction> code = instructions_of(function);
        for (std::size_t i = 0; i < code.size(); ++i) {
            if (code[i].text.find(field) == std::string::npos) continue;
            for (std::size_t k = i + 1; k < code.size() && k <= i + 4; ++k)
                if (code[k].text.starts_with("je "))
                    return find_instruction(
                        function, [&](const emu::Instruction& in) { return in.address == code[k].address; });
        }
        throw std::runtime_error("no je after a load of the mobile's instance field in " + function);
    };
    const fs::path file = write_case("sea-scenes", short_scenes(2, {"sea"}));
    const std::string common = "run " + quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck(common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    // The unbuilt actor is queued on both sides, with no instance.
    const ojson clean_report = read_json(path("clean/sea-scenes.json"));
    EXPECT_EQ(clean_report.at("status"), "equivalent");
    EXPECT_GT(clean_report.at("exercised").at("scene.instance").get<std::uint64_t>(), 0u)
        << clean_report.at("exercised").dump(2);

    // casts_shadow is inlined into plan_shadows, where its test runs.
    for (const std::string function : {"draw_objects", "plan_shadows"}) {
        const CodeSite skip = instance_test(function);
        const Result r = refcheck(common + " --out " + function + " --patch " +
                                  quote(skip.where() + ":" + hex_bytes(skip.bytes) + "->" +
                                        hex_bytes(std::vector<std::uint8_t>(skip.bytes.size(), 0x90))));
        EXPECT_EQ(r.code, 1) << function << r.out << r.err;
        const ojson report = read_json(path(function + "/sea-scenes.json"));
        EXPECT_EQ(report.at("status"), "divergent") << function;
        const ojson& d = report.at("first_unexplained");
        EXPECT_EQ(d.at("input"), "frame 0") << function << d.dump(2);
    }
}

} // namespace
} // namespace refcheck::cli_test
