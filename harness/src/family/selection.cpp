#include "family/selection.hpp"

#include <algorithm>

namespace refcheck::harness {

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

} // namespace refcheck::harness
