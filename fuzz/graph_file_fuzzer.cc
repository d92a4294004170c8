// Fuzzes the graph reader of the index's graph file (graph/graph_file.h) with arbitrary
// bodies, as a forged file with a recomputed checksum would give it: nothing may crash,
// hang or allocate more than the input allows, and a graph it accepts must be one the
// analyses can walk: the critical path of every worker over its life ends and tiles it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/binary_file.h"
#include "graph/cpu_holders.h"
#include "graph/critical_path.h"
#include "graph/graph_file.h"

namespace {
void Check(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  causeway::BinaryReader in(std::string_view(reinterpret_cast<const char*>(data), size), 0);
  causeway::graph::ExecutionGraph g;
  if (!causeway::graph::ReadExecutionGraph(&in, &g)) {
    Check(!in.error().empty());
    return 0;
  }
  causeway::graph::CriticalPathFinder finder(g);
  for (causeway::graph::WorkerId w = 0; w < g.num_workers() && w < 64; ++w) {
    const int64_t begin = g.worker(w).start(), end = g.WorkerEnd(w);
    if (end < begin) continue;
    const causeway::graph::CriticalPath p = finder.Compute(w, begin, end);
    int64_t at = p.begin;
    for (const auto& s : p.segments) {
      Check(s.start == at && s.worker < g.num_workers());
      at = s.end;
    }
    for (const auto& s : p.segments)
      if (s.state == causeway::graph::State::kPreempted)
        causeway::graph::WhoHeldTheCpu(g, s.worker, s.start, s.end, SIZE_MAX);
  }
  return 0;
}
