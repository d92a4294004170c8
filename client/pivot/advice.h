// Advice: what a query becomes at each tracepoint it touches (Pivot Tracing §3.3).
//
// One Advice per variable bound by the query (the From variable, each joined variable, and
// the variables of nested queries), woven at that variable's tracepoints. Its operations run
// in order on each firing:
//   OBSERVE v f1 f2     read the named fields of the firing (only those used: projection)
//   UNPACK  bag         read the tuples a happened-before join packed into the request's baggage
//   FILTER  expr        drop the combined tuples for which expr is false (selection, placed at
//                       the earliest advice that sees every variable it names)
//   PACK    bag kind    put tuples into the baggage for advice later in the request:
//                       ALL, FIRST, FIRSTN(n), RECENT, RECENTN(n), or AGGREGATE (grouped partial
//                       aggregates, when the query's aggregation only needs this subtree)
//   EMIT    query       give the tuples (grouped and aggregated in the process) to the agent
// Combiners merge partial aggregates across firings, processes and intervals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "pivot/query.h"

namespace causeway::pivot {

enum class OpKind : uint8_t { kObserve, kUnpack, kFilter, kPack, kEmit };
enum class PackKind : uint8_t { kAll, kFirst, kFirstN, kRecent, kRecentN, kAggregate };

// One aggregate column. AVERAGE is carried as a sum and a count.
struct AggregateSpec {
  Aggregate aggregate = Aggregate::kCount;
  FieldRef field;    // empty var for COUNT
  std::string name;  // output column name
  std::string ToString() const;
};

// How partial results of one aggregate merge (across firings, baggage, processes).
enum class Combiner : uint8_t { kSum, kMin, kMax, kSumAndCount };
Combiner CombinerOf(Aggregate a);

struct Op {
  OpKind kind = OpKind::kObserve;
  std::string var;                        // OBSERVE: the tracepoint's variable
  std::string bag;                        // UNPACK, PACK: baggage key; EMIT: the query id
  std::vector<FieldRef> fields;           // OBSERVE: fields read; UNPACK/PACK: tuple columns
  std::shared_ptr<const Expr> predicate;  // FILTER
  PackKind pack = PackKind::kAll;
  uint32_t n = 0;                         // FIRSTN, RECENTN
  std::vector<FieldRef> group_by;         // PACK AGGREGATE, EMIT
  std::vector<AggregateSpec> aggregates;  // PACK AGGREGATE, EMIT
  // UNPACK of an AGGREGATE bag: the tuples carry partial aggregates, combined by EMIT.
  bool partial = false;
  std::string ToString() const;
};

struct Advice {
  std::string var;
  std::vector<std::string> tracepoints;  // names as written (globs allowed)
  std::vector<Op> ops;
  std::string ToString() const;
};

struct CompiledQuery {
  std::string id;
  std::vector<Advice> advice;  // producers before consumers
  // The EMIT of the query: output columns are group_by then aggregates, or, with no
  // aggregation, the selected fields (`fields`), one row per tuple.
  std::vector<FieldRef> group_by;
  std::vector<AggregateSpec> aggregates;
  std::vector<FieldRef> fields;
  std::vector<std::string> columns;
  std::string ToString() const;
};

// `id` names the query in baggage and results; it must be non-empty.
StatusOr<CompiledQuery> Compile(const Query& query, std::string_view id);

}  // namespace causeway::pivot
