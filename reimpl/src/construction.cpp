#include "refcheck/reimpl/construction.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"

namespace refcheck::reimpl {

using fixed::dot3;
using fixed::low32;

Transform compose(const Transform& parent, const Attachment& a) {
    const Mat3& p = parent.rotation;
    Transform child;
    for (int i = 0; i < 3; ++i) {
        const std::int64_t moved = dot3(p[3 * i], a.translation[0], p[3 * i + 1], a.translation[1],
                                        p[3 * i + 2], a.translation[2]) >>
                                   31;
        child.position[i] = fixed::add32(parent.position[i], low32(moved));
        for (int j = 0; j < 3; ++j) {
            child.rotation[3 * i + j] = low32(dot3(p[3 * i], a.rotation[j], p[3 * i + 1], a.rotation[3 + j],
                                                   p[3 * i + 2], a.rotation[6 + j]) >>
                                              31);
        }
    }
    return child;
}

namespace {

std::unique_ptr<Instance> build(const ModelArchive& archive, std::uint32_t model, const Transform& placement,
                                std::uint32_t depth) {
    auto instance = std::make_unique<Instance>();
    instance->model = model;
    instance->transform = placement;
    instance->depth = depth;
    const ModelRecord& record = archive.record(model);
    instance->slots.resize(record.attachments.size());
    if (depth >= kMaxInstanceDepth) return instance;
    for (std::size_t slot = 0; slot < record.attachments.size(); ++slot) {
        const Attachment& a = record.attachments[slot];
        if (a.model == 0) continue; // att.zero_slot: filled by gameplay, empty here
        instance->slots[slot] = build(archive, a.model, compose(placement, a), depth + 1);
    }
    return instance;
}

void walk(const Instance& instance, std::vector<std::int32_t>& path,
          const std::function<void(const Instance&, std::span<const std::int32_t>)>& visitor) {
    visitor(instance, path);
    for (std::size_t slot = 0; slot < instance.slots.size(); ++slot) {
        if (!instance.slots[slot]) continue;
        path.push_back(static_cast<std::int32_t>(slot));
        walk(*instance.slots[slot], path, visitor);
        path.pop_back();
    }
}

} // namespace

Instance construct(const ModelArchive& archive, std::uint32_t model, const Transform& placement) {
    if (!archive.populated(model)) {
        throw std::invalid_argument(
            fmt::format("construct: model {} is not a populated record of {}", model, kModelArchiveName));
    }
    return std::move(*build(archive, model, placement, 0));
}

Instance construct(const ModelArchive& archive, std::uint32_t model, const Vec3* position,
                   const Mat3* rotation) {
    Transform placement; // the origin and the identity
    if (position) placement.position = *position;
    if (rotation) placement.rotation = *rotation;
    return construct(archive, model, placement);
}

void for_each_instance(const Instance& root,
                       const std::function<void(const Instance&, std::span<const std::int32_t>)>& visitor) {
    std::vector<std::int32_t> path;
    walk(root, path, visitor);
}

std::uint32_t count_instances(const Instance& root) {
    std::uint32_t n = 0;
    for_each_instance(root, [&n](const Instance&, std::span<const std::int32_t>) { ++n; });
    return n;
}

void check_attachment_cycles(const ModelArchive& archive) {
    enum class Mark : std::uint8_t { Open, Done };
    std::map<std::uint32_t, Mark> marks;
    struct Frame {
        std::uint32_t model;
        std::size_t next_slot = 0;
    };
    for (std::uint32_t root = 0; root < archive.count(); ++root) {
        if (!archive.populated(root) || marks.count(root) != 0) continue;
        std::vector<Frame> stack{{root}};
        marks[root] = Mark::Open;
        while (!stack.empty()) {
            Frame& top = stack.back();
            const ModelRecord& record = archive.record(top.model);
            if (top.next_slot == record.attachments.size()) {
                marks[top.model] = Mark::Done;
                stack.pop_back();
                continue;
            }
            const std::size_t slot = top.next_slot++;
            const std::uint32_t child = record.attachments[slot].model;
            if (child == 0) continue;
            const auto it = marks.find(child);
            if (it == marks.end()) {
                marks[child] = Mark::Open;
                stack.push_back({child});
            } else if (it->second == Mark::Open) {
                archive.reader(top.model).fail(
                    record.absolute(record.header.attachments) + 4 + slot * sizeof(Attachment),
                    fmt::format("attachment slot {} names model {}, which attaches this record "
                                "again (a cycle)",
                                slot, child));
            }
        }
    }
}

} // namespace refcheck::reimpl
