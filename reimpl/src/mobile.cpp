#include "refcheck/reimpl/mobile.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"

namespace refcheck::reimpl {

Sector sector_of(const Vec3& position) {
    constexpr std::int32_t mask = kSectorsPerSide - 1;
    return {static_cast<std::uint32_t>((position[0] >> kSectorShift) & mask),
            static_cast<std::uint32_t>((position[2] >> kSectorShift) & mask)};
}

bool same_side_of_clouds(std::int32_t camera_y, std::int32_t object_y, std::int32_t cloud_altitude) {
    return (camera_y < cloud_altitude) == (object_y < cloud_altitude);
}

std::int64_t camera_depth(const Camera& camera, const Vec3& position) {
    const Mat3& r = camera.rotation;
    const Vec3& c = camera.position;
    return fixed::dot3(r[6], fixed::sub64(position[0], c[0]), r[7], fixed::sub64(position[1], c[1]), r[8],
                       fixed::sub64(position[2], c[2])) >>
           14;
}

std::uint64_t distance_key(const Camera& camera, const Vec3& position) {
    std::uint64_t key = 0;
    for (int k = 0; k < 3; ++k) {
        const auto d = static_cast<std::uint64_t>(fixed::sub64(position[k], camera.position[k]));
        key += d * d;
    }
    return key;
}

MobileMap::Entry& MobileMap::entry(std::uint32_t id) {
    const auto it = mobiles_.find(id);
    if (it == mobiles_.end()) throw std::invalid_argument(fmt::format("mobile map: no mobile {}", id));
    return it->second;
}

const Mobile& MobileMap::mobile(std::uint32_t id) const {
    const auto it = mobiles_.find(id);
    if (it == mobiles_.end()) throw std::invalid_argument(fmt::format("mobile map: no mobile {}", id));
    return it->second.mobile;
}

void MobileMap::link_front(std::uint32_t id, std::uint32_t sector) {
    auto& list = lists_[sector];
    list.insert(list.begin(), id);
}

void MobileMap::unlink(std::uint32_t id, std::uint32_t sector) {
    auto& list = lists_[sector];
    list.erase(std::find(list.begin(), list.end(), id));
}

void MobileMap::add(const Mobile& mobile) {
    if (mobile.id == 0) throw std::invalid_argument("mobile map: mobile id 0 is reserved");
    if (contains(mobile.id)) {
        throw std::invalid_argument(fmt::format("mobile map: mobile {} is already in the map", mobile.id));
    }
    const std::uint32_t sector = sector_of(mobile.position).index();
    mobiles_.emplace(mobile.id, Entry{mobile, sector});
    departed_.erase(mobile.id);
    link_front(mobile.id, sector);
}

void MobileMap::move(std::uint32_t id, const Vec3& position) {
    Entry& e = entry(id);
    e.mobile.position = position;
    const std::uint32_t sector = sector_of(position).index();
    if (sector == e.sector) return; // mobile.move_same: the list order is kept
    unlink(id, e.sector);           // mobile.move_cross
    link_front(id, sector);
    e.sector = sector;
}

void MobileMap::remove(std::uint32_t id) {
    if (!contains(id) && departed_.count(id)) return; // mobile.remove.again
    const Entry& e = entry(id);
    unlink(id, e.sector);
    mobiles_.erase(id);
    departed_.insert(id);
}

std::vector<std::uint32_t> MobileMap::sector_list(std::uint32_t x, std::uint32_t z) const {
    if (x >= kSectorsPerSide || z >= kSectorsPerSide) {
        throw std::out_of_range(fmt::format("mobile map: no sector ({}, {})", x, z));
    }
    return lists_[Sector{x, z}.index()];
}

std::vector<std::uint32_t> MobileMap::scan(const Vec3& centre) const {
    const Sector c = sector_of(centre);
    std::vector<std::uint32_t> ids;
    for (std::uint32_t dz : {kSectorsPerSide - 1, 0u, 1u}) {
        for (std::uint32_t dx : {kSectorsPerSide - 1, 0u, 1u}) {
            const Sector s{(c.x + dx) % kSectorsPerSide, (c.z + dz) % kSectorsPerSide};
            const auto& list = lists_[s.index()];
            ids.insert(ids.end(), list.begin(), list.end());
        }
    }
    return ids;
}

std::vector<std::uint32_t> MobileMap::queue(const ModelArchive& archive, const Camera& camera,
                                            const Scene& scene) const {
    struct Kept {
        std::uint64_t key;
        std::uint32_t id;
    };
    std::vector<Kept> kept;
    for (std::uint32_t id : scan(camera.position)) {
        if (kept.size() == kQueueCapacity) break; // mobile.capacity: later ones are dropped
        const Mobile& m = mobiles_.at(id).mobile;
        if (!same_side_of_clouds(camera.position[1], m.position[1], scene.cloud_altitude)) continue;
        // mobile.no_record: a model that names no populated record has radius 0.
        const std::int64_t radius = archive.populated(m.model) ? archive.record(m.model).header.radius : 0;
        const std::int64_t z = camera_depth(camera, m.position);
        if (z + radius < scene.near_limit || z - radius > scene.far_limit) continue;
        kept.push_back({distance_key(camera, m.position), id});
    }
    std::sort(kept.begin(), kept.end(),
              [](const Kept& a, const Kept& b) { return a.key != b.key ? a.key > b.key : a.id < b.id; });
    std::vector<std::uint32_t> out;
    out.reserve(kept.size());
    for (const Kept& k : kept) out.push_back(k.id);
    return out;
}

} // namespace refcheck::reimpl
