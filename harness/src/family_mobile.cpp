// Mobile family: a scripted sequence of arrivals, moves (inside a sector and across boundaries) and
// departures, driven through the original's add_mobile_/move_mobile_/remove_mobile_ and the
// reimplementation's MobileMap; after every step both drawing queues (build_mobile_queue_) are
// compared entry by entry.
// Receiver family: deck-receiver queries (shadow_plane_height_): casters placed so that their shadow
// falls on, near or beside each receiver, under varied suns, altitudes and terrain heights.
#include "families.hpp"
#include "mobile_world.hpp"
#include "placement.hpp"

#include "refcheck/reimpl/shadow.hpp"

namespace refcheck::harness {

namespace {

constexpr std::int32_t kSector = 1 << 16;
constexpr std::int32_t kCentre = 32 * kSector + kSector / 2;

std::vector<std::uint32_t> populated(const reimpl::ModelArchive& models, std::uint32_t need_bits = 0) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 1; i < models.count(); ++i)
        if (models.populated(i) && (models.record(i).header.properties & need_bits) == need_bits) out.push_back(i);
    return out;
}

EventRecord entry_event(std::int64_t step, std::int64_t index, std::int64_t id) {
    EventRecord e;
    e.kind = "queue_entry";
    e.fields = {{"step", step}, {"index", index}, {"id", id}};
    e.key_fields = 2;
    return e;
}

reimpl::Vec3 random_position(Script& s, std::int32_t spread) {
    return {kCentre + s.range(-spread, spread), s.range(-2000, 0x180000), kCentre + s.range(-spread, spread)};
}

}  // namespace

void run_mobile(CaseContext& ctx) {
    Original& o = ctx.original;
    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const auto candidates = populated(models);
    if (candidates.empty()) throw std::runtime_error("the archive has no populated record for mobiles");
    o.call("reset_mobiles_", {});
    MobileWorld world(o, models);
    Script script(ctx.c.seed);
    const std::uint32_t camera_at = o.scratch(48), scene_at = o.scratch(12), ids_at = o.scratch(256 * 4);
    const reimpl::Scene scene;
    o.machine().write(scene_at, pack_words(std::array<std::int32_t, 3>{scene.cloud_altitude, scene.near_limit, scene.far_limit}));
    std::uint32_t next_id = 1;
    std::uint64_t arrivals = 0, moves_inside = 0, moves_across = 0, departures = 0, entries = 0;
    for (std::uint32_t step = 0; step < ctx.c.steps; ++step) {
        const auto live = world.ids();
        if (live.size() < 6 || script.chance(35)) {
            reimpl::Mobile m;
            m.id = next_id++;
            m.model = candidates[script.next() % candidates.size()];
            m.position = random_position(script, 5 * kSector / 2);
            if (!live.empty() && script.chance(15)) {  // mirrored: the same distance as another object
                const auto& other = world.map().mobile(live[script.next() % live.size()]).position;
                m.position = {2 * kCentre - other[0], other[1], 2 * kCentre - other[2]};
            }
            m.rotation = rotation(script.range(0, 359), 0, 0, 2147483647.0);
            world.add(m);
            ++arrivals;
        } else if (script.chance(80)) {
            const std::uint32_t id = live[script.next() % live.size()];
            reimpl::Vec3 p = world.map().mobile(id).position;
            const bool far = script.chance(50);
            const std::int32_t d = far ? 2 * kSector : 1500;
            p[0] += script.range(-d, d), p[2] += script.range(-d, d), p[1] += script.range(-500, 500);
            const bool across = reimpl::sector_of(p).index() != reimpl::sector_of(world.map().mobile(id).position).index();
            world.move(id, p);
            (across ? moves_across : moves_inside)++;
        } else {
            world.remove(live[script.next() % live.size()]);
            ++departures;
        }
        reimpl::Camera camera;
        camera.position = {kCentre + script.range(-4000, 4000), 3000, kCentre + script.range(-4000, 4000)};
        camera.rotation = rotation((step * 37) % 360, script.range(-20, 20), 0, 16384.0);
        o.machine().write(camera_at, pack(camera));
        const auto r = o.call("build_mobile_queue_", {camera_at, scene_at, ids_at});
        std::vector<EventRecord> a, b;
        for (std::uint32_t i = 0; r.ok() && i < r.eax && i < 256; ++i)
            a.push_back(entry_event(step, i, o.machine().read_u32(ids_at + 4 * i)));
        const auto queue = world.map().queue(models, camera, scene);
        for (std::size_t i = 0; i < queue.size(); ++i) b.push_back(entry_event(step, static_cast<std::int64_t>(i), queue[i]));
        entries += b.size();
        ctx.events += a.size() + b.size();
        ctx.comparator.compare("step " + std::to_string(step), a, b);
    }
    for (const char* r : {"add_mobile_", "move_mobile_", "remove_mobile_", "build_mobile_queue_"}) o.note_ran(r);
    ctx.report["metrics"] = {{"queues", ctx.c.steps},   {"queue_entries", entries},        {"arrivals", arrivals},
                             {"moves_inside_sector", moves_inside}, {"moves_across_sectors", moves_across},
                             {"departures", departures}};
}

