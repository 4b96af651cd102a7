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
    off_id_ = p.offset_of("mobile", "id");
    off_model_ = p.offset_of("mobile", "model_id");
    off_pos_ = p.offset_of("mobile", "pos");
    off_rot_ = p.offset_of("mobile", "rot");
    size_ = 72;
    for (const auto& f : p.structs.at("mobile")) size_ = std::max(size_, f.offset + f.size);
    position_at_ = o.scratch(12);
}

bool MobileWorld::add(const reimpl::Mobile& m, std::optional<std::array<std::uint32_t, 2>> links) {
    const std::uint32_t at = o_.scratch(size_);
    o_.machine().write(at, std::vector<std::uint8_t>(size_, 0));
    o_.machine().write_u32(at + off_id_, m.id);
    o_.machine().write_u32(at + off_model_, m.model);
    o_.machine().write(at + off_pos_, pack_words(m.position));
    o_.machine().write(at + off_rot_, pack_words(m.rotation));
    if (links) { // looked up only here: a profile needs the link fields only for such a script
        o_.machine().write_u32(at + o_.profile().offset_of("mobile", "prev"), (*links)[0]);
        o_.machine().write_u32(at + o_.profile().offset_of("mobile", "next"), (*links)[1]);
    }
    guest_[m.id] = at;
    departed_.erase(m.id);
    const bool ok = o_.call("add_mobile_", {at}).ok();
    map_.add(m);
    return ok;
}

bool MobileWorld::move(std::uint32_t id, const reimpl::Vec3& position) {
    o_.machine().write(position_at_, pack_words(position));
    const bool ok = o_.call("move_mobile_", {guest_.at(id), position_at_}).ok();
    map_.move(id, position);
    return ok;
}

bool MobileWorld::remove(std::uint32_t id) {
    const bool ok = o_.call("remove_mobile_", {guest_.at(id)}).ok();
    map_.remove(id);
    departed_[id] = guest_.at(id);
    guest_.erase(id);
    return ok;
}

bool MobileWorld::remove_again(std::uint32_t id) {
    return o_.call("remove_mobile_", {departed_.at(id)}).ok();
}

std::vector<std::uint32_t> MobileWorld::ids() const {
    std::vector<std::uint32_t> out;
    for (const auto& [id, at] : guest_) out.push_back(id);
    return out;
}

} // namespace refcheck::harness
