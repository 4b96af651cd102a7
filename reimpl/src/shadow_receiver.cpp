// The receiver query (shadow_plane_height_): shadow.plane.rule and shadow.receiver.when, scan,
// test and raise (spec section 15).
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"
#include "refcheck/reimpl/shadow.hpp"

namespace refcheck::reimpl {

using fixed::dot3;
using fixed::low32;

namespace {

const ModelRecord& model_of(const ModelArchive& archive, const Mobile& mobile) {
    if (!archive.populated(mobile.model)) {
        throw std::invalid_argument(
            fmt::format("mobile {} names model {}, not a populated record", mobile.id, mobile.model));
    }
    return archive.record(mobile.model);
}

} // namespace

// shadow.receiver.test: local[j] = (int32)((Σ_k (int64)Qr[k][j] * ((int64)q[k] - Pr[k])) >> 31), j = x, z.
std::array<std::int32_t, 2> receiver_local(const Mobile& placement, const Vec3& q) {
    const Mat3& r = placement.rotation;
    std::array<std::int64_t, 3> d{};
    for (int k = 0; k < 3; ++k) d[k] = fixed::sub64(q[k], placement.position[k]);
    return {low32(dot3(r[0], d[0], r[3], d[1], r[6], d[2]) >> 31),
            low32(dot3(r[2], d[0], r[5], d[1], r[8], d[2]) >> 31)};
}

bool receiver_holds(const ModelRecord& receiver, const Mobile& placement, const Vec3& q) {
    const auto [x, z] = receiver_local(placement, q);
    const auto& b = receiver.header.bounds; // min x, max x, min y, max y, min z, max z
    return b[0] <= x && x <= b[1] && b[4] <= z && z <= b[5];
}

ReceiverQuery shadow_plane_height(const ModelArchive& archive, const MobileMap& mobiles, const Mobile* caster,
                                  const ShadowParams* params) {
    if (!caster || !params) return {caster ? caster->id : 0, 0, 0}; // abi.null
    return shadow_plane_height(archive, mobiles, caster->id, *params);
}

ReceiverQuery shadow_plane_height(const ModelArchive& archive, const MobileMap& mobiles,
                                  std::uint32_t caster_id, const ShadowParams& params) {
    const Mobile& caster = mobiles.mobile(caster_id);
    ReceiverQuery out{caster_id, 0, params.terrain_height};
    if (caster.position[1] >= params.cloud_altitude) { // shadow.plane.rule: the cloud layer
        out.height = params.cloud_altitude;
        return out;
    }
    if (params.terrain_height != 0 || params.sun[1] >= 0) return out; // shadow.receiver.when
    const Vec3 q = project_to_plane(caster.position, params.sun, 0);
    for (std::uint32_t id : mobiles.scan(q)) { // shadow.receiver.scan: the first hit wins
        if (id == caster_id) continue;
        const Mobile& candidate = mobiles.mobile(id);
        const ModelRecord& record = model_of(archive, candidate);
        if ((record.header.properties & kShadowReceiverBit) == 0 || !receiver_holds(record, candidate, q))
            continue;
        out.receiver = id; // shadow.receiver.raise
        out.height = fixed::add32(candidate.position[1], record.header.height);
        return out;
    }
    return out;
}

} // namespace refcheck::reimpl