void run_receiver(CaseContext& ctx) {
    Original& o = ctx.original;
    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const auto receivers = populated(models, reimpl::kShadowReceiverBit);
    const auto casters = populated(models, reimpl::kShadowCasterBit);
    if (receivers.empty() || casters.empty()) throw std::runtime_error("the archive has no receiver or no caster");
    o.call("reset_mobiles_", {});
    MobileWorld world(o, models);
    Script script(ctx.c.seed);
    std::uint32_t next_id = 1;
    std::vector<std::uint32_t> receiver_ids;
    for (std::size_t i = 0; i < receivers.size() * 2; ++i) {  // each receiver twice, turned differently
        reimpl::Mobile m;
        m.id = next_id++;
        m.model = receivers[i % receivers.size()];
        m.position = {kCentre + static_cast<std::int32_t>(i) * 3 * kSector / 4, 0, kCentre + script.range(-9000, 9000)};
        m.rotation = rotation(script.range(0, 359), 0, 0, 2147483647.0);
        world.add(m);
        receiver_ids.push_back(m.id);
    }
    reimpl::Mobile caster;
    caster.id = next_id++;
    caster.model = casters[script.next() % casters.size()];
    caster.position = {kCentre, 1000, kCentre};
    world.add(caster);
    const std::uint32_t params_at = o.scratch(24);
    std::uint64_t hits = 0, above_clouds = 0;
    for (std::uint32_t q = 0; q < ctx.c.queries; ++q) {
        const auto& target = world.map().mobile(receiver_ids[script.next() % receiver_ids.size()]);
        const auto& h = models.record(target.model).header;
        const std::int32_t reach = std::max({std::abs(h.bounds[0]), std::abs(h.bounds[1]), std::abs(h.bounds[4]),
                                             std::abs(h.bounds[5]), 256}) * 11 / 10;
        reimpl::ShadowParams params;
        params.sun = {script.range(-8000, 8000), script.range(-16000, -4000), script.range(-8000, 8000)};
        params.terrain_height = script.chance(10) ? script.range(1, 800) : 0;
        const std::int32_t altitude = script.chance(10) ? script.range(0x100000, 0x140000) : script.range(100, 60000);
        // Aim the shadow at a point near the receiver: p.xz = t.xz + d.xz * altitude / d.y.
        const std::int64_t tx = target.position[0] + script.range(-reach, reach);
        const std::int64_t tz = target.position[2] + script.range(-reach, reach);
        const reimpl::Vec3 p = {static_cast<std::int32_t>(tx + std::int64_t{params.sun[0]} * altitude / params.sun[1]),
                                altitude,
                                static_cast<std::int32_t>(tz + std::int64_t{params.sun[2]} * altitude / params.sun[1])};
        world.move(caster.id, p);
        std::vector<std::int32_t> words(params.sun.begin(), params.sun.end());
        words.insert(words.end(), {params.terrain_height, params.cloud_altitude, params.plane_height});
        o.machine().write(params_at, pack_words(words));
        const auto r = o.call("shadow_plane_height_", {world.address(caster.id), params_at});
        auto query_event = [&](std::int64_t receiver, std::int64_t height) {
            EventRecord e;
            e.kind = "receiver_query";
            e.fields = {{"query", std::int64_t{q}}, {"caster", std::int64_t{caster.id}}, {"receiver", receiver},
                        {"height", height}};
            e.key_fields = 1;
            return e;
        };
        std::vector<EventRecord> a, b;
        if (r.ok()) a.push_back(query_event(o.u32("last_receiver"), static_cast<std::int32_t>(r.eax)));
        const auto expected = reimpl::shadow_plane_height(models, world.map(), caster.id, params);
        b.push_back(query_event(expected.receiver, expected.height));
        hits += expected.receiver ? 1 : 0;
        above_clouds += altitude >= params.cloud_altitude ? 1 : 0;
        ctx.events += a.size() + b.size();
        ctx.comparator.compare("query " + std::to_string(q), a, b);
    }
    o.note_ran("shadow_plane_height_");
    ctx.report["metrics"] = {{"queries", ctx.c.queries}, {"receiver_hits", hits}, {"above_clouds", above_clouds},
                             {"receivers", receiver_ids.size()}};
}

}  // namespace refcheck::harness
