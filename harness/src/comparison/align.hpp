// Alignment of one input's two streams by event key (kind + key fields): the common prefix and
// suffix in one pass each, and Myers' shortest edit script (O((N+M)·D)) over what lies between, so
// that one missing event is one edit and the events after it still pair up. Beyond `max_edits`
// edits in one input, the rest of its middle is aligned by the greedy look-ahead window.
#pragma once

#include "refcheck/harness/record.hpp"

#include <cstddef>
#include <vector>

namespace refcheck::harness {

struct AlignStep {
    enum Kind { Pair, Missing, Extra } kind = Pair; // Missing: original only; Extra: reimpl only
    std::size_t original = 0;                       // index into the original's stream (Pair, Missing)
    std::size_t reimpl = 0;                         // index into the reimplementation's stream (Pair, Extra)
};

// Whether two events align: same kind and equal key fields (what key_of() prints).
bool same_key(const EventRecord& a, const EventRecord& b);

// The alignment of `a` (the original's) and `b` (the reimplementation's), in stream order: every
// event of each side appears exactly once; pairs are in increasing order on both sides.
std::vector<AlignStep> align_streams(const std::vector<EventRecord>& a, const std::vector<EventRecord>& b,
                                     std::size_t max_edits, std::size_t window);

} // namespace refcheck::harness
