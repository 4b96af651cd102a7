// Construction (spec section 6): the instance tree of a record, each attached instance carrying
// its composed world transform, variable slots (model id 0) empty, depth-limited (att.depth).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/types.hpp"

namespace refcheck::reimpl {

inline constexpr std::uint32_t kMaxInstanceDepth = 8; // att.depth: children at depth 9+ are not built

struct Instance {
    std::uint32_t model = 0;                      // record index
    Transform transform;                          // world placement (composed for attached instances)
    std::uint32_t depth = 0;                      // 0 for the root
    std::vector<std::unique_ptr<Instance>> slots; // one per attachment record; null = empty slot

    const Instance* slot(std::uint32_t index) const {
        return index < slots.size() ? slots[index].get() : nullptr;
    }
};

// att.compose.pos / att.compose.rot: the world transform of an attachment placed on `parent`.
Transform compose(const Transform& parent, const Attachment& attachment);

// construct_3d_object_: the root at `placement`, then (preorder, ascending slots) every attached
// instance whose model id is nonzero, down to depth 8. Variable slots stay empty.
// std::invalid_argument when `model` is not a populated record.
Instance construct(const ModelArchive& archive, std::uint32_t model, const Transform& placement);
// construct_3d_object_ as called (abi.construct, abi.null): a null position is the origin, a null
// rotation the identity.
Instance construct(const ModelArchive& archive, std::uint32_t model, const Vec3* position,
                   const Mat3* rotation);

// Preorder walk (att.order): visitor(instance, path of slots from the root).
void for_each_instance(const Instance& root,
                       const std::function<void(const Instance&, std::span<const std::int32_t>)>& visitor);
std::uint32_t count_instances(const Instance& root);

// A lint beyond the spec (att.depth makes cycles harmless to construction): FormatError naming
// the record and attachment record that closes a cycle of attachment ids, if there is one.
void check_attachment_cycles(const ModelArchive& archive);

} // namespace refcheck::reimpl
