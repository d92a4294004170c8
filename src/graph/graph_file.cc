#include "graph/graph_file.h"

#include <algorithm>
#include <functional>
#include <utility>

#include <fmt/format.h>

namespace causeway::graph {

namespace {
// A worker's fixed fields before its name and arrays.
struct WorkerHead {
  uint32_t host;
  int32_t tid;
  int32_t pid;
  uint32_t reserved;
};
static_assert(sizeof(InLink) == 12);

bool CheckTimeline(BinaryReader* in, const std::vector<int64_t>& ts, const char* what, size_t i) {
  for (size_t v = 1; v < ts.size(); ++v)
    if (ts[v] < ts[v - 1])
      return in->Fail(fmt::format("{} {}: timestamp {} goes back in time", what, i, v));
  return true;
}

bool ReadWorker(BinaryReader* in, const ExecutionGraph& g, size_t i, Worker* w) {
  WorkerHead head;
  if (!in->Pod(&head, "worker") || !in->String(&w->name, "worker name")) return false;
  if (head.host >= g.hosts().size())
    return in->Fail(fmt::format("worker {}: host {} of {}", i, head.host, g.hosts().size()));
  w->host = head.host;
  w->tid = head.tid;
  w->pid = head.pid;
  if (!in->Array(&w->ts, "worker timestamps") || !in->Array(&w->edge, "worker edges") ||
      !in->Array(&w->in, "worker in-links"))
    return false;
  if (w->ts.empty() || w->edge.size() != w->ts.size())
    return in->Fail(
        fmt::format("worker {}: {} timestamps and {} edges", i, w->ts.size(), w->edge.size()));
  if (!CheckTimeline(in, w->ts, "worker", i)) return false;
  for (uint32_t e : w->edge)
    if ((e & 0xff) >= static_cast<uint32_t>(kNumStates) || (e >> 8) >= g.num_qualifiers())
      return in->Fail(fmt::format("worker {}: edge {:#x} names no state or qualifier", i, e));
  for (size_t k = 0; k < w->in.size(); ++k) {
    const InLink& l = w->in[k];
    if (l.vertex >= w->ts.size() || (k && l.vertex <= w->in[k - 1].vertex) ||
        (l.from_vertex_kind & 3) > static_cast<uint32_t>(LinkKind::kFork))
      return in->Fail(fmt::format("worker {}: in-link {} out of order or of no kind", i, k));
  }
  return true;
}
// Whether the vertices can be put in an order where each comes after its predecessor on
// its timeline and after the source of its in-link: the "links point back" invariant the
// critical path's termination rests on. A cycle of links would make a walk loop forever.
// Each worker advances along its in-links while their sources exist, else waits on its
// source's worker (a min-heap per worker, by the vertex awaited): O(L log W).
bool LinksPointBack(const ExecutionGraph& g) {
  const size_t n = g.num_workers();
  std::vector<uint32_t> created(n, 0);  // vertices [0, created) of each worker placed
  std::vector<uint32_t> next_link(n, 0);
  using Waiter = std::pair<uint32_t, WorkerId>;  // (vertex awaited, waiting worker)
  std::vector<std::vector<Waiter>> waiters(n);
  std::vector<WorkerId> ready(n);
  for (WorkerId w = 0; w < n; ++w) ready[w] = static_cast<WorkerId>(n - 1 - w);
  auto wake = [&](WorkerId w) {
    std::vector<Waiter>& heap = waiters[w];
    while (!heap.empty() && heap.front().first < created[w]) {
      ready.push_back(heap.front().second);
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.pop_back();
    }
  };
  while (!ready.empty()) {
    const WorkerId w = ready.back();
    ready.pop_back();
    const Worker& k = g.worker(w);
    while (true) {
      if (next_link[w] == k.in.size()) {
        created[w] = static_cast<uint32_t>(k.size());
        wake(w);
        break;
      }
      const InLink& l = k.in[next_link[w]];
      created[w] = l.vertex;
      wake(w);
      if (l.from_vertex() >= created[l.from_worker]) {
        waiters[l.from_worker].emplace_back(l.from_vertex(), w);
        std::push_heap(waiters[l.from_worker].begin(), waiters[l.from_worker].end(),
                       std::greater<>());
        break;
      }
      created[w] = l.vertex + 1;
      ++next_link[w];
    }
  }
  for (WorkerId w = 0; w < n; ++w)
    if (next_link[w] != g.worker(w).in.size()) return false;
  return true;
}

}  // namespace

void WriteExecutionGraph(const ExecutionGraph& g, BinaryFileWriter* out) {
  out->Pod<uint64_t>(g.hosts().size());
  for (const std::string& h : g.hosts()) out->String(h);
  out->Pod<uint64_t>(g.num_qualifiers());
  for (size_t q = 0; q < g.num_qualifiers(); ++q) out->String(g.str(static_cast<StringId>(q)));
  out->Pod<uint64_t>(g.unnamed_qualifiers());
  out->Pod<int64_t>(g.end());
  out->Pod<uint64_t>(g.memory_bytes());
  out->Pod<uint64_t>(g.num_workers());
  for (WorkerId i = 0; i < g.num_workers(); ++i) {
    const Worker& w = g.worker(i);
    out->Pod(WorkerHead{w.host, w.tid, w.pid, 0});
    out->String(w.name);
    out->Array(w.ts);
    out->Array(w.edge);
    out->Array(w.in);
  }
  const CpuTimelines& cpus = g.cpu_timelines();
  out->Pod<uint64_t>(cpus.num_hosts());
  for (uint32_t h = 0; h < cpus.num_hosts(); ++h) {
    out->Pod<uint64_t>(cpus.num_cpus(h));
    for (size_t c = 0; c < cpus.num_cpus(h); ++c) {
      const CpuTimeline& t = cpus.cpu(h, static_cast<int32_t>(c));
      out->Array(t.ts);
      out->Array(t.task);
    }
  }
}

bool ReadExecutionGraph(BinaryReader* in, ExecutionGraph* g) {
  uint64_t n;
  std::string s;
  // Every string costs at least its 8-byte length: counts are bounded by the bytes left.
  if (!in->Count(&n, 8, "hosts")) return false;
  for (uint64_t i = 0; i < n; ++i) {
    if (!in->String(&s, "host name")) return false;
    g->AddHost(s);
  }
  if (!in->Count(&n, 8, "qualifiers")) return false;
  if (n == 0 || n > ExecutionGraph::kMaxQualifiers)
    return in->Fail(fmt::format("{} qualifiers (1 to {})", n, ExecutionGraph::kMaxQualifiers));
  for (uint64_t i = 0; i < n; ++i) {
    if (!in->String(&s, "qualifier")) return false;
    if (g->Intern(s) != i) return in->Fail(fmt::format("qualifier {} repeats another", i));
  }
  uint64_t unnamed, memory;
  int64_t end;
  if (!in->Pod(&unnamed, "unnamed qualifiers") || !in->Pod(&end, "graph end") ||
      !in->Pod(&memory, "graph memory"))
    return false;
  g->set_unnamed_qualifiers(unnamed);
  g->set_end(end);
  g->set_built_memory_bytes(memory);

  // A worker takes at least its head, its name's and its three arrays' lengths.
  if (!in->Count(&n, sizeof(WorkerHead) + 32, "workers")) return false;
  if (n >= kNoWorker) return in->Fail(fmt::format("{} workers", n));
  for (uint64_t i = 0; i < n; ++i) {
    Worker w;
    if (!ReadWorker(in, *g, i, &w)) return false;
    g->AdoptWorker(std::move(w));
  }
  for (WorkerId i = 0; i < g->num_workers(); ++i)
    for (const InLink& l : g->worker(i).in)
      if (l.from_worker >= g->num_workers() || l.from_vertex() >= g->worker(l.from_worker).size())
        return in->Fail(fmt::format("worker {}: an in-link from a vertex that does not exist", i));
  if (!LinksPointBack(*g)) return in->Fail("the in-links form a cycle");

  uint64_t hosts;
  if (!in->Count(&hosts, 8, "CPU timeline hosts")) return false;
  if (hosts > g->hosts().size())
    return in->Fail(
        fmt::format("CPU timelines of {} hosts, {} in the graph", hosts, g->hosts().size()));
  for (uint32_t h = 0; h < hosts; ++h) {
    uint64_t cpus;
    if (!in->Count(&cpus, 16, "CPUs")) return false;
    if (cpus > 65536) return in->Fail(fmt::format("{} CPUs on host {}", cpus, h));
    for (uint32_t c = 0; c < cpus; ++c) {
      CpuTimeline t;
      if (!in->Array(&t.ts, "CPU timestamps") || !in->Array(&t.task, "CPU tasks")) return false;
      if (t.ts.size() != t.task.size())
        return in->Fail(
            fmt::format("CPU {}: {} timestamps and {} tasks", c, t.ts.size(), t.task.size()));
      if (!CheckTimeline(in, t.ts, "CPU", c)) return false;
      for (uint32_t task : t.task)
        if (task >= g->num_workers() && task != kIdleTask && task != kUnknownTask)
          return in->Fail(fmt::format("CPU {}: task {} is no worker", c, task));
      g->mutable_cpu_timelines().Adopt(h, c, std::move(t));
    }
  }
  return true;
}

}  // namespace causeway::graph
