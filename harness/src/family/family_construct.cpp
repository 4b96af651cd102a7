// Construct family: every selected record constructed by the original's construct_3d_object_ and by
// the reimplementation, with variable slots empty; the instance trees compared instance by
// instance (path, record, composed position and rotation, slot count).
#include "family/families.hpp"
#include "family/invalid_program.hpp"
#include "refcheck/harness/phase.hpp"
#include "family/placement.hpp"
#include "family/selection.hpp"

#include "refcheck/reimpl/construction.hpp"

#include <algorithm>

namespace refcheck::harness {

namespace {

EventRecord instance_event(std::int64_t root, int placement, std::vector<std::int64_t> path,
                           std::int64_t record, std::vector<std::int64_t> position,
                           std::vector<std::int64_t> rotation, std::int64_t slots) {
    EventRecord e;
    e.kind = "instance";
    e.fields = {{"root", root},     {"placement", std::int64_t{placement}}, {"path", std::move(path)},
                {"record", record}, {"position", std::move(position)},      {"rotation", std::move(rotation)},
                {"slots", slots}};
    e.key_fields = 3;
    return e;
}

// Walks the original's instance tree in guest memory (preorder, slots ascending: att.order). A
// corrupt tree is the original's to answer for, never the harness's: a child pointer to memory the
// machine lacks gives an `instance_unreadable` event, a child that is its own ancestor an
// `instance_cycle` event (neither followed), and past kMostInstances instances the walk stops with an
// `instance_walk_stopped` event. Each is a divergence (the reimplementation's trees have none). A
// self-referencing instance was walked 256 slots wide and 16 deep: the worker grew by 100 MB/s
// until the case timeout or the machine's memory ended it.
constexpr std::size_t kMostInstances = 65536;
struct OriginalWalk {
    Original& o;
    std::int64_t root;
    int placement;
    std::vector<EventRecord>& out;
    std::vector<std::int64_t> path;
    std::vector<std::uint32_t> ancestors;

