// The intervals every system of the comparison gets: the thread states of every worker
// (the state label per edge of its timeline) and who ran on each CPU, taken from a kernel
// analysis, with the attribute paths and values of src/state/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/kernel_analysis.h"

namespace causeway::bench {

// A value as every system stores it: null, an integer, or a string of Dataset::strings.
enum class ValueKind : uint8_t { kNull = 0, kInt = 1, kString = 2 };

struct Interval {
  int64_t start = 0;  // [start, end), end > start
  int64_t end = 0;
  uint32_t attribute = 0;  // index into Dataset::attributes
  ValueKind kind = ValueKind::kNull;
  int64_t value = 0;  // the integer, or the index into Dataset::strings
};

struct Dataset {
  std::vector<std::string> attributes;  // paths, by id
  std::vector<std::string> strings;     // string values, by id
  // In end-time order (ties by attribute), as the analysis closes them: the order a
  // one-pass writer sees. One attribute's intervals never overlap.
  std::vector<Interval> intervals;
  std::vector<uint32_t> thread_state_attributes;  // ids of the hosts/*/threads/*/state paths
  int64_t begin = 0;                              // the first start and the last end
  int64_t end = 0;
};

Dataset ExtractIntervals(const analysis::KernelAnalysis& analysis);

}  // namespace causeway::bench
