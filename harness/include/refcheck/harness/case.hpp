// A case: one JSON file in cases/ naming what to run (routine family), on what (image, profile, data
// root), over which inputs (an enumerated matrix of records, views, lights, animation states), with
// which hooks, tolerances, allowed known divergences and the format rules it exercises.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace refcheck::harness {

class InputFilter; // refcheck/harness/filter.hpp

// A bad case file (exit code 2 in the CLI). The message names the file and the offending key.
struct CaseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Family { Loader, Palette, Construct, Program, Shadow, Mobile, Receiver, Scene };
std::string_view family_name(Family f);

struct View {
    std::int32_t yaw = 0, pitch = 0, roll = 0; // degrees
    std::int32_t distance = 4;                 // in units of the model's bounding radius
    // A probing view ("probe": [x, y, z]): the camera, turned by yaw/pitch/roll, is placed so that
    // the record's nearest vertex lands exactly at this camera-space point (placement.hpp); for the
    // boundaries of the near plane, the 16-bit screen clamps and 64-bit projection operands.
    std::optional<std::array<std::int32_t, 3>> probe{};
    // A placed view ("position": [x, y, z], world units): the camera stands there, turned by
    // yaw/pitch/roll or by "rotation" (nine raw Q14 words, any int32: a rotation no angles give,
    // for the 64-bit operands of the camera transform). Neither "distance" nor "probe" with it.
    std::optional<std::array<std::int32_t, 3>> position{};
    std::optional<std::array<std::int32_t, 9>> rotation{};
};

struct RecordSelection {
    std::string encoding = "any";          // "any", "s16", "grid"
    std::optional<std::uint32_t> from, to; // inclusive range of record indices
    std::vector<std::uint32_t> list;       // explicit list (overrides the range)
    std::uint32_t stride = 1;              // every n-th record of the range
};

// Scene family (selection.scene): the terrain the case supplies through the hooked sampler (sea
// level everywhere but on its islands, each a paraboloid dome), the scene parameters of every frame,
// and the scripted sequences (harness/src/family/scene_script.cpp) with their frame counts.
struct Island {
    std::int32_t x = 0, z = 0; // centre, world units
    std::int32_t radius = 1;   // world units
    std::int32_t height = 0;   // at the centre
};
struct SceneScript {
    std::string name;
    std::uint32_t frames = 0;
};
struct SceneSelection {
    std::uint32_t cell_shift = 14, cell_reach = 6, sea_colour = 252, band_shift = 11;
    std::int32_t cloud_altitude = 0x00100000;
    std::vector<Island> islands;
    std::vector<SceneScript> scripts;
    // "refused": parameter sets [cell_shift, cell_reach, sea_colour, band_shift] outside
    // scene.params.valid, each passed to draw_scene_ after the scripts: both sides must refuse it
    // (result 1) and the original must make no call (no terrain sample, queue, shadow or draw).
    std::vector<std::array<std::uint32_t, 4>> refused;
    // "terrain_map": true: the original's own sampler runs (scene.sampler.standin) on its global
    // terrain_map, which the harness fills with sector_terrain_map(islands); the reimplementation
    // samples the same map through reimpl::SectorTerrain. Otherwise the sampler is replaced.
    bool terrain_map = false;
    // "cameras": fixed cameras ({"position": [x, y, z], "rotation": [nine Q14 words]}), each one
    // frame of the terrain alone (no mobile in the world) after the scripts, named "camera K":
    // corners at exact depths, far-out and scaled cameras for the terrain's 64-bit operands.
    struct FixedCamera {
        std::array<std::int32_t, 3> position{};
        std::array<std::int32_t, 9> rotation{};
    };
    std::vector<FixedCamera> cameras;
};

// What a loader case on a hostile data root expects both sides to refuse ("rejects"): the archive
// and the record (none: its table) that the reimplementation's validator must name; the original's
// initialise_3d_objects_ must return its failure (abi.init_objects).
struct Rejection {
    std::string archive;                 // "3DOBJS.BIN" or "OBJTEXT.BIN"
    std::optional<std::uint32_t> record; // the slot; none: the table
    // Why the original refuses, by name ("textures_record"): after the refusal the image's
    // initialise_error global (profile data) must hold the number the profile's "values" give that
    // name. None: the original's reason is not compared.
    std::optional<std::string> reason;
};

