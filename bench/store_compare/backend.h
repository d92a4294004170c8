// One system of the comparison (our store, PostgreSQL, SQLite) behind the same calls, so
// that the benchmark times and checks them alike. Answers use the Dataset's ids.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "store_compare/intervals.h"

namespace causeway::bench {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // Stores the intervals with the indexes the system needs; what Build does is what the
  // construction time measures.
  virtual Status Build(const Dataset& d) = 0;
  // CPU time a server process has used on the system's behalf so far (PostgreSQL's
  // backend), beside the benchmark's own; 0 for systems inside the benchmark's process.
  virtual double ServerCpuSeconds() { return 0; }
  // The bytes the system keeps on disk for them (data and indexes).
  virtual StatusOr<uint64_t> DiskBytes() = 0;

  // One attribute's interval holding t; kind kNull when none.
  virtual Status At(uint32_t attribute, int64_t t, Interval* out) = 0;
  // Every attribute's interval holding t (any order).
  virtual Status AtAll(int64_t t, std::vector<Interval>* out) = 0;
  // The intervals of `attributes` over [t1, t2): the store at a resolution of `step`
  // (step <= 0: all of them); the databases return every interval overlapping the window.
  virtual Status Range(std::span<const uint32_t> attributes, int64_t t1, int64_t t2, int64_t step,
                       std::vector<Interval>* out) = 0;
};

}  // namespace causeway::bench
