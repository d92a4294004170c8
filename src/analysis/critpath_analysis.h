// `causeway critpath`'s work on a built execution graph: the thread the user named (a tid,
// narrowed by host and time range when the tid was reused), its critical path over the
// range, and the path's summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "graph/critical_path.h"
#include "graph/execution_graph.h"

namespace causeway::analysis {

struct ThreadPathQuery {
  int32_t tid = -1;
  std::string host;              // empty: any host
  std::optional<int64_t> begin;  // the range (ns, in the graph's timebase); absent: unbounded
  std::optional<int64_t> end;
};

struct ThreadPath {
  graph::WorkerId worker = graph::kNoWorker;
  graph::CriticalPath path;
  graph::PathSummary summary;
};

// Fails with NotFound when the host or the thread is not in the graph (in the range), and
// with InvalidArgument, listing the candidates, when the tid names several threads.
StatusOr<ThreadPath> AnalyzeThreadPath(const graph::ExecutionGraph& g, const ThreadPathQuery& q);

}  // namespace causeway::analysis
