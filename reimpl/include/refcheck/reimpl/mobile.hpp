// The mobile sector map and the drawing queue (spec section 14): moving objects in a 64 x 64 map
// of sector lists (mobile.sector, insert_front, move_same, move_cross, remove), and the queue a
// scene draws: the 3 x 3 sectors around the camera (mobile.scan, scan_order), the cloud and depth
// filters (mobile.cloud, mobile.depth), at most 256 entries (mobile.capacity), sorted far to near
// (mobile.sort).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint32_t kSectorsPerSide = 64; // mobile.map
inline constexpr std::uint32_t kSectorCount = kSectorsPerSide * kSectorsPerSide;
inline constexpr std::uint32_t kSectorShift = 16;
inline constexpr std::size_t kQueueCapacity = 256; // mobile.capacity

// A moving object: id (nonzero, unique in a map), record index, world position, Q31 rotation.
struct Mobile {
    std::uint32_t id = 0;
    std::uint32_t model = 0;
    Vec3 position{};
    Mat3 rotation = kIdentityQ31;
    friend bool operator==(const Mobile&, const Mobile&) = default;
};

// The scene limits of one queue (abi.structs; mobile.defaults).
struct Scene {
    std::int32_t cloud_altitude = 0x00100000;
    std::int32_t near_limit = 64;
    std::int32_t far_limit = 0x00300000;
    friend bool operator==(const Scene&, const Scene&) = default;
};

// mobile.sector: x = (pos.x >> 16) & 63, z = (pos.z >> 16) & 63; index = z * 64 + x.
struct Sector {
    std::uint32_t x = 0;
    std::uint32_t z = 0;
    std::uint32_t index() const { return z * kSectorsPerSide + x; }
    friend bool operator==(const Sector&, const Sector&) = default;
};
Sector sector_of(const Vec3& position);

class MobileMap {
public:
    // mobile.insert_front. std::invalid_argument for id 0 or an id already in the map.
    void add(const Mobile& mobile);
    // mobile.move_same / mobile.move_cross. std::invalid_argument for an unknown id.
    void move(std::uint32_t id, const Vec3& position);
    // mobile.remove; an id removed before and not added since changes nothing (mobile.remove.again:
    // its links are 0 and it is no sector's front). std::invalid_argument for an id never added.
    void remove(std::uint32_t id);

    bool contains(std::uint32_t id) const { return mobiles_.count(id) != 0; }
    const Mobile& mobile(std::uint32_t id) const; // std::invalid_argument for an unknown id
    std::size_t size() const { return mobiles_.size(); }

    // One sector's list, front to back (x, z in 0..63; std::out_of_range otherwise).
    std::vector<std::uint32_t> sector_list(std::uint32_t x, std::uint32_t z) const;
    // mobile.scan, mobile.scan_order: the ids in the sector holding `centre` and its eight
    // neighbours, for dz = -1, 0, 1, for dx = -1, 0, 1 (wrapping at the map edge), each list front
    // to back.
    std::vector<std::uint32_t> scan(const Vec3& centre) const;

    // The drawing queue of one scene (mobile.filter_first, cloud, depth, capacity, sort): mobile
    // ids, farthest first, equal distances by id ascending. The radius of each mobile's model comes
    // from `archive` (std::invalid_argument when a scanned mobile names no populated record).
    std::vector<std::uint32_t> queue(const ModelArchive& archive, const Camera& camera,
                                     const Scene& scene) const;

private:
    struct Entry {
        Mobile mobile;
        std::uint32_t sector = 0;
    };
    Entry& entry(std::uint32_t id);
    void link_front(std::uint32_t id, std::uint32_t sector);
    void unlink(std::uint32_t id, std::uint32_t sector);

    std::map<std::uint32_t, Entry> mobiles_;
    std::set<std::uint32_t> departed_; // removed and not added since
    // Per sector index, the list front first.
    std::vector<std::vector<std::uint32_t>> lists_ = std::vector<std::vector<std::uint32_t>>(kSectorCount);
};

// mobile.cloud: kept when the camera and the object are on the same side of the cloud layer.
bool same_side_of_clouds(std::int32_t camera_y, std::int32_t object_y, std::int32_t cloud_altitude);
// mobile.depth: z = (Σ_k (int64)R[2][k] * ((int64)pos[k] - C[k])) >> 14, in int64.
std::int64_t camera_depth(const Camera& camera, const Vec3& position);
// mobile.sort: dx² + dy² + dz² as uint64 of (position - camera position).
std::uint64_t distance_key(const Camera& camera, const Vec3& position);

} // namespace refcheck::reimpl