    EventRecord marker(Name kind, std::uint32_t address) const {
        EventRecord e;
        e.kind = kind;
        e.fields = {{"root", root},
                    {"placement", std::int64_t{placement}},
                    {"path", path},
                    {"address", std::int64_t{address}}};
        e.key_fields = 3;
        return e;
    }
    void walk(std::uint32_t address) {
        if (out.size() >= kMostInstances) {
            if (out.back().kind != "instance_walk_stopped")
                out.push_back(marker("instance_walk_stopped", address));
            return;
        }
        const Profile& p = o.profile();
        const emu::Machine& m = o.machine();
        const std::uint32_t size = p.struct_size("instance");
        if (!m.is_mapped(address) || !m.is_mapped(address + (size ? size - 1 : 0))) {
            out.push_back(marker("instance_unreadable", address));
            return;
        }
        if (std::find(ancestors.begin(), ancestors.end(), address) != ancestors.end()) {
            out.push_back(marker("instance_cycle", address));
            return;
        }
        auto field = [&](const char* name) { return address + p.offset_of("instance", name); };
        std::vector<std::int64_t> position, rotation;
        for (int i = 0; i < 3; ++i)
            position.push_back(static_cast<std::int32_t>(m.read_u32(field("pos") + 4 * i)));
        for (int i = 0; i < 9; ++i)
            rotation.push_back(static_cast<std::int32_t>(m.read_u32(field("rot") + 4 * i)));
        const std::uint32_t slots = m.read_u32(field("attach_count"));
        out.push_back(
            instance_event(root, placement, path, m.read_u32(field("model_id")), position, rotation, slots));
        if (ancestors.size() > 16)
            return; // the original's own limit is 8; never follow a corrupt tree further
        ancestors.push_back(address);
        for (std::uint32_t s = 0; s < slots && s < 256; ++s) {
            const std::uint32_t at = field("attach") + 4 * s;
            if (!m.is_mapped(at) || !m.is_mapped(at + 3)) {
                out.push_back(marker("instance_unreadable", at));
                break;
            }
            const std::uint32_t child = m.read_u32(at);
            if (!child) continue;
            path.push_back(s);
            walk(child);
            path.pop_back();
        }
        ancestors.pop_back();
    }
};

// The census of one side's instance trees (its instance events): instances, attached ones (a
// non-empty path) and empty slots (slots no child fills: each filled slot holds one attached
// instance).
struct TreeCensus {
    std::uint64_t instances = 0, attached = 0, slots = 0;
    void add(const std::vector<EventRecord>& events) {
        for (const EventRecord& e : events) {
            if (e.kind != "instance") continue; // a corrupt tree's markers (OriginalWalk) are no instances
            ++instances;
            if (const Value* path = e.find("path"); path && std::holds_alternative<IntList>(*path))
                attached += std::get<IntList>(*path).empty() ? 0 : 1;
            if (const Value* n = e.find("slots"); n && std::holds_alternative<std::int64_t>(*n))
                slots += static_cast<std::uint64_t>(std::get<std::int64_t>(*n));
        }
    }
    std::uint64_t empty_slots() const { return slots > attached ? slots - attached : 0; }
};

} // namespace

void run_construct(CaseContext& ctx) {
    Original& o = ctx.original;
    // "invalid_program" (valid.extent.clamp): record R's attachment list runs past the archive's
    // end; the reimplementation refuses it, and builds from the list cut as the stand-in cuts it.
    InvalidProgramCheck invalid(ctx.c);
    invalid.archive(ctx.models);
    const auto models = reimpl::ModelArchive::parse(ctx.models, invalid.cut_lists());
    const auto placements = construct_placements();
    std::vector<std::uint32_t> placement_addresses;
    for (const auto& t : placements) {
        const std::uint32_t pos = o.scratch(12), rot = o.scratch(36);
        o.machine().write(pos, pack_words(t.position));
        o.machine().write(rot, pack_words(t.rotation));
        placement_addresses.push_back(pos);
        placement_addresses.push_back(rot);
    }
    // Each call: its input's suffix, the position and rotation pointers passed (0: null), and the
    // same placement for the reimplementation, whose pointer-taking construct says what a null
    // means (abi.construct; the harness had passed it the origin and the identity, deciding that
    // for it). "null_arguments" adds the turned placement with its position null, then with its
    // rotation null.
    struct Call {
        std::string name;
        std::uint32_t pos, rot;
        reimpl::Transform transform;
        bool null_position = false, null_rotation = false;
    };
    std::vector<Call> calls;
    for (std::size_t k = 0; k < placements.size(); ++k)
        calls.push_back({"placement " + std::to_string(k), placement_addresses[2 * k],
                         placement_addresses[2 * k + 1], placements[k]});
    if (ctx.c.null_arguments) {
        const reimpl::Transform& turned = placements.back();
        calls.push_back({"null position", 0, placement_addresses.back(), turned, true, false});
        calls.push_back(
            {"null rotation", placement_addresses[placement_addresses.size() - 2], 0, turned, false, true});
    }
    // The census counts the first placement's trees of the records whose first placement is
    // compared (a narrowing leaves the others out), each side's from its own instance events: it
    // was the reimplementation's tree alone, of every record built, compared or not.
    std::uint64_t records = 0;
    TreeCensus original_census, reimpl_census;
    for (const std::uint32_t record : select_records(ctx.c, models)) {
        for (std::size_t k = 0; k < calls.size(); ++k) {
            const std::string input = "record " + std::to_string(record) + " " + calls[k].name;
            ctx.begins(input);
            std::vector<EventRecord> original, reimpl_events;
            const auto r = o.call("construct_3d_object_", {record, calls[k].pos, calls[k].rot});
            if (r.ok() && r.eax) {
                OriginalWalk{o, record, static_cast<int>(k), original, {}, {}}.walk(r.eax);
            }
            const Call& call = calls[k];
            const reimpl::Instance root = in_phase(Phase::reimpl, [&] {
                return reimpl::construct(models, record,
                                         call.null_position ? nullptr : &call.transform.position,
                                         call.null_rotation ? nullptr : &call.transform.rotation);
            });
            if (invalid.active()) {
                // The cut lists of the records built (a construction has no walk: a cut is reached
                // where a record holding one is built).
                std::vector<reimpl::ProgramStop> cuts;
                reimpl::for_each_instance(root,
                                          [&](const reimpl::Instance& in, std::span<const std::int32_t>) {
                                              for (const std::string& cut : models.record(in.model).cut)
                                                  cuts.push_back({in.model, 0, cut, false});
                                          });
                invalid.input(input, cuts, [] {});
            }
            reimpl::for_each_instance(
                root, [&](const reimpl::Instance& in, std::span<const std::int32_t> path) {
                    reimpl_events.push_back(instance_event(
                        record, static_cast<int>(k), std::vector<std::int64_t>(path.begin(), path.end()),
                        in.model,
                        std::vector<std::int64_t>(in.transform.position.begin(), in.transform.position.end()),
                        std::vector<std::int64_t>(in.transform.rotation.begin(), in.transform.rotation.end()),
                        static_cast<std::int64_t>(in.slots.size())));
                });
            if (k == 0 && ctx.narrowed_to(input)) {
                ++records;
                original_census.add(original);
                reimpl_census.add(reimpl_events);
            }
            ctx.events += original.size() + reimpl_events.size();
            ctx.comparator.compare(input, original, reimpl_events);
        }
    }
    o.note_ran("construct_3d_object_");
    compare_record_selection(ctx, models);
    if (invalid.active()) ctx.report["invalid_program"] = invalid.finish(ctx.narrowed());
    ctx.report["metrics"] = {
        {"records", records},
        {"instances", two_sided(original_census.instances, reimpl_census.instances)},
        {"attached_instances", two_sided(original_census.attached, reimpl_census.attached)},
        {"empty_slots", two_sided(original_census.empty_slots(), reimpl_census.empty_slots())},
        {"placements", placements.size()}};
}

} // namespace refcheck::harness