struct Case {
    std::string name; // file stem
    std::filesystem::path file;
    // SHA-256 of the bytes load_case parsed (empty for a case built in code): what the reports and a
    // shard's plan name, never the file read again later (it may have been edited since).
    std::string sha256;
    Family family = Family::Program;
    std::string description;
    std::string image = "default", profile = "default", data = "default";
    RecordSelection records;
    std::vector<View> views;
    std::vector<std::vector<std::int32_t>> lights; // Q14 directions
    std::vector<std::uint32_t> states;             // animation states
    std::vector<std::int32_t> warzones;            // palette family
    // Loader family ("selection.reinitialise"): after the comparisons, initialise_3d_objects_ runs
    // again (it releases what it loaded, abi.init_objects) and everything is compared again.
    bool reinitialise = false;
    // Program and shadow families ("selection.gouraud": false): the original's global
    // gouraud_enabled is set to 0 before the draws and the reimplementation draws with
    // DrawOptions::gouraud off (light.gouraud, light.levels).
    bool gouraud = true;
    // Program, shadow, receiver and scene families ("selection.null_arguments": true): after the
    // inputs, the public routine is called once with each of its pointer arguments null (abi.null):
    // both sides must draw, build or find nothing and return what abi.null says; the program family
    // also builds every instance with construct_3d_object_'s null position and rotation (the origin
    // and the identity, abi.construct); the construct family adds its turned placement built with
    // the position null, then with the rotation null.
    bool null_arguments = false;
    // Program family ("selection.isolate_records": true): each record starts from the guest state
    // after the case's set-up (the machine's snapshot taken there is restored before every
    // record), so what one record's calls leave on the stack, in globals or on the heap cannot
    // reach another's: a record's results are its own, whichever records run before it (a run of
    // some records, a part of the case). Without it (the default) the records run as one sequence
    // of calls, as the original runs them, and a case can catch what one draw leaves for the next.
    // Only isolated cases are split into parts across workers (case_part.hpp).
    bool isolate_records = false;
    std::vector<std::vector<std::int32_t>> suns; // shadow family: sun directions (Q14, y < 0)
    std::uint32_t steps = 0;                     // mobile family: steps of the scripted sequence
    std::uint32_t queries = 0;                   // receiver family: queries
    std::uint64_t seed = 1;                      // mobile and receiver scripts
    // Mobile and receiver scripts: the world (x, z) their mobiles, cameras and casters are placed
    // around ("selection.centre"; none: the middle of the sector map, 32.5 sectors on each axis).
    // Far centres (|x|, |z| >= 2^30, negative) reach the 64-bit arithmetic of the depth filter,
    // distance keys and receiver test with operands whose high words matter.
    std::optional<std::array<std::int32_t, 2>> centre;
    // Mobile family: the drawing queue's [near_limit, far_limit] ("selection.queue_limits";
    // default reimpl::Scene's, 64 and 0x300000, which no mobile of the 3 x 3 scan can pass), and
    // "selection.unmodelled": true, every fifth arrival naming a model with no record
    // (mobile.no_record: radius 0), alternately an empty slot and an index past the table.
    std::optional<std::array<std::int32_t, 2>> queue_limits;
    bool unmodelled = false;
    // Mobile family: the value 1.0 has in the camera's rotation ("selection.camera_one"; default
    // 16384, Q14). Up to 2^31 - 1: rotation entries of 2^30 and more, whose sign words and 64-bit
    // depth sums the Q14 camera never tests (mobile.depth).
    std::int32_t camera_one = 16384;
    // Mobile family ("selection.script"): explicit steps, played in place of the seeded script (and
    // its "steps" and "seed"), each followed by a drawing queue compared entry by entry:
    //   {"add": ID, "model": M, "position": [x, y, z], "yaw": DEG, "links": [prev, next]},
    //   {"move": ID, "position": [x, y, z]}, {"remove": ID};
    // any step may give "camera": {"position": [x, y, z], "rotation": [9 words]} (raw, like a placed
    // view), which stays until another step gives one (before the first: at the centre's (x, z),
    // 3000 up, looking along +z, 1.0 = "camera_one"). "links" writes the mobile's prev and next
    // words before add_mobile_ (which must ignore them: mobile.insert_front). A "remove" of an id
    // already removed is played again on the original (mobile.remove.again: nothing changes).
    struct MobileScriptStep {
        enum class Op { Add, Move, Remove };
        Op op = Op::Add;
        std::uint32_t id = 0;
        std::uint32_t model = 0;                           // add
        std::array<std::int32_t, 3> position{};            // add, move
        std::int32_t yaw = 0;                              // add, degrees
        std::optional<std::array<std::uint32_t, 2>> links; // add: prev, next written before the call
        bool again = false;                                // remove of a removed id (set by the loader)
        std::optional<std::array<std::int32_t, 3>> camera_position;
        std::optional<std::array<std::int32_t, 9>> camera_rotation;
    };
    std::vector<MobileScriptStep> mobile_script;
    // Receiver family ("selection.tilted": true): every receiver pitched and rolled as well as
    // turned, and lifted or sunk off y = 0, so that the receiver test's cross terms are not zero;
    // and decoys: mobiles whose model casts a shadow but does not receive one (hdr.properties bit 0
    // without bit 1), which the queries aim at as well and no side may report.
    bool tilted = false;
    SceneSelection scene;             // scene family
    std::vector<std::string> replace; // face routines replaced by recorders
    std::vector<std::string> run;     // routines that run (frame capture)
    std::int64_t tolerance = 0;       // for "grid_rounding"
    std::vector<std::string> allow;   // registry ids (divergences.hpp)
    std::vector<std::string> rules;   // rule ids of docs/formats/apache-3d.md
    // The event kinds the case exists to compare ("compares"; default: its family's, see
    // default_compared_kinds): an equivalent run must have compared each at least once.
    std::vector<std::string> compares;
    // Whether a blank frame compared with a blank frame counts ("blank_frames": true, for a case
    // that tests that nothing is drawn); otherwise such pairs are set aside, not compared.
    bool blank_frames = false;
    // A loader case on a broken data root: what both sides must refuse (see Rejection). Its data is
    // then a generated root ("generated:hostile/NAME", under the default data root's folder).
    std::optional<Rejection> rejects;
    // A program or shadow case on a data root where one record's draw program is broken
    // ("invalid_program": {"record": R}, data "generated:hostile/NAME"): the reimplementation must
    // refuse record R (a FormatError naming 3DOBJS.BIN and R), and the original's draw is compared
    // with the reimplementation's walk under InvalidData::StopThere, which ends the model's draw at
    // the broken instruction (valid.program.stop, valid.index.behind); at least one input must reach
    // it. See harness/src/family/invalid_program.hpp.
    std::optional<std::uint32_t> invalid_program;
    // Every call of the original runs under these limits ("limits": {"instructions_per_call": N,
    // "instructions_per_case": M}). The first call over its budget is a fault (budget_exceeded) and
    // stops the case at the next input; a call that would take the case past its total is given
    // only what is left. So a case's guest work is bounded by instructions_per_case, whatever the
    // original does. The wall-clock limit per call (kWallBackstopMs) is only a backstop.
    // "events_per_call" bounds what one call may make the recorders keep (the host memory a looping
    // original could fill within its instruction budget): the first event past it stops the call as
    // a budget_exceeded fault, like an instruction overrun.
    std::uint64_t instructions_per_call = kDefaultInstructionsPerCall;
    std::uint64_t instructions_per_case = kDefaultInstructionsPerCase;
    std::uint64_t events_per_call = kDefaultEventsPerCall;
    static constexpr std::uint64_t kDefaultInstructionsPerCall = 500'000'000;
    static constexpr std::uint64_t kDefaultInstructionsPerCase = 50'000'000'000;
    static constexpr std::uint64_t kDefaultEventsPerCall = 250'000;
    // Narrowing (not read from the file): when set, only the input of this name is compared
    // ("record 12 view 0 light 1 state 0", "step 7", ...): `refcheck run --only`, bisect.
    std::string only;
    // Narrowing to a set of inputs (not read from the file; `refcheck mutate` runs a mutant on the
    // inputs that reach it): when not empty, only inputs of these names are compared.
    std::set<std::string> only_inputs;
    // Narrowing by a gtest-style pattern over "CASE/INPUT" (`refcheck run --filter`; not read from
    // the file): when set, only the inputs it matches are compared (filter.hpp).
    std::shared_ptr<const InputFilter> filter;
    bool narrowed() const { return !only.empty() || !only_inputs.empty() || filter; }
};

Case load_case(const std::filesystem::path& file); // throws CaseError

// A case is named by its file's stem, and its reports by the case (OUT/NAME.json, OUT/NAME/): the
// case files of one run must have distinct names, or one report would be written over the other's
// (a divergent case's evidence lost), and none may be named "run", the run index's name. Throws a
// std::runtime_error naming the files.
void check_case_names(const std::vector<std::filesystem::path>& files);

// The event kinds a family compares (a case's "compares" when it names none); `frames`: the case
// runs face routines and so compares frames too.
std::vector<std::string> default_compared_kinds(Family f, bool frames);
std::vector<std::filesystem::path> list_cases(const std::filesystem::path& dir); // sorted *.json

} // namespace refcheck::harness
