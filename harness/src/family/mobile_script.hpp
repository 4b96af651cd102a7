// The scripted inputs of the mobile and receiver families, generated from the case's seed alone:
// which mobiles arrive, move and leave, from where the camera looks after each step, and where a
// shadow caster flies for each receiver query. A family plays a script on both sides; tests replay
// it on the reimplementation to predict where a seeded fault must first show.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/shadow.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace refcheck::harness {

// The world (x, z) a script places its mobiles, cameras and casters around (a case's
// "selection.centre"); by default the middle of the sector map, 32.5 sectors on each axis.
using WorldCentre = std::array<std::int32_t, 2>;
inline constexpr WorldCentre kMapCentre{32 * 65536 + 32768, 32 * 65536 + 32768};

// What a case varies in the scripts (Case's selection.centre, unmodelled, camera_one, tilted).
struct ScriptOptions {
    WorldCentre centre = kMapCentre;
    // Mobile script: every fifth arrival names a model with no record (mobile.no_record),
    // alternately the first empty slot of the archive (if it has one) and the index just past its
    // table.
    bool unmodelled = false;
    double camera_one = 16384.0; // mobile script: 1.0 in the cameras' rotations
    // Receiver script: receivers pitched and rolled, off y = 0, and decoys (ReceiverScript::decoys).
    bool tilted = false;
};

// Populated records (index >= 1) whose header has every bit of `need_bits` set.
std::vector<std::uint32_t> populated_records(const reimpl::ModelArchive& models, std::uint32_t need_bits = 0);

struct MobileStep {
    enum class Op { Add, Move, Remove };
    Op op = Op::Add;
    reimpl::Mobile mobile; // Add: the arrival; Move: its id and new position; Remove: its id
    bool across =
        false; // Move: the script meant it to cross a sector boundary (its events are labelled by each side's own observation: MobileWorld::Moved)
    reimpl::Camera camera; // the camera the drawing queue is built for after the step
    bool again = false;    // Remove: the mobile was removed before (mobile.remove.again)
    std::optional<std::array<std::uint32_t, 2>> links; // Add: prev, next written before add_mobile_
};

// The mobile family's sequence: at least six mobiles live, then arrivals (some at the mirrored
// position of another, so that distances tie), moves inside a sector and across boundaries, and
// departures, around the centre of the map.
std::vector<MobileStep> mobile_script(const reimpl::ModelArchive& models, std::uint64_t seed,
                                      std::uint32_t steps, const ScriptOptions& options = {});

// A case's explicit steps ("selection.script", Case::mobile_script) as the family plays them: each
// add with its yaw as a Q31 rotation, each step's camera (raw rotation words, or 1.0 = camera_one
// looking along +z), kept until a step gives another.
std::vector<MobileStep> scripted_mobile_steps(const std::vector<Case::MobileScriptStep>& script,
                                              const ScriptOptions& options);

// The receiver script's last queries, at bounds no random query meets: kBoundQueries at the first
// receiver's bounds (shadow.receiver.test), then kSunCloudQueries at the sun's and the clouds'.
inline constexpr std::uint32_t kBoundQueries = 8;
inline constexpr std::uint32_t kSunCloudQueries = 4;
inline constexpr std::uint32_t kEdgeQueries = kBoundQueries + kSunCloudQueries;
// A script gets them when it has at least this many random queries besides.
inline constexpr std::uint32_t kMinRandomQueries = 8;

struct ReceiverScript {
    // Added first: each receiver record twice, turned differently, side by side (they overlap); in a
    // script with edge queries then one more, three sectors apart from them (bound_receiver).
    std::vector<reimpl::Mobile> receivers;
    // Tilted scripts: after the receivers, each model that casts but does not receive a shadow
    // (at most four), placed like a receiver; the queries aim at them too.
    std::vector<reimpl::Mobile> decoys;
    reimpl::Mobile caster; // added after them, then moved for every query
    struct Query {
        reimpl::Vec3 position;       // where the caster is for this query
        reimpl::ShadowParams params; // sun, terrain height, cloud altitude
        // One of the kBoundQueries: the script put the caster's shadow on a bound of
        // bound_receiver or a unit outside it (a label of the input, the same on both sides: it
        // marks the queries that exercise shadow.receiver.test).
        bool at_bound = false;
    };
    std::vector<Query> queries;
    // The receiver whose bounds the edge queries stand on (an index of `receivers`): the one apart,
    // which no other mobile overlaps, so that the scan cannot answer them without testing it.
    std::size_t bound_receiver = 0;
};

// The receiver family's queries: each aims the caster's shadow at a point on, near or beside a
// receiver, under varied suns, altitudes (some above the cloud layer) and terrain heights. Of at
// least kEdgeQueries + kMinRandomQueries queries the last kEdgeQueries put the caster above a
// receiver (bound_receiver): under a sun straight down, its shadow on each of the receiver's four bounds
// (local x = min x, then min x - 1; max x, max x + 1; min z, min z - 1; max z, max z + 1: the bounds
// of shadow.receiver.test); then, above the first receiver, at the bounds of shadow.receiver.sun
// (sun.y = 0, then sun.y > 0) and shadow.plane.rule (at the cloud altitude, then one unit below it).
ReceiverScript receiver_script(const reimpl::ModelArchive& models, std::uint64_t seed, std::uint32_t queries,
                               const ScriptOptions& options = {});

} // namespace refcheck::harness
