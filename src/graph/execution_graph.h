// The execution graph of seed 004 (Alg. 1), stored compactly.
//
// A *worker* is one thread of one host (a tid reused after an exit is a new worker). Its
// horizontal timeline is a sequence of vertices with non-decreasing timestamps; the edge
// that leaves vertex i (until vertex i+1, or until the end of the analysis for the last
// one) carries a state label and a qualifier. Vertical edges are *in-links*: a vertex of
// the target worker that ends a wait, pointing to the vertex of the source worker that was
// current when the signal left it (a wake-up by a running thread, a TCP segment sent, a
// fork). Links always point to vertices created before their target, so following them
// backward always terminates.
//
// Storage is struct-of-arrays per worker: 8 bytes of timestamp and 4 bytes of edge
// (label | qualifier << 8) per vertex, 12 bytes per in-link. No per-vertex allocation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/cpu_timelines.h"

namespace causeway::graph {

// Horizontal edge labels (Trace Compass's names), plus kNone for "not alive".
enum class State : uint8_t {
  kRunning,
  kPreempted,    // runnable, waiting for a CPU
  kBlocked,      // waiting on another thread, or on something unnamed
  kInterrupted,  // woken from interrupt context (SCHED softirq, a hard IRQ)
  kTimer,
  kNetwork,
  kBlockDevice,
  kUserInput,
  kIpi,
  kUnknown,  // lost events, missing wake-up: never resolved to a cause
  kNone,     // after exit: the worker no longer exists
  // A wait ended by a block completion, split (kernel/block_requests.h): the awaited request
  // was queued in the block layer or held by a throttle; BLOCK_DEVICE is its device time.
  kBlockQueue,
};
inline constexpr int kNumStates = 12;
std::string_view StateName(State s);       // "RUNNING", ...
std::string_view StateNameLower(State s);  // "running", ... (JSON keys)

// Kinds of in-links.
enum class LinkKind : uint8_t { kWakeup = 0, kNetwork = 1, kFork = 2 };
std::string_view LinkKindName(LinkKind k);

using WorkerId = uint32_t;
using StringId = uint32_t;  // qualifier strings; 0 is the empty string
inline constexpr WorkerId kNoWorker = UINT32_MAX;

struct InLink {
  uint32_t vertex = 0;  // target vertex in this worker
  WorkerId from_worker = kNoWorker;
  uint32_t from_vertex_kind = 0;  // source vertex << 2 | LinkKind

  uint32_t from_vertex() const { return from_vertex_kind >> 2; }
  LinkKind kind() const { return static_cast<LinkKind>(from_vertex_kind & 3); }
};

struct Worker {
  uint32_t host = 0;
  int32_t tid = 0;
  int32_t pid = -1;  // its process (thread group), when the trace says; -1 unknown
  std::string name;
  std::vector<int64_t> ts;     // vertex timestamps, non-decreasing
  std::vector<uint32_t> edge;  // leaving edge of each vertex: State | qualifier << 8
  std::vector<InLink> in;      // sorted by vertex

  size_t size() const { return ts.size(); }
  State state(size_t v) const { return static_cast<State>(edge[v] & 0xff); }
  StringId qualifier(size_t v) const { return edge[v] >> 8; }
  State open_state() const { return state(ts.size() - 1); }
  bool alive() const { return open_state() != State::kNone; }
  int64_t start() const { return ts.front(); }
};

class ExecutionGraph {
 public:
  // Qualifiers share the edge word with the state: 24 bits of id.
  static constexpr uint32_t kMaxQualifiers = 1u << 24;
  // `max_qualifiers` (at most kMaxQualifiers, the empty one included) is lowered by tests
  // only, to reach the limit without 16 million strings.
  explicit ExecutionGraph(uint32_t max_qualifiers = kMaxQualifiers);

  // Hosts are named by the trace env hostname; ids are dense from 0.
  uint32_t AddHost(std::string name);
  const std::vector<std::string>& hosts() const { return hosts_; }

  // Interned qualifier strings ("irq 19 eth0", "softirq TIMER", "lost events", ...).
  // Past the limit a new string gets the empty qualifier (0), counted below: only a
  // corrupt or hostile trace names millions of distinct irqs, disks or vectors.
  StringId Intern(std::string_view s);
  // How many Intern calls of a new string found the qualifier ids exhausted.
  uint64_t unnamed_qualifiers() const { return unnamed_qualifiers_; }
  size_t num_qualifiers() const { return strings_.size(); }  // the empty one included
  std::string_view str(StringId id) const { return strings_[id]; }

