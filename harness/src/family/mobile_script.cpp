#include "family/mobile_script.hpp"

#include "family/mobile_world.hpp"
#include "family/placement.hpp"
#include "refcheck/harness/run.hpp"

#include <map>
#include <string>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace refcheck::harness {

namespace {

constexpr std::int32_t kSector = 1 << 16;

reimpl::Vec3 random_position(Script& s, WorldCentre centre, std::int32_t spread) {
    return {centre[0] + s.range(-spread, spread), s.range(-2000, 0x180000),
            centre[1] + s.range(-spread, spread)};
}

// The point mirrored through the centre (the same distance from it), computed without overflow.
std::int32_t mirrored(std::int32_t centre, std::int32_t v) {
    return static_cast<std::int32_t>(2 * std::int64_t{centre} - v);
}

std::vector<std::uint32_t> live_ids(const reimpl::MobileMap& map, std::uint32_t next_id) {
    std::vector<std::uint32_t> ids;
    for (std::uint32_t id = 1; id < next_id; ++id)
        if (map.contains(id)) ids.push_back(id);
    return ids;
}

// shadow.receiver.test at its bounds: for min x, max x, min z and max z of a receiver's header, a
// point of y = 0 whose local coordinate on that axis is the bound, then one a unit outside it, the
// other coordinate at the middle of its bounds. The receiver's transform (local = M (dx, dz) + c,
// M from the rotation's x and z columns, c its y offset) is solved for the target and the
// neighbourhood searched for the point whose local coordinates come nearest it by the
// reimplementation's own arithmetic (reimpl::receiver_local): an exact hit wherever one exists.
std::vector<reimpl::Vec3> receiver_bound_points(const reimpl::ModelRecord& record, const reimpl::Mobile& r) {
    const auto& b = record.header.bounds; // min x, max x, min y, max y, min z, max z
    const auto& m = r.rotation;
    const double one = 2147483648.0, y = -static_cast<double>(r.position[1]);
    const double a = m[0] / one, bx = m[6] / one, c = m[2] / one, d = m[8] / one;
    const std::array<double, 2> offset{m[3] / one * y, m[5] / one * y};
    const double det = a * d - bx * c;
    std::vector<reimpl::Vec3> out;
    for (int axis = 0; axis < 2; ++axis)
        for (int side = 0; side < 2; ++side)
            for (int outside = 0; outside < 2; ++outside) {
                const std::int64_t bound = b[axis * 4 + side];
                std::array<std::int64_t, 2> target{};
                target[axis] = bound + (outside ? (side ? 1 : -1) : 0);
                target[1 - axis] = (std::int64_t{b[(1 - axis) * 4]} + b[(1 - axis) * 4 + 1]) / 2;
                const double lx = static_cast<double>(target[0]) - offset[0];
                const double lz = static_cast<double>(target[1]) - offset[1];
                const double dx = det != 0 ? (d * lx - bx * lz) / det : 0;
                const double dz = det != 0 ? (a * lz - c * lx) / det : 0;
                const std::int64_t x0 = r.position[0] + std::llround(dx),
                                   z0 = r.position[2] + std::llround(dz);
                reimpl::Vec3 best{};
                std::int64_t best_score = -1;
                for (std::int64_t i = -3; i <= 3; ++i)
                    for (std::int64_t j = -3; j <= 3; ++j) {
                        const reimpl::Vec3 q{static_cast<std::int32_t>(x0 + i), 0,
                                             static_cast<std::int32_t>(z0 + j)};
                        const auto local = reimpl::receiver_local(r, q);
                        const std::int64_t score =
                            std::abs(local[axis] - target[axis]) * (std::int64_t{1} << 32) +
                            std::abs(local[1 - axis] - target[1 - axis]);
                        if (best_score < 0 || score < best_score) best = q, best_score = score;
                    }
                out.push_back(best);
            }
    return out;
}

} // namespace

