#include "family/selection.hpp"

#include "family/families.hpp"

#include <algorithm>

namespace refcheck::harness {

namespace {
// Whether the selection's list, or its range and stride, names slot i (the encoding aside).
bool names_slot(const RecordSelection& s, std::uint32_t i) {
    if (!s.list.empty()) return std::find(s.list.begin(), s.list.end(), i) != s.list.end();
    const std::uint32_t from = s.from.value_or(0);
    return i >= from && i <= s.to.value_or(UINT32_MAX) && (i - from) % s.stride == 0;
}
} // namespace

std::vector<std::uint32_t> select_records(const Case& c, const reimpl::ModelArchive& models) {
    const RecordSelection& s = c.records;
    std::vector<std::uint32_t> candidates;
    if (!s.list.empty()) {
        candidates = s.list;
        std::sort(candidates.begin(), candidates.end());
    } else {
        const std::uint32_t from = s.from.value_or(0);
        const std::uint32_t to = std::min(s.to.value_or(UINT32_MAX), models.count() ? models.count() - 1 : 0);
        for (std::uint32_t i = from; models.count() && i <= to; i += s.stride) candidates.push_back(i);
    }
    std::vector<std::uint32_t> out;
    for (std::uint32_t i : candidates) {
        if (!models.populated(i)) continue;
        const auto enc = models.record(i).encoding;
        if (s.encoding == "s16" && enc != reimpl::Encoding::S16) continue;
        if (s.encoding == "grid" && enc != reimpl::Encoding::Grid) continue;
        out.push_back(i);
    }
    return out;
}

void compare_record_selection(CaseContext& ctx, const reimpl::ModelArchive& models) {
    Original& o = ctx.original;
    // The original's slots as its loader left them: past the reimplementation's count it is read one
    // slot further at most (a wild count reads no further), enough to show a record only it holds.
    const std::uint32_t original_count = std::min(o.u32("object_count"), models.count() + 1);
    const std::uint32_t slots = std::max(models.count(), original_count);
    std::vector<std::uint8_t> original(slots, 0), reimpl(slots, 0);
    std::uint64_t named = 0, held_original = 0, held_reimpl = 0;
    for (std::uint32_t i = 0; i < slots; ++i) {
        if (!names_slot(ctx.c.records, i)) continue;
        ++named;
        original[i] = i < original_count && o.u32("object_table", i) != 0 ? 1 : 0;
        reimpl[i] = models.populated(i) ? 1 : 0;
        held_original += original[i];
        held_reimpl += reimpl[i];
    }
    ctx.report["record_slots"] = {
        {"named", named}, {"populated_original", held_original}, {"populated_reimpl", held_reimpl}};
    // Agreement is the selection's precondition, not a comparison of behaviour: it adds no input
    // and no event, so a case that selects nothing else still compares nothing.
    if (original != reimpl && ctx.narrowed_to("table object_table populated"))
        compare_buffers(ctx, "table", "object_table populated", original, reimpl);
}

} // namespace refcheck::harness
