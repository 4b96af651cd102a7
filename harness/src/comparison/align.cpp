#include "comparison/align.hpp"

#include <algorithm>

namespace refcheck::harness {

bool same_key(const EventRecord& a, const EventRecord& b) {
    if (a.kind != b.kind) return false;
    const std::size_t na = std::min(a.key_fields, a.fields.size());
    const std::size_t nb = std::min(b.key_fields, b.fields.size());
    if (na != nb) return false;
    for (std::size_t i = 0; i < na; ++i)
        if (!(a.fields[i] == b.fields[i])) return false;
    return true;
}

namespace {

using Stream = std::vector<EventRecord>;

// The greedy look-ahead of the first comparator: at a mismatch, drop the side whose next event is
// found sooner in the other within `window` events.
void greedy(const Stream& a, const Stream& b, std::size_t i, std::size_t ai, std::size_t j, std::size_t bj,
            std::size_t window, std::vector<AlignStep>& out) {
    while (i < ai || j < bj) {
        if (i < ai && j < bj && same_key(a[i], b[j])) {
            out.push_back({AlignStep::Pair, i++, j++});
            continue;
        }
        std::size_t skip_b = window + 1, skip_a = window + 1;
        if (i < ai)
            for (std::size_t k = j; k < bj && k - j <= window; ++k)
                if (same_key(b[k], a[i])) {
                    skip_b = k - j;
                    break;
                }
        if (j < bj)
            for (std::size_t k = i; k < ai && k - i <= window; ++k)
                if (same_key(a[k], b[j])) {
                    skip_a = k - i;
                    break;
                }
        const bool drop_original = j >= bj || (i < ai && skip_a <= skip_b && skip_a != 0);
        if (drop_original && i < ai)
            out.push_back({AlignStep::Missing, i++, j});
        else
            out.push_back({AlignStep::Extra, i, j++});
    }
}

// Myers' greedy shortest edit script of a[lo_a, hi_a) and b[lo_b, hi_b), at most `max_edits`
// edits. Returns false (and appends nothing) when more are needed.
bool myers(const Stream& a, const Stream& b, std::size_t lo_a, std::size_t hi_a, std::size_t lo_b,
           std::size_t hi_b, std::size_t max_edits, std::vector<AlignStep>& out) {
    const long n = static_cast<long>(hi_a - lo_a), m = static_cast<long>(hi_b - lo_b);
    const long dmax = std::min<long>(n + m, static_cast<long>(max_edits));
    // trace[d]: furthest x on diagonals k = -d..d after d edits (index k + d).
    std::vector<std::vector<long>> trace;
    std::vector<long> v(2 * static_cast<std::size_t>(dmax) + 3, 0);
    const long off = dmax + 1;
    long found = -1;
    for (long d = 0; d <= dmax && found < 0; ++d) {
        for (long k = -d; k <= d; k += 2) {
            long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                              : v[off + k - 1] + 1;
            long y = x - k;
            while (x < n && y < m && same_key(a[lo_a + x], b[lo_b + y])) ++x, ++y;
            v[off + k] = x;
            if (x >= n && y >= m) found = d;
        }
        trace.emplace_back(v.begin() + (off - d), v.begin() + (off + d + 1));
    }
    if (found < 0) return false;
    std::vector<AlignStep> rev;
    long x = n, y = m;
    for (long d = found; d > 0; --d) {
        const std::vector<long>& prev = trace[static_cast<std::size_t>(d - 1)];
        auto at = [&](long k) { return prev[static_cast<std::size_t>(k + d - 1)]; };
        const long k = x - y;
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1)); // an event of b only
        const long pk = down ? k + 1 : k - 1;
        const long px = at(pk), py = px - pk;
        while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) {
            --x, --y;
            rev.push_back(
                {AlignStep::Pair, lo_a + static_cast<std::size_t>(x), lo_b + static_cast<std::size_t>(y)});
        }
        if (down)
            rev.push_back(
                {AlignStep::Extra, lo_a + static_cast<std::size_t>(px), lo_b + static_cast<std::size_t>(py)});
        else
            rev.push_back({AlignStep::Missing, lo_a + static_cast<std::size_t>(px),
                           lo_b + static_cast<std::size_t>(py)});
        x = px, y = py;
    }
    while (x > 0 && y > 0) {
        --x, --y;
        rev.push_back(
            {AlignStep::Pair, lo_a + static_cast<std::size_t>(x), lo_b + static_cast<std::size_t>(y)});
    }
    out.insert(out.end(), rev.rbegin(), rev.rend());
    return true;
}

} // namespace

std::vector<AlignStep> align_streams(const Stream& a, const Stream& b, std::size_t max_edits,
                                     std::size_t window) {
    std::vector<AlignStep> out;
    out.reserve(std::max(a.size(), b.size()));
    std::size_t p = 0; // the fast path: while the keys agree, nothing to search
    while (p < a.size() && p < b.size() && same_key(a[p], b[p])) out.push_back({AlignStep::Pair, p, p}), ++p;
    std::size_t ea = a.size(), eb = b.size();
    while (ea > p && eb > p && same_key(a[ea - 1], b[eb - 1])) --ea, --eb;
    if (p < ea || p < eb)
        if (!myers(a, b, p, ea, p, eb, max_edits, out)) greedy(a, b, p, ea, p, eb, window, out);
    for (std::size_t i = ea, j = eb; i < a.size(); ++i, ++j) out.push_back({AlignStep::Pair, i, j});
    return out;
}

} // namespace refcheck::harness
