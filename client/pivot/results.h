// Query results: partial aggregates, result rows, and the table that merges them.
//
// The interpreter turns firings into ResultRows (one per group, with a Partial per aggregate,
// or one per tuple for a query without aggregates). Rows are partial: an agent publishes the
// rows of each interval, and whoever reads them (`causeway pivot`) merges rows of the same
// group across intervals and processes with Partial::Combine. COUNT and SUM are sums, so the
// merged figures are exact whatever the split (as long as they stay below 2^53).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pivot/advice.h"
#include "pivot/baggage.h"

namespace causeway::pivot {

// Partial aggregate of one output column; merged with Combine().
struct Partial {
  double sum = 0;
  int64_t count = 0;
  double min = 0;
  double max = 0;
  bool any = false;  // min/max are set
  void Add(double v);
  void Combine(const Partial& o);
  // The column's value for aggregate `a`.
  double Result(Aggregate a) const;
  bool operator==(const Partial& o) const = default;
};

struct ResultRow {
  Tuple group;                    // group-by values, or the selected fields
  std::vector<Partial> partials;  // one per aggregate
};

struct QueryStats {
  uint64_t firings = 0;
  uint64_t emitted = 0;
  uint64_t dropped_tuples = 0;  // caps hit
  uint64_t type_errors = 0;     // FILTER or aggregate on a value of the wrong type
};

// Some columns of a tuple, seen as a tuple (a column out of range reads as null).
struct GroupView {
  const Tuple* tuple;
  const std::vector<int>* cols;
};

// Hash and equality of tuples and group views alike (heterogeneous lookup: a group is found
// without building it).
struct TupleHash {
  using is_transparent = void;
  size_t operator()(const Tuple& t) const;
  size_t operator()(const GroupView& g) const;
};
struct TupleEq {
  using is_transparent = void;
  bool operator()(const Tuple& a, const Tuple& b) const { return a == b; }
  bool operator()(const GroupView& g, const Tuple& t) const;
  bool operator()(const Tuple& t, const GroupView& g) const { return (*this)(g, t); }
};

// An injective encoding of a tuple (type and value of each member), for grouping.
std::string GroupKey(const Tuple& t);

// Merges partial rows of one query. Rows of queries with aggregates are combined per group;
// rows of queries without are kept as they come, up to `max_plain_rows` (then counted in
// dropped()).
class ResultTable {
 public:
  explicit ResultTable(size_t aggregates, size_t max_plain_rows = 100000)
      : aggregates_(aggregates), max_plain_rows_(max_plain_rows) {}
  void Add(const ResultRow& row);
  void Add(const std::vector<ResultRow>& rows) {
    for (const ResultRow& r : rows) Add(r);
  }
  // Grouped rows in group order (strings, then numbers, as GroupKey sorts), or plain rows in
  // arrival order.
  std::vector<ResultRow> Rows() const;
  size_t size() const { return aggregates_ ? groups_.size() : plain_.size(); }
  uint64_t dropped() const { return dropped_; }

 private:
  size_t aggregates_;
  size_t max_plain_rows_;
  std::map<std::string, ResultRow> groups_;
  std::vector<ResultRow> plain_;
  uint64_t dropped_ = 0;
};

// The value of an aggregate column as text: integers without a decimal point ("42"), other
// numbers with up to 6 significant decimals.
std::string FormatNumber(double v);

}  // namespace causeway::pivot
