#include "family/families.hpp"

#include "refcheck/harness/hash.hpp"

namespace refcheck::harness {

EventRecord buffer_event(const std::string& kind, const std::string& name,
                         std::span<const std::uint8_t> bytes) {
    EventRecord e;
    e.kind = Name::intern(kind);
    e.fields = {
        {"name", name}, {"size", static_cast<std::int64_t>(bytes.size())}, {"sha256", sha256_hex(bytes)}};
    e.key_fields = 1;
    return e;
}

ojson differing_ranges(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::size_t limit) {
    ojson out = ojson::array();
    const std::size_t n = std::max(a.size(), b.size());
    std::size_t i = 0;
    while (i < n && out.size() < limit) {
        auto differs = [&](std::size_t k) { return k >= a.size() || k >= b.size() || a[k] != b[k]; };
        if (!differs(i)) {
            ++i;
            continue;
        }
        const std::size_t begin = i;
        while (i < n && differs(i)) ++i;
        out.push_back({begin, i});
    }
    return out;
}

EventRecord rejection_event(const std::string& routine, std::int64_t result,
                            std::optional<std::string> reason) {
    EventRecord e;
    e.kind = "rejection";
    e.fields = {{"routine", routine}, {"result", result}};
    if (reason) e.fields.emplace_back("reason", *reason);
    e.key_fields = 1;
    return e;
}

std::optional<std::string> initialise_error_name(const Original& original, const std::string& expected) {
    const auto& data = original.profile().data;
    const auto global = data.find("initialise_error");
    if (global == data.end() || !global->second.address || !global->second.values.count(expected))
        return std::nullopt;
    const std::uint32_t value = original.u32("initialise_error");
    for (const auto& [name, code] : global->second.values) // each number names one reason (load_profile)
        if (code == value) return name;
    return "(unnamed: " + std::to_string(value) + ")";
}

void compare_buffers(CaseContext& ctx, const std::string& kind, const std::string& name,
                     std::span<const std::uint8_t> original, std::span<const std::uint8_t> reimpl) {
    std::vector<EventRecord> a{buffer_event(kind, name, original)};
    std::vector<EventRecord> b{buffer_event(kind, name, reimpl)};
    ctx.comparator.compare(kind + " " + name, a, b);
    ctx.events += 2;
    ojson entry = {{"kind", kind},
                   {"name", name},
                   {"size", original.size()},
                   {"sha256", a[0].find("sha256") ? to_string(*a[0].find("sha256")) : ""}};
    if (!(a[0].fields == b[0].fields)) {
        entry["reimpl_size"] = reimpl.size();
        entry["reimpl_sha256"] = to_string(*b[0].find("sha256"));
        entry["differing_ranges"] = differing_ranges(original, reimpl);
    }
    if (!ctx.report.contains("buffers")) ctx.report["buffers"] = ojson::array();
    ctx.report["buffers"].push_back(entry);
}

} // namespace refcheck::harness
