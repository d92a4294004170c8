// SQLite with its R*-tree module, as a competent user would set it up for these queries.
//
// The intervals are 1-D boxes of an rtree_i32 table with auxiliary columns (attr, t_start,
// t_end, kind, value). The R*-tree keeps 32-bit coordinates only (floats by default, which
// cannot tell nanoseconds apart over a trace; rtree_i32 here): a box is the interval in
// units of 2^shift ns from the trace's start, rounded outward ([start, end - 1] floored),
// with shift the smallest that fits the trace, so a box always covers its interval and
// the exact t_start / t_end columns decide. The attribute is an auxiliary column filtered
// in the same query (attr = ?, attr IN (...)): the R*-tree finds the intervals of the
// time, the filter keeps one attribute's. Loaded in one transaction, journal off.
#pragma once

#include <memory>
#include <string>

#include "store_compare/backend.h"

namespace causeway::bench {

// Creates (replaces) the database file at `path`.
StatusOr<std::unique_ptr<Backend>> OpenSqlite(const std::string& path);

}  // namespace causeway::bench
