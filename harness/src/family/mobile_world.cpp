#include "family/mobile_world.hpp"

#include "family/placement.hpp"

namespace refcheck::harness {

std::uint64_t Script::next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::int32_t Script::range(std::int32_t lo, std::int32_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(next() % span));
}

MobileWorld::MobileWorld(Original& o, const reimpl::ModelArchive& models) : o_(o), models_(models) {
    const Profile& p = o.profile();
    (void)p.offset_of("mobile", "id"); // the fields every mobile needs, named now if missing
    (void)p.offset_of("mobile", "model_id");
    sector_at_ = p.offset_of("mobile", "sector");
    next_at_ = p.offset_of("mobile", "next");
    prev_at_ = p.offset_of("mobile", "prev");
    sector_map_ = o.address("sector_map");
    sector_map_size_ = p.data.at("sector_map").size;
    position_at_ = o.scratch(12);
}

bool MobileWorld::add(const reimpl::Mobile& m, std::optional<std::array<std::uint32_t, 2>> links) {
    // The profile's layout and size (GuestStruct: each field as large as the harness writes); the
    // link fields are needed only for a script that sets them.
    const GuestStruct mobile(o_.profile(), "mobile");
    const std::int32_t id[] = {static_cast<std::int32_t>(m.id)},
                       model[] = {static_cast<std::int32_t>(m.model)};
    std::vector<std::uint8_t> bytes =
        mobile.pack({{"id", id}, {"model_id", model}, {"pos", m.position}, {"rot", m.rotation}});
    if (links) {
        const std::int32_t prev[] = {static_cast<std::int32_t>((*links)[0])},
                           next[] = {static_cast<std::int32_t>((*links)[1])};
        const std::vector<std::uint8_t> linked = mobile.pack({{"prev", prev}, {"next", next}});
        for (const char* field : {"prev", "next"}) {
            const std::uint32_t at = o_.profile().offset_of("mobile", field);
            std::copy_n(linked.begin() + at, 4, bytes.begin() + at);
        }
    }
    const std::uint32_t at = o_.scratch(mobile.size());
    o_.machine().write(at, bytes);
    guest_[m.id] = at;
    departed_.erase(m.id);
    const bool ok = o_.call("add_mobile_", {at}).ok();
    touch_original(at);
    touch_reimpl(m.position);
    map_.add(m);
    return ok;
}

MobileWorld::Moved MobileWorld::move(std::uint32_t id, const reimpl::Vec3& position) {
    Moved out;
    const std::uint32_t at = guest_.at(id);
    o_.machine().write(position_at_, pack_words(position));
    const std::uint32_t before = o_.machine().read_u32(at + sector_at_);
    touch_original(at);
    out.ok = o_.call("move_mobile_", {at, position_at_}).ok();
    out.original_across = out.ok && o_.machine().read_u32(at + sector_at_) != before;
    touch_original(at);
    out.reimpl_across =
        reimpl::sector_of(map_.mobile(id).position).index() != reimpl::sector_of(position).index();
    touch_reimpl(map_.mobile(id).position);
    touch_reimpl(position);
    map_.move(id, position);
    return out;
}

bool MobileWorld::remove(std::uint32_t id) {
    touch_original(guest_.at(id));
    const bool ok = o_.call("remove_mobile_", {guest_.at(id)}).ok();
    touch_reimpl(map_.mobile(id).position);
    departed_sector_[id] = reimpl::sector_of(map_.mobile(id).position).index();
    map_.remove(id);
    departed_[id] = guest_.at(id);
    guest_.erase(id);
    return ok;
}

// Both sides remove it again: the reimplementation's map decides what that does (it was "nothing",
// granted here without asking it, while MobileMap::remove threw for an id not in the map).
bool MobileWorld::remove_again(std::uint32_t id) {
    touch_original(departed_.at(id));
    const bool ok = o_.call("remove_mobile_", {departed_.at(id)}).ok();
    touch_original(departed_.at(id));
    map_.remove(id);
    return ok;
}

std::vector<std::uint32_t> MobileWorld::ids() const {
    std::vector<std::uint32_t> out;
    for (const auto& [id, at] : guest_) out.push_back(id);
    return out;
}

IntList MobileWorld::original_departed(std::uint32_t id) const {
    const std::uint32_t at = departed_.at(id);
    return {o_.machine().read_u32(at + prev_at_), o_.machine().read_u32(at + next_at_),
            o_.machine().read_u32(at + sector_at_)};
}

IntList MobileWorld::reimpl_departed(std::uint32_t id) const { return {0, 0, departed_sector_.at(id)}; }

bool MobileWorld::reset() {
    const bool ok = o_.call("reset_mobiles_", {}).ok();
    map_ = reimpl::MobileMap{};
    touched_.clear();
    for (const auto& [id, at] : guest_) departed_.emplace(id, at);
    guest_.clear();
    return ok;
}

IntList MobileWorld::original_occupied() const {
    IntList out;
    const std::vector<std::uint8_t> heads = o_.bytes(sector_map_, sector_map_size_);
    for (std::uint32_t i = 0; i + 4 <= heads.size(); i += 4)
        if (heads[i] | heads[i + 1] | heads[i + 2] | heads[i + 3]) out.push_back(i / 4);
    return out;
}

IntList MobileWorld::reimpl_occupied() const {
    IntList out;
    for (std::uint32_t i = 0; i < reimpl::kSectorCount; ++i)
        if (!map_.sector_list(i % reimpl::kSectorsPerSide, i / reimpl::kSectorsPerSide).empty())
            out.push_back(i);
    return out;
}

EventRecord sector_map_event(IntList occupied) {
    EventRecord e;
    e.kind = "sector_map";
    e.fields = {{"occupied", std::move(occupied)}};
    e.key_fields = 0;
    return e;
}

void MobileWorld::touch_original(std::uint32_t at) {
    const std::uint32_t sector = o_.machine().read_u32(at + sector_at_);
    if (sector < reimpl::kSectorCount) touched_.insert(sector);
}

void MobileWorld::touch_reimpl(const reimpl::Vec3& position) {
    touched_.insert(reimpl::sector_of(position).index());
}

std::vector<std::uint32_t> MobileWorld::take_touched() {
    std::vector<std::uint32_t> out(touched_.begin(), touched_.end());
    touched_.clear();
    return out;
}

IntList MobileWorld::original_list(std::uint32_t sector) const {
    IntList ids;
    if (4ull * sector + 4 > sector_map_size_) return {-1}; // the profile's sector_map is smaller
    std::map<std::uint32_t, std::uint32_t> placed;         // struct address -> id
    for (const auto& [id, at] : guest_) placed[at] = id;
    for (const auto& [id, at] : departed_) placed.emplace(at, id);
    std::uint32_t at = o_.machine().read_u32(sector_map_ + 4 * sector);
    while (at) {
        const auto it = placed.find(at);
        if (it == placed.end() || ids.size() > placed.size()) {
            ids.push_back(-1);
            break;
        }
        ids.push_back(it->second);
        at = o_.machine().read_u32(at + next_at_);
    }
    return ids;
}

IntList MobileWorld::reimpl_list(std::uint32_t sector) const {
    const auto ids = map_.sector_list(sector % reimpl::kSectorsPerSide, sector / reimpl::kSectorsPerSide);
    return IntList(ids.begin(), ids.end());
}

} // namespace refcheck::harness
