// Helpers of the request scenario tests: a span set from a list, and a request's labelled
// path as one line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "requests/request_analysis.h"
#include "support/kernel_scenario.h"

namespace causeway::testing {

// The spans in order, indexed by id.
inline spans::SpanSet Set(std::vector<spans::Span> v) {
  spans::SpanSet set;
  for (auto& s : v) {
    set.by_id[s.span_id] = set.spans.size();
    set.spans.push_back(std::move(s));
  }
  return set;
}

// "tid@start-end cause[(request)]" per piece, " | " between them.
inline std::string Pieces(const KernelScenario& k, const requests::RequestAnalysis& a, size_t r) {
  std::string out;
  for (const auto& p : a.Detail(r).path) {
    if (!out.empty()) out += " | ";
    out += (p.worker == graph::kNoWorker ? std::string("?")
                                         : std::to_string(k.graph().worker(p.worker).tid)) +
           "@" + std::to_string(p.start) + "-" + std::to_string(p.end) + " " +
           std::string(requests::CauseName(p.cause));
    if (p.other_request >= 0) out += "(" + std::to_string(p.other_request) + ")";
  }
  return out;
}

}  // namespace causeway::testing