std::vector<std::uint32_t> populated_records(const reimpl::ModelArchive& models, std::uint32_t need_bits) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 1; i < models.count(); ++i)
        if (models.populated(i) && (models.record(i).header.properties & need_bits) == need_bits)
            out.push_back(i);
    return out;
}

std::vector<MobileStep> mobile_script(const reimpl::ModelArchive& models, std::uint64_t seed,
                                      std::uint32_t steps, const ScriptOptions& options) {
    const WorldCentre centre = options.centre;
    const bool unmodelled = options.unmodelled;
    const auto candidates = populated_records(models);
    if (candidates.empty()) throw std::runtime_error("the archive has no populated record for mobiles");
    std::vector<std::uint32_t> no_record{models.count()}; // past the table
    for (std::uint32_t i = 1; i < models.count(); ++i)
        if (!models.populated(i)) {
            no_record.insert(no_record.begin(), i);
            break;
        }
    std::uint32_t arrivals = 0;
    Script script(seed);
    reimpl::MobileMap map; // the script's own view of who is where
    std::vector<MobileStep> out;
    std::uint32_t next_id = 1;
    for (std::uint32_t step = 0; step < steps; ++step) {
        MobileStep s;
        const auto live = live_ids(map, next_id);
        if (live.size() < 6 || script.chance(35)) {
            s.op = MobileStep::Op::Add;
            s.mobile.id = next_id++;
            s.mobile.model = candidates[script.next() % candidates.size()];
            if (unmodelled && ++arrivals % 5 == 0)
                s.mobile.model = no_record[(arrivals / 5) % no_record.size()];
            s.mobile.position = random_position(script, centre, 5 * kSector / 2);
            if (!live.empty() && script.chance(15)) { // mirrored: the same distance as another object
                const auto& other = map.mobile(live[script.next() % live.size()]).position;
                s.mobile.position = {mirrored(centre[0], other[0]), other[1], mirrored(centre[1], other[2])};
            }
            s.mobile.rotation = rotation(script.range(0, 359), 0, 0, 2147483647.0);
            map.add(s.mobile);
        } else if (script.chance(80)) {
            s.op = MobileStep::Op::Move;
            s.mobile = map.mobile(live[script.next() % live.size()]);
            reimpl::Vec3 p = s.mobile.position;
            const std::int32_t d = script.chance(50) ? 2 * kSector : 1500;
            p[0] += script.range(-d, d), p[2] += script.range(-d, d), p[1] += script.range(-500, 500);
            s.across = reimpl::sector_of(p).index() != reimpl::sector_of(s.mobile.position).index();
            s.mobile.position = p;
            map.move(s.mobile.id, p);
        } else {
            s.op = MobileStep::Op::Remove;
            s.mobile = map.mobile(live[script.next() % live.size()]);
            map.remove(s.mobile.id);
        }
        s.camera.position = {centre[0] + script.range(-4000, 4000), 3000,
                             centre[1] + script.range(-4000, 4000)};
        s.camera.rotation = rotation((step * 37) % 360, script.range(-20, 20), 0, options.camera_one);
        out.push_back(s);
    }
    return out;
}

std::vector<MobileStep> scripted_mobile_steps(const std::vector<Case::MobileScriptStep>& script,
                                              const ScriptOptions& options) {
    using Op = Case::MobileScriptStep::Op;
    reimpl::Camera camera;
    camera.position = {options.centre[0], 3000, options.centre[1]};
    camera.rotation = rotation(0, 0, 0, options.camera_one);
    std::map<std::uint32_t, reimpl::Vec3> at; // where each live mobile is, for `across`
    std::vector<MobileStep> out;
    for (const Case::MobileScriptStep& k : script) {
        MobileStep s;
        s.mobile.id = k.id;
        if (k.camera_position) camera.position = *k.camera_position;
        if (k.camera_rotation)
            camera.rotation = *k.camera_rotation;
        else if (k.camera_position)
            camera.rotation = rotation(0, 0, 0, options.camera_one);
        switch (k.op) {
            case Op::Add:
                s.op = MobileStep::Op::Add;
                s.mobile.model = k.model;
                s.mobile.position = k.position;
                s.mobile.rotation = rotation(k.yaw, 0, 0, 2147483647.0);
                s.links = k.links;
                at[k.id] = k.position;
                break;
            case Op::Move:
                s.op = MobileStep::Op::Move;
                s.mobile.position = k.position;
                s.across = reimpl::sector_of(k.position).index() != reimpl::sector_of(at.at(k.id)).index();
                at[k.id] = k.position;
                break;
            case Op::Remove:
                s.op = MobileStep::Op::Remove;
                s.again = k.again;
                at.erase(k.id);
                break;
        }
        s.camera = camera;
        out.push_back(s);
    }
    return out;
}

