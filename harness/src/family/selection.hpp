// The records a case selects: populated records of the archive filtered by encoding, range, list
// and stride, in ascending order.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/reimpl/model_archive.hpp"

#include <cstdint>
#include <vector>

namespace refcheck::harness {

std::vector<std::uint32_t> select_records(const Case& c, const reimpl::ModelArchive& models);

} // namespace refcheck::harness
