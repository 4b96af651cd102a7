// Mobile objects kept on both sides at once: the original's mobile structs in guest memory driven
// through add_mobile_/move_mobile_/remove_mobile_, and the reimplementation's MobileMap.
#pragma once

#include "refcheck/harness/original.hpp"
#include "refcheck/reimpl/mobile.hpp"
#include "refcheck/reimpl/model_archive.hpp"

#include <cstdint>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace refcheck::harness {

// A deterministic generator for scripted sequences (splitmix64): same seed, same script.
class Script {
public:
    explicit Script(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();
    std::int32_t range(std::int32_t lo, std::int32_t hi); // inclusive
    bool chance(unsigned percent) { return next() % 100 < percent; }

private:
    std::uint64_t state_;
};

// The sectors left occupied after a reset (abi.reset_mobiles: none), as one side saw them.
EventRecord sector_map_event(IntList occupied);

class MobileWorld {
public:
    MobileWorld(Original& original, const reimpl::ModelArchive& models);
    // Each plays one step on both sides; true when the original's routine returned (no fault).
    // `links` (prev, next) are written into the struct before add_mobile_, which must ignore them.
    bool add(const reimpl::Mobile& m, std::optional<std::array<std::uint32_t, 2>> links = std::nullopt);
    // A move, with whether it changed the mobile's sector as each side saw it: the original's from the
    // sector its struct holds before and after move_mobile_ (profile mobile.sector), the
    // reimplementation's from its own sector_of. Neither side labels the other's move.
    struct Moved {
        bool ok = false; // the original's routine returned
        bool original_across = false;
        bool reimpl_across = false;
    };
    Moved move(std::uint32_t id, const reimpl::Vec3& position);
    bool remove(std::uint32_t id);
    // remove_mobile_ again on the struct of a mobile removed before (mobile.remove.again): the
    // reimplementation's map does not change.
    bool remove_again(std::uint32_t id);
    std::uint32_t address(std::uint32_t id) const { return guest_.at(id); }
    // The guest struct of a mobile this world placed, or none for any other id.
    std::optional<std::uint32_t> find_address(std::uint32_t id) const {
        const auto it = guest_.find(id);
        return it == guest_.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
    }
    const reimpl::MobileMap& map() const { return map_; }
    std::vector<std::uint32_t> ids() const;
    // A removed mobile's struct as each side left it (mobile.remove.links): its prev and next links
    // and its sector. The original's read from the struct (profile mobile.prev, next, sector), the
    // reimplementation's its links (none: 0, 0) and the sector its map last held it in.
    IntList original_departed(std::uint32_t id) const;
    IntList reimpl_departed(std::uint32_t id) const;
    // reset_mobiles_ on the original, and a new map on the reimplementation's side
    // (abi.reset_mobiles); true when the original's routine returned. The structs placed before stay
    // known, so a list the reset left behind still names its mobiles.
    bool reset();
    // The sectors whose list is not empty, ascending, on each side: the original's from every entry
    // of its sector_map (profile data), the reimplementation's from its map.
    IntList original_occupied() const;
    IntList reimpl_occupied() const;

    // The sector indices the steps since the last call touched, as either side saw them: the
    // original's from the sector its mobile struct holds before and after each call (profile
    // mobile.sector), the reimplementation's from its sector_of; ascending, each below 4096.
    std::vector<std::uint32_t> take_touched();
    // One sector's list, front to back, on each side (mobile.insert_front, move_same, move_cross,
    // remove). The original's is walked from its sector_map (profile data) through each mobile's
    // `next`; a link to anything but a mobile struct the harness placed ends the walk with -1, and so
    // does a walk longer than the mobiles placed (a cycle).
    IntList original_list(std::uint32_t sector) const;
    IntList reimpl_list(std::uint32_t sector) const;

private:
    Original& o_;
    const reimpl::ModelArchive& models_;
    reimpl::MobileMap map_;
    std::map<std::uint32_t, std::uint32_t> guest_;    // id -> guest mobile struct
    std::map<std::uint32_t, std::uint32_t> departed_; // id -> the struct of a removed mobile
    std::uint32_t position_at_ = 0;
    std::uint32_t sector_at_ = 0; // mobile.sector's offset in the profile's mobile struct
    std::uint32_t next_at_ = 0;   // mobile.next's
    std::uint32_t prev_at_ = 0;   // mobile.prev's
    std::map<std::uint32_t, std::uint32_t> departed_sector_; // id -> the reimplementation's last sector
    std::uint32_t sector_map_ = 0, sector_map_size_ = 0;
    std::set<std::uint32_t> touched_;
    void touch_original(std::uint32_t at);
    void touch_reimpl(const reimpl::Vec3& position);
};

} // namespace refcheck::harness