  // --- Building (graph builder only) ---------------------------------------------------
  // A new worker whose first vertex is at `ts` with state `s`.
  WorkerId AddWorker(uint32_t host, int32_t tid, int64_t ts, State s, StringId q = 0);
  // The state of `w` becomes (s, q) at ts. Adds a vertex only when the label changes;
  // timestamps earlier than the last vertex are raised to it (each timeline is ordered).
  void SetState(WorkerId w, int64_t ts, State s, StringId q = 0);
  // Adds a vertex at ts even when the state does not change (a packet send point).
  // Returns its index.
  uint32_t AddVertex(WorkerId w, int64_t ts, State s, StringId q = 0);
  // Ends the wait of `w` at ts with an in-link from (from, from_vertex); the new open
  // state is `s`. Returns nothing: the link is stored on the new vertex.
  void AddLinkedVertex(WorkerId w, int64_t ts, State s, WorkerId from, uint32_t from_vertex,
                       LinkKind kind);
  // Relabels the open (last) edge of w, e.g. a wait whose cause turns out to be a timer.
  void RelabelOpen(WorkerId w, State s, StringId q = 0);
  // Relabels edge v of w, open or not: a wait whose waker is known only later.
  void RelabelEdge(WorkerId w, size_t v, State s, StringId q = 0);
  uint32_t last_vertex(WorkerId w) const { return static_cast<uint32_t>(workers_[w].size() - 1); }
  // The state of w's open (last) edge, from a dense copy: the builder asks for it on every
  // event, and the dense array stays in cache where the per-worker vectors do not.
  State open_state(WorkerId w) const { return static_cast<State>(open_[w] & 0xff); }
  bool alive(WorkerId w) const { return open_state(w) != State::kNone; }
  // The end of every open edge: the last timestamp of the analysis.
  void set_end(int64_t end) { end_ = end; }
  // Releases the spare capacity of the growth policy once building is over.
  void ShrinkToFit();

  // --- Restoring (graph/graph_file.h reads a graph back) -------------------------------
  // Appends a whole worker; its timeline is not empty. The reader checks its indexes.
  WorkerId AdoptWorker(Worker w);
  void set_unnamed_qualifiers(uint64_t n) { unnamed_qualifiers_ = n; }
  // What memory_bytes() says: the figure of the graph as it was built (the restored one's
  // capacities differ), so that a report prints the same whichever way the graph came.
  void set_built_memory_bytes(uint64_t n) { built_memory_bytes_ = n; }

  // --- Reading ---------------------------------------------------------------------------
  size_t num_workers() const { return workers_.size(); }
  const Worker& worker(WorkerId w) const { return workers_[w]; }
  Worker& mutable_worker(WorkerId w) { return workers_[w]; }
  int64_t end() const { return end_; }
  // End time of the edge leaving vertex v (the next vertex, or the analysis end).
  int64_t EdgeEnd(WorkerId w, size_t v) const {
    const Worker& k = workers_[w];
    return v + 1 < k.size() ? k.ts[v + 1] : end_;
  }
  // End of the worker's life: its last vertex when it died, else the analysis end.
  int64_t WorkerEnd(WorkerId w) const {
    const Worker& k = workers_[w];
    return k.alive() ? end_ : k.ts.back();
  }
  // The in-link that ends at vertex v of w, or nullptr. `hint` is a cursor into w's
  // in-links that makes monotonic scans (forward or backward) O(1) amortized.
  const InLink* FindInLink(WorkerId w, uint32_t v, size_t* hint) const;

  // Who ran on each CPU (the model records every switch; cpu_holders.h reads it).
  const CpuTimelines& cpu_timelines() const { return cpus_; }
  CpuTimelines& mutable_cpu_timelines() { return cpus_; }

  uint64_t num_vertices() const;
  uint64_t num_links() const;
  uint64_t memory_bytes() const;  // of the graph as built from the trace

 private:
  std::vector<std::string> hosts_;
  std::vector<Worker> workers_;
  std::vector<uint32_t> open_;  // workers_[w].edge.back(), dense
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StringId> string_ids_;
  uint32_t max_qualifiers_ = kMaxQualifiers;
  uint64_t unnamed_qualifiers_ = 0;
  int64_t end_ = 0;
  CpuTimelines cpus_;
  uint64_t built_memory_bytes_ = 0;  // restored graphs: memory_bytes() of the one written
};

}  // namespace causeway::graph
