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
    compare_buffers(ctx, kind + " " + name, {{kind, name, original, reimpl}});
}

void compare_buffers(CaseContext& ctx, const std::string& input, const std::vector<BufferPair>& buffers,
                     std::vector<EventRecord> a, std::vector<EventRecord> b) {
    const std::size_t leading = a.size();
    for (const BufferPair& p : buffers) {
        a.push_back(buffer_event(p.kind, p.name, p.original));
        b.push_back(buffer_event(p.kind, p.name, p.reimpl));
    }
    ctx.comparator.compare(input, a, b);
    ctx.events += a.size() + b.size();
    if (!ctx.report.contains("buffers")) ctx.report["buffers"] = ojson::array();
    for (std::size_t k = 0; k < buffers.size(); ++k) {
        const BufferPair& p = buffers[k];
        const EventRecord &ea = a[leading + k], &eb = b[leading + k];
        ojson entry = {{"kind", p.kind},
                       {"name", p.name},
                       {"size", p.original.size()},
                       {"sha256", ea.find("sha256") ? to_string(*ea.find("sha256")) : ""}};
        if (!(ea.fields == eb.fields)) {
            entry["reimpl_size"] = p.reimpl.size();
            entry["reimpl_sha256"] = to_string(*eb.find("sha256"));
            entry["differing_ranges"] = differing_ranges(p.original, p.reimpl);
        }
        ctx.report["buffers"].push_back(entry);
    }
}

} // namespace refcheck::harness
