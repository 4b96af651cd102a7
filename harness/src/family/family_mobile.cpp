// Mobile family: a scripted sequence of arrivals, moves (inside a sector and across boundaries) and
// departures, driven through the original's add_mobile_/move_mobile_/remove_mobile_ and the
// reimplementation's MobileMap; after every step both drawing queues (build_mobile_queue_) are
// compared entry by entry.
// Receiver family: deck-receiver queries (shadow_plane_height_): casters placed so that their shadow
// falls on, near or beside each receiver, under varied suns, altitudes and terrain heights.
#include "family/families.hpp"
#include "refcheck/harness/phase.hpp"
#include "family/mobile_script.hpp"
#include "family/mobile_world.hpp"
#include "family/placement.hpp"

#include "refcheck/reimpl/shadow.hpp"

#include <tuple>
#include <utility>

namespace refcheck::harness {

namespace {

// What the step did: the queue entries after it carry it, so a rule of one kind of step
// (mobile.move_cross, mobile.remove.again) is exercised by the queues compared after such a step, not
// by any call of the routine it shares. Adds and removals are as the script says (the input, the same
// on both sides); whether a move crossed into another sector is each side's own observation
// (MobileWorld::Moved), so a move the two sides place differently differs in its entries' op, and a
// move is a move_across only where both saw it cross.
const char* step_op(const MobileStep& s, bool across) {
    switch (s.op) {
        case MobileStep::Op::Add: return "add";
        case MobileStep::Op::Move: return across ? "move_across" : "move_inside";
        case MobileStep::Op::Remove: return s.again ? "remove_again" : "remove";
    }
    return "";
}

// One sector's list after a step that touched it, front to back: list order is what the sector map's
// rules say (mobile.insert_front, move_same, move_cross, remove) and what no queue shows (the queue
// is sorted by distance, then id, whatever order the lists hold).
EventRecord sector_list_event(std::int64_t step, std::int64_t sector, IntList ids, const char* op) {
    EventRecord e;
    e.kind = "sector_list";
    e.fields = {{"step", step}, {"sector", sector}, {"ids", std::move(ids)}, {"op", std::string(op)}};
    e.key_fields = 2;
    return e;
}

// A removed mobile's struct after a removal (mobile.remove.links): [prev, next, sector].
EventRecord departed_event(std::int64_t step, std::int64_t id, IntList links, const char* op) {
    EventRecord e;
    e.kind = "departed";
    e.fields = {{"step", step}, {"id", id}, {"struct", std::move(links)}, {"op", std::string(op)}};
    e.key_fields = 2;
    return e;
}

EventRecord entry_event(std::int64_t step, std::int64_t index, std::int64_t id, const char* op) {
    EventRecord e;
    e.kind = "queue_entry";
    e.fields = {{"step", step}, {"index", index}, {"id", id}, {"op", std::string(op)}};
    e.key_fields = 2;
    return e;
}

// The original returned more entries than the 256 ids its buffer holds (mobile.capacity): one more
// entry, at index 256, whose id (-1) no mobile has. The harness reads no id past the buffer, and the
// reimplementation's queue stops at 256, so without it a count of 257 whose first 256 ids agree
// compared equal (the seeded mutant: tests/cli/mobile_capacity_test.cpp).
EventRecord past_capacity_event(std::int64_t step, const char* op) {
    return entry_event(step, static_cast<std::int64_t>(reimpl::kQueueCapacity), -1, op);
}

ScriptOptions script_options(const Case& c) {
    ScriptOptions o;
    o.centre = c.centre.value_or(kMapCentre);
    o.unmodelled = c.unmodelled;
    o.camera_one = c.camera_one;
    o.tilted = c.tilted;
    return o;
}

} // namespace

void run_mobile(CaseContext& ctx) {
    Original& o = ctx.original;
    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const auto script = ctx.c.mobile_script.empty()
                            ? mobile_script(models, ctx.c.seed, ctx.c.steps, script_options(ctx.c))
                            : scripted_mobile_steps(ctx.c.mobile_script, script_options(ctx.c));
    o.call("reset_mobiles_", {});
    MobileWorld world(o, models);
    const GuestStruct scene_struct(o.profile(), "scene");
    const std::uint32_t camera_at = o.scratch(GuestStruct(o.profile(), "camera").size()),
                        scene_at = o.scratch(scene_struct.size()), ids_at = o.scratch(256 * 4);
    reimpl::Scene scene;
    if (ctx.c.queue_limits)
        std::tie(scene.near_limit, scene.far_limit) =
            std::pair{(*ctx.c.queue_limits)[0], (*ctx.c.queue_limits)[1]};
    const std::int32_t cloud[] = {scene.cloud_altitude}, near[] = {scene.near_limit},
                       far[] = {scene.far_limit};
    o.machine().write(
        scene_at, scene_struct.pack({{"cloud_altitude", cloud}, {"near_limit", near}, {"far_limit", far}}));
    // Metrics count what ran, each named for the side it counts (docs/architecture.md, "Metrics").
    std::uint64_t arrivals = 0, moves_inside = 0, moves_across = 0, departures = 0;
    std::uint64_t compared = 0, original_queues = 0, original_entries = 0, reimpl_entries = 0;
    std::uint64_t sector_lists = 0; // compared: the lists the compared steps touched, on either side
    std::uint64_t departed = 0;     // compared: the structs removals left
    for (std::uint32_t step = 0; step < script.size(); ++step) {
        const MobileStep& s = script[step];
        // Announced before its work: the step's calls belong to it (refcheck mutate's coverage per
        // input and where a served mutant starts).
        const std::string input = "step " + std::to_string(step);
        ctx.begins(input);
        MobileWorld::Moved moved;
        switch (s.op) {
            case MobileStep::Op::Add: arrivals += world.add(s.mobile, s.links) ? 1 : 0; break;
            case MobileStep::Op::Move:
                moved = world.move(s.mobile.id, s.mobile.position);
                (moved.original_across ? moves_across : moves_inside) += moved.ok ? 1 : 0;
                break;
            case MobileStep::Op::Remove:
                departures += (s.again ? world.remove_again(s.mobile.id) : world.remove(s.mobile.id)) ? 1 : 0;
                break;
        }
        const char* op = step_op(s, moved.original_across);
        const char* reimpl_op = step_op(s, moved.reimpl_across);
        std::vector<EventRecord> a, b;
        for (const std::uint32_t sector : world.take_touched()) {
            a.push_back(sector_list_event(step, sector, world.original_list(sector), op));
            b.push_back(sector_list_event(step, sector, world.reimpl_list(sector), reimpl_op));
        }
        // A removal: the struct it left (links 0, the sector unchanged), read before the queue's
        // call can touch it.
        const std::size_t lists = a.size();
        if (s.op == MobileStep::Op::Remove) {
            a.push_back(departed_event(step, s.mobile.id, world.original_departed(s.mobile.id), op));
            b.push_back(departed_event(step, s.mobile.id, world.reimpl_departed(s.mobile.id), reimpl_op));
        }
        const std::size_t before_queue = a.size();
        o.machine().write(camera_at, pack(o.profile(), s.camera));
        const auto r = o.call("build_mobile_queue_", {camera_at, scene_at, ids_at});
        for (std::uint32_t i = 0; r.ok() && i < r.eax && i < reimpl::kQueueCapacity; ++i)
            a.push_back(entry_event(step, i, o.machine().read_u32(ids_at + 4 * i), op));
        if (r.ok() && r.eax > reimpl::kQueueCapacity) a.push_back(past_capacity_event(step, op));
        const auto queue =
            in_phase(Phase::reimpl, [&] { return world.map().queue(models, s.camera, scene); });
        for (std::size_t i = 0; i < queue.size(); ++i)
            b.push_back(entry_event(step, static_cast<std::int64_t>(i), queue[i], reimpl_op));
        ctx.events += a.size() + b.size();
        ctx.comparator.compare(input, a, b);
        if (!ctx.narrowed_to(input)) continue; // played to build the selected step's state, not compared
        ++compared;
        original_queues += r.ok() ? 1 : 0;
        original_entries += a.size() - before_queue;
        reimpl_entries += b.size() - before_queue;
        sector_lists += lists;
        departed += before_queue - lists;
    }
    // The last input: reset_mobiles_ with the script's mobiles still on the map (abi.reset_mobiles),
    // then the sectors each side has occupied (none). The reset at the start, on the boot's empty map,
    // could not show a reset that leaves lists behind.
    std::uint64_t resets = 0;
    if (!script.empty()) {
        const std::string input = "reset";
        ctx.begins(input);
        const bool ok = world.reset();
        std::vector<EventRecord> a, b = {sector_map_event(world.reimpl_occupied())};
        if (ok) a.push_back(sector_map_event(world.original_occupied()));
        ctx.events += a.size() + b.size();
        ctx.comparator.compare(input, a, b);
        resets += ctx.narrowed_to(input) && ok ? 1 : 0;
    }
    for (const char* r :
         {"reset_mobiles_", "add_mobile_", "move_mobile_", "remove_mobile_", "build_mobile_queue_"})
        o.note_ran(r);
    ctx.report["metrics"] = {{"compared_queues", compared},
                             {"original_queues", original_queues},
                             {"original_queue_entries", original_entries},
                             {"reimpl_queue_entries", reimpl_entries},
                             {"compared_sector_lists", sector_lists},
                             {"compared_departed_structs", departed},
                             {"played_arrivals", arrivals},
                             {"played_moves_inside_sector", moves_inside},
                             {"played_moves_across_sectors", moves_across},
                             {"played_departures", departures},
                             {"original_resets_compared", resets}};
}

void run_receiver(CaseContext& ctx) {
    Original& o = ctx.original;
    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const ReceiverScript script = receiver_script(models, ctx.c.seed, ctx.c.queries, script_options(ctx.c));
    o.call("reset_mobiles_", {});
    MobileWorld world(o, models);
    std::uint64_t played_receivers = 0; // placed on both sides (the original's add_mobile_ returned)
    for (const auto& m : script.receivers) played_receivers += world.add(m) ? 1 : 0;
    std::uint64_t played_decoys = 0;
    for (const auto& m : script.decoys) played_decoys += world.add(m) ? 1 : 0;
    const std::uint32_t caster = script.caster.id;
    world.add(script.caster);
    const std::uint32_t params_at = o.scratch(GuestStruct(o.profile(), "shadow_params").size());
    std::uint64_t compared = 0, original_queries = 0, original_hits = 0, reimpl_hits = 0, above_clouds = 0;
    for (std::uint32_t q = 0; q < script.queries.size(); ++q) {
        const auto& [position, params, at_bound] = script.queries[q];
        const std::string input = "query " + std::to_string(q);
        ctx.begins(input); // before its work, as a mobile step
        world.move(caster, position);
        o.machine().write(params_at, pack(o.profile(), params));
        const auto r = o.call("shadow_plane_height_", {world.address(caster), params_at});
        // sun_y and over_clouds are the query's (the same on both sides): the bounds of
        // shadow.receiver.sun and shadow.plane.rule a rule's predicate asks for. Copied first: a
        // lambda may not capture a structured binding before C++20 (clang 14, the sanitizer build).
        const std::int64_t sun_y = params.sun[1],
                           over_clouds = std::int64_t{position[1]} - params.cloud_altitude,
                           bound = at_bound ? 1 : 0;
        auto query_event = [&](std::int64_t receiver, std::int64_t height) {
            EventRecord e;
            e.kind = "receiver_query";
            e.fields = {{"query", std::int64_t{q}}, {"caster", std::int64_t{caster}},
                        {"sun_y", sun_y},           {"over_clouds", over_clouds},
                        {"at_bound", bound},        {"receiver", receiver},
                        {"height", height}};
            e.key_fields = 1;
            return e;
        };
        std::vector<EventRecord> a, b;
        const std::uint32_t original_receiver = r.ok() ? o.u32("last_receiver") : 0;
        if (r.ok()) a.push_back(query_event(original_receiver, static_cast<std::int32_t>(r.eax)));
        const auto expected = reimpl::shadow_plane_height(models, world.map(), caster, params);
        b.push_back(query_event(expected.receiver, expected.height));
        ctx.events += a.size() + b.size();
        ctx.comparator.compare(input, a, b);
        if (!ctx.narrowed_to(input)) continue;
        ++compared;
        original_queries += r.ok() ? 1 : 0;
        original_hits += original_receiver ? 1 : 0;
        reimpl_hits += expected.receiver ? 1 : 0;
        above_clouds += position[1] >= params.cloud_altitude ? 1 : 0;
    }
    if (ctx.c.null_arguments && !script.queries.empty()) {
        // abi.null: shadow_plane_height_ with a null caster, then null parameters: no receiver
        // (last_receiver 0) and the result abi.null gives, on both sides.
        const auto& params = script.queries.front().params;
        o.machine().write(params_at, pack(o.profile(), params));
        const reimpl::Mobile& caster_mobile = world.map().mobile(caster);
        const struct {
            const char* argument;
            std::uint32_t caster_at, params;
            const reimpl::Mobile* caster;
            const reimpl::ShadowParams* params_p;
        } calls[] = {{"caster", 0, params_at, nullptr, &params},
                     {"params", world.address(caster), 0, &caster_mobile, nullptr}};
        for (const auto& call : calls) {
            const std::string input = std::string("null ") + call.argument;
            if (!ctx.selected(input)) continue;
            const auto r = o.call("shadow_plane_height_", {call.caster_at, call.params});
            if (!r.ok())
                throw OriginalFailed("shadow_plane_height_ faulted with a null " +
                                     std::string(call.argument) + ": " + r.fault->message);
            const auto expected = in_phase(Phase::reimpl, [&] {
                return reimpl::shadow_plane_height(models, world.map(), call.caster, call.params_p);
            });
            const std::string routine = std::string("shadow_plane_height_(null ") + call.argument + ")";
            const std::vector<EventRecord> a{
                rejection_event(routine, static_cast<std::int32_t>(r.eax)),
                rejection_event(routine + " last_receiver", o.u32("last_receiver"))};
            const std::vector<EventRecord> b{rejection_event(routine, expected.height),
                                             rejection_event(routine + " last_receiver", expected.receiver)};
            ctx.events += a.size() + b.size();
            ctx.comparator.compare(input, a, b);
        }
    }
    o.note_ran("shadow_plane_height_");
    ctx.report["metrics"] = {{"compared_queries", compared},
                             {"original_queries", original_queries},
                             {"original_receiver_hits", original_hits},
                             {"reimpl_receiver_hits", reimpl_hits},
                             {"compared_above_clouds", above_clouds},
                             {"played_receivers", played_receivers},
                             {"played_decoys", played_decoys}};
}

} // namespace refcheck::harness