ReceiverScript receiver_script(const reimpl::ModelArchive& models, std::uint64_t seed, std::uint32_t queries,
                               const ScriptOptions& options) {
    const WorldCentre centre = options.centre;
    const auto receivers = populated_records(models, reimpl::kShadowReceiverBit);
    const auto casters = populated_records(models, reimpl::kShadowCasterBit);
    if (receivers.empty() || casters.empty())
        throw PreconditionError(
            std::string("the receiver queries need a model with property bit 1 (receives shadows) and ") +
            "one with bit 0 (casts a shadow); the data root's 3DOBJS.BIN has " +
            std::to_string(receivers.size()) + " and " + std::to_string(casters.size()));
    Script script(seed);
    // A turned, pitched and rolled receiver (tilted scripts). The draws are named in order: the
    // order a compiler evaluates function arguments in is unspecified, and the script must not
    // depend on it (roll, pitch, yaw: the order this was first built and measured with).
    auto tilted_rotation = [&] {
        const std::int32_t roll = script.range(-40, 40), pitch = script.range(-40, 40),
                           yaw = script.range(0, 359);
        return rotation(yaw, pitch, roll, 2147483647.0);
    };
    ReceiverScript out;
    std::uint32_t next_id = 1;
    for (std::size_t i = 0; i < receivers.size() * 2; ++i) {
        reimpl::Mobile m;
        m.id = next_id++;
        m.model = receivers[i % receivers.size()];
        m.position = {centre[0] + static_cast<std::int32_t>(i) * 3 * kSector / 4, 0,
                      centre[1] + script.range(-9000, 9000)};
        m.rotation = rotation(script.range(0, 359), 0, 0, 2147483647.0);
        if (options.tilted) { // cross terms: pitch and roll, and a receiver off y = 0
            m.rotation = tilted_rotation();
            m.position[1] = script.range(-3000, 3000);
        }
        out.receivers.push_back(m);
    }
    if (options.tilted)
        for (const std::uint32_t model : casters) {
            if (models.record(model).header.properties & reimpl::kShadowReceiverBit) continue;
            if (out.decoys.size() == 4) break;
            reimpl::Mobile m;
            m.id = next_id++;
            m.model = model;
            const auto i = static_cast<std::int32_t>(out.receivers.size() + out.decoys.size());
            m.position = {centre[0] + i * 3 * kSector / 4, script.range(-3000, 3000),
                          centre[1] + script.range(-9000, 9000)};
            m.rotation = tilted_rotation();
            out.decoys.push_back(m);
        }
    std::vector<const reimpl::Mobile*> targets;
    for (const auto& m : out.receivers) targets.push_back(&m);
    for (const auto& m : out.decoys) targets.push_back(&m);
    out.caster.id = next_id++;
    out.caster.model = casters[script.next() % casters.size()];
    out.caster.position = {centre[0], 1000, centre[1]};
    // The last kEdgeQueries of a script long enough are the bounds no random query meets.
    const std::uint32_t random =
        queries >= kEdgeQueries + kMinRandomQueries ? queries - kEdgeQueries : queries;
    for (std::uint32_t q = 0; q < random; ++q) {
        const auto& target = *targets[script.next() % targets.size()];
        const auto& h = models.record(target.model).header;
        const std::int32_t reach = std::max({std::abs(h.bounds[0]), std::abs(h.bounds[1]),
                                             std::abs(h.bounds[4]), std::abs(h.bounds[5]), 256}) *
                                   11 / 10;
        ReceiverScript::Query query;
        auto& params = query.params;
        params.sun = {script.range(-8000, 8000), script.range(-16000, -4000), script.range(-8000, 8000)};
        params.terrain_height = script.chance(10) ? script.range(1, 800) : 0;
        const std::int32_t altitude =
            script.chance(10) ? script.range(0x100000, 0x140000) : script.range(100, 60000);
        // Aim the shadow at a point near the receiver: p.xz = t.xz + d.xz * altitude / d.y.
        const std::int64_t tx = target.position[0] + script.range(-reach, reach);
        const std::int64_t tz = target.position[2] + script.range(-reach, reach);
        query.position = {
            static_cast<std::int32_t>(tx + std::int64_t{params.sun[0]} * altitude / params.sun[1]), altitude,
            static_cast<std::int32_t>(tz + std::int64_t{params.sun[2]} * altitude / params.sun[1])};
        out.queries.push_back(query);
    }
    if (random == queries) return out;
    // The caster straight above the first receiver's origin, the sun straight down but for the sun
    // queries: shadow.receiver.sun (a sun level with the horizon, sun.y = 0, and one below it: no
    // receiver is searched, h = terrain_height), then shadow.plane.rule at its bound (the caster at
    // the cloud altitude: h = cloud_altitude; one unit below it: the receiver is searched). Random
    // suns all had sun.y < 0 and no caster stood at the cloud altitude, so an original that searched
    // whatever the sun, or tested pos.y > cloud_altitude, stayed equivalent.
    const reimpl::Mobile under = out.receivers.front(); // a copy: a receiver is added below
    auto above_at = [&](std::int32_t x, std::int32_t y, std::int32_t z, reimpl::Vec3 sun, bool at_bound) {
        ReceiverScript::Query query;
        query.params.sun = sun;
        query.position = {x, y, z};
        query.at_bound = at_bound;
        out.queries.push_back(query);
    };
    auto above = [&](std::int32_t y, reimpl::Vec3 sun) {
        above_at(under.position[0], y, under.position[2], sun, false);
    };
    // A receiver's bounds: random queries never put local x or z exactly on a bound or a unit past
    // it, so an original comparing with < for <=, or against a bound moved by a unit, stayed
    // equivalent. A sun straight down puts the shadow under the caster. The receivers side by side
    // overlap (one the scan met first would answer for another), so the bounds are those of one
    // more receiver, three sectors from the others (which stand in the centre's row of sectors).
    reimpl::Mobile apart;
    apart.id = next_id++;
    apart.model = receivers.front();
    // Three sectors south of the centre's row (north where that would pass the map's edge at -2^31).
    const std::int64_t south = std::int64_t{centre[1]} - 3 * kSector;
    apart.position = {centre[0], 0,
                      static_cast<std::int32_t>(south >= INT32_MIN ? south : south + 6 * kSector)};
    apart.rotation = rotation(script.range(0, 359), 0, 0, 2147483647.0);
    if (options.tilted) {
        apart.rotation = tilted_rotation();
        apart.position[1] = script.range(-3000, 3000);
    }
    out.bound_receiver = out.receivers.size();
    out.receivers.push_back(apart);
    const reimpl::Mobile& bounded = out.receivers[out.bound_receiver];
    for (const reimpl::Vec3& q : receiver_bound_points(models.record(bounded.model), bounded))
        above_at(q[0], bounded.position[1] + 2000, q[2], {0, -8000, 0}, true);
    const std::int32_t cloud = ReceiverScript::Query{}.params.cloud_altitude;
    above(under.position[1] + 2000, {0, 0, 4000});
    above(under.position[1] + 2000, {0, 6000, 0});
    above(cloud, {0, -8000, 0});
    above(cloud - 1, {0, -8000, 0});
    return out;
}

} // namespace refcheck::harness
