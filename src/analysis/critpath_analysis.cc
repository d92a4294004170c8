#include "analysis/critpath_analysis.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "graph/thread_lookup.h"
#include "report/critpath_format.h"

namespace causeway::analysis {

StatusOr<ThreadPath> AnalyzeThreadPath(const graph::ExecutionGraph& g, const ThreadPathQuery& q) {
  const int64_t begin = q.begin.value_or(INT64_MIN);
  const int64_t end = q.end.value_or(INT64_MAX);
  auto unknown_host = [&] {
    std::string hosts;
    for (const auto& h : g.hosts()) hosts += (hosts.empty() ? "" : ", ") + h;
    return NotFound(fmt::format("no host '{}' in the traces (hosts: {})", q.host, hosts));
  };
  uint32_t host = graph::ThreadLookup::kAllHosts;
  if (!q.host.empty()) {
    auto it = std::find(g.hosts().begin(), g.hosts().end(), q.host);
    if (it == g.hosts().end()) return unknown_host();
    host = static_cast<uint32_t>(it - g.hosts().begin());
  }
  const graph::ThreadLookup threads(g, host);
  if (threads.size() == 0 && !q.host.empty()) return unknown_host();
  // One worker per host, more when the tid was reused.
  const std::vector<graph::WorkerId> found = threads.Find(q.tid, begin, end);
  if (found.empty())
    return NotFound(fmt::format(
        "tid {} does not run in the traces{} (see `causeway threads` for the threads there are)",
        q.tid, q.begin || q.end ? " in that time range" : ""));
  if (found.size() > 1) {
    std::string which;
    for (graph::WorkerId w : found)
      which += fmt::format("\n  host {}: {} from {} to {}", g.hosts()[g.worker(w).host],
                           report::ThreadLabel(g, w), report::FormatTimestamp(g.worker(w).start()),
                           report::FormatTimestamp(g.WorkerEnd(w)));
    return InvalidArgument(
        fmt::format("tid {} is {} different threads; choose one with --host or --begin/--end:{}",
                    q.tid, found.size(), which));
  }
  ThreadPath out;
  out.worker = found[0];
  graph::CriticalPathFinder finder(g);
  out.path = finder.Compute(out.worker, begin, end);
  out.summary = graph::Summarize(out.path);
  return out;
}

}  // namespace causeway::analysis
