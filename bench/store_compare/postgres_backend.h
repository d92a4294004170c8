// PostgreSQL as a competent user would set it up for these queries (libpq, one connection).
//
// Tables: intervals (t_start, t_end, value int8, attr int4, kind int2; widest columns first
// so that no row carries alignment padding), attributes (id, path) and strings (id, s):
// the values are ids, as in the store. Loaded with COPY ... FREEZE in the transaction that
// creates the tables (no later vacuum needed for index-only visibility), then indexed:
//   btree (attr, t_start): one attribute at t is the last start <= t of that attribute, a
//     single backward index step (LIMIT 1), then a check of its end;
//   GiST (int8range(t_start, t_end)): every attribute at t (@> t) and a window's overlaps
//     (&&); a btree cannot bound "start <= t < end" on both sides, the range index can.
// then ANALYZE. A view is `attr = ANY(...) AND int8range(...) && window`: the planner picks
// the index (it combines both in a bitmap when that is cheaper).
#pragma once

#include <memory>
#include <string>

#include "store_compare/backend.h"

namespace causeway::bench {

// `conninfo`: a libpq connection string ("host=/tmp/dir dbname=postgres user=postgres").
StatusOr<std::unique_ptr<Backend>> ConnectPostgres(const std::string& conninfo);

}  // namespace causeway::bench
