// The records a case selects: populated records of the archive filtered by encoding, range, list
// and stride, in ascending order; and the check that both sides hold the same records populated.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/model_archive.hpp"

#include <cstdint>
#include <vector>

namespace refcheck::harness {

std::vector<std::uint32_t> select_records(const Case& c, const reimpl::ModelArchive& models);

struct CaseContext;
// The selection above rests on the reimplementation's parse alone: a record it wrongly took for an
// empty slot would drop out of the case unseen. So the slots the selection names (list, or range and
// stride; the encoding aside) are checked as each side holds them, the original's by its
// object_table (a nonzero entry within object_count). The report's "record_slots" gives how many
// slots were named (of those within either side's count) and how many each side holds. Where the sides differ, they are compared as one
// "table" buffer, "object_table populated", a byte per slot (1: populated), so the case is divergent
// and the differing ranges are the records in question; where they agree nothing is compared (the
// check adds no input: a case that selects nothing else still compares nothing). Called after a
// family's inputs, and in a split case by the finish only.
void compare_record_selection(CaseContext& ctx, const reimpl::ModelArchive& models);

} // namespace refcheck::harness
