// The advice interpreter: runs a CompiledQuery's advice on tracepoint firings.
//
// Install() attaches one probe per Advice through TracepointRegistry (woven at run time,
// removed by Uninstall() or destruction). On each firing the probe OBSERVEs the fields it
// needs, UNPACKs bags of the thread's current baggage (cross product, at most kMaxTuples
// tuples), FILTERs, and PACKs into the baggage or EMITs into the query's in-process
// aggregation. Every step is a bounded loop over bounded data (expressions are at most 512
// operators, tuples and bags capped, groups capped), so a firing always terminates and the
// memory held is bounded; whatever is dropped is counted.
//
// Besides their declared fields, all tracepoints expose host, pid, procName, tid, timestamp
// (nanoseconds, CLOCK_REALTIME) and tracepoint.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "pivot/advice.h"
#include "pivot/baggage.h"
#include "pivot/results.h"

namespace causeway::pivot {

inline constexpr size_t kMaxTuples = 1024;  // per firing, after UNPACK
inline constexpr size_t kMaxGroups = 4096;  // per query and interval
inline constexpr size_t kMaxRows = 4096;    // unaggregated rows per interval

class QueryRunner {
 public:
  explicit QueryRunner(CompiledQuery query);
  ~QueryRunner();
  QueryRunner(const QueryRunner&) = delete;
  QueryRunner& operator=(const QueryRunner&) = delete;

  // Weaves the advice; fails (and weaves nothing) if a tracepoint lacks a field the advice
  // reads. Returns how many tracepoints were woven.
  StatusOr<size_t> Install();
  void Uninstall();

  // The rows aggregated since the last call (the interval's partial results), emptied.
  std::vector<ResultRow> TakeResults();
  QueryStats stats() const;
  const CompiledQuery& query() const { return query_; }

  // Called by the probes.
  void Emit(const Op& emit, std::vector<Tuple>&& tuples, const std::vector<int>& group_cols,
            const std::vector<int>& agg_cols, bool partial_input, bool count_firing = false);
  void CountDropped(uint64_t n) { dropped_.fetch_add(n, std::memory_order_relaxed); }
  void CountTypeError() { type_errors_.fetch_add(1, std::memory_order_relaxed); }
  void CountFiring() { firings_.fetch_add(1, std::memory_order_relaxed); }

 private:
  class Probe;
  CompiledQuery query_;
  std::vector<std::shared_ptr<Probe>> probes_;
  mutable std::mutex mu_;
  std::unordered_map<Tuple, ResultRow, TupleHash, TupleEq> groups_;
  std::vector<ResultRow> rows_;
  uint64_t emitted_ = 0;         // under mu_
  uint64_t firings_locked_ = 0;  // under mu_: the firings that reached EMIT
  std::atomic<uint64_t> firings_{0}, dropped_{0}, type_errors_{0};
};

// Host name used for the implicit `host` field: $CAUSEWAY_HOST when set (tests, containers),
// else gethostname().
void SetPivotHostName(std::string host);
std::string PivotHostName();

}  // namespace causeway::pivot
