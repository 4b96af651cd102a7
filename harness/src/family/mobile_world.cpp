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
    map_.add(m);
    return ok;
}

MobileWorld::Moved MobileWorld::move(std::uint32_t id, const reimpl::Vec3& position) {
    Moved out;
    const std::uint32_t at = guest_.at(id);
    o_.machine().write(position_at_, pack_words(position));
    const std::uint32_t before = o_.machine().read_u32(at + sector_at_);
    out.ok = o_.call("move_mobile_", {at, position_at_}).ok();
    out.original_across = out.ok && o_.machine().read_u32(at + sector_at_) != before;
    out.reimpl_across =
        reimpl::sector_of(map_.mobile(id).position).index() != reimpl::sector_of(position).index();
    map_.move(id, position);
    return out;
}

bool MobileWorld::remove(std::uint32_t id) {
    const bool ok = o_.call("remove_mobile_", {guest_.at(id)}).ok();
    map_.remove(id);
    departed_[id] = guest_.at(id);
    guest_.erase(id);
    return ok;
}

// Both sides remove it again: the reimplementation's map decides what that does (it was "nothing",
// granted here without asking it, while MobileMap::remove threw for an id not in the map).
bool MobileWorld::remove_again(std::uint32_t id) {
    const bool ok = o_.call("remove_mobile_", {departed_.at(id)}).ok();
    map_.remove(id);
    return ok;
}

std::vector<std::uint32_t> MobileWorld::ids() const {
    std::vector<std::uint32_t> out;
    for (const auto& [id, at] : guest_) out.push_back(id);
    return out;
}

} // namespace refcheck::harness
