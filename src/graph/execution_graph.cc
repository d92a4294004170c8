#include "graph/execution_graph.h"

#include <algorithm>

namespace causeway::graph {

namespace {
constexpr std::string_view kStateNames[kNumStates] = {
    "RUNNING",      "PREEMPTED",  "BLOCKED", "INTERRUPTED", "TIMER", "NETWORK",
    "BLOCK_DEVICE", "USER_INPUT", "IPI",     "UNKNOWN",     "NONE",  "BLOCK_QUEUE"};
constexpr std::string_view kStateNamesLower[kNumStates] = {
    "running",      "preempted",  "blocked", "interrupted", "timer", "network",
    "block_device", "user_input", "ipi",     "unknown",     "none",  "block_queue"};

uint32_t Pack(State s, StringId q) { return static_cast<uint32_t>(s) | (q << 8); }
}  // namespace

std::string_view StateName(State s) { return kStateNames[static_cast<int>(s)]; }
std::string_view StateNameLower(State s) { return kStateNamesLower[static_cast<int>(s)]; }

std::string_view LinkKindName(LinkKind k) {
  switch (k) {
    case LinkKind::kWakeup:
      return "wakeup";
    case LinkKind::kNetwork:
      return "network";
    case LinkKind::kFork:
      return "fork";
  }
  return "?";
}

ExecutionGraph::ExecutionGraph(uint32_t max_qualifiers)
    : max_qualifiers_(std::clamp<uint32_t>(max_qualifiers, 1, kMaxQualifiers)) {
  strings_.emplace_back();
  string_ids_.emplace(std::string(), 0);
}

uint32_t ExecutionGraph::AddHost(std::string name) {
  hosts_.push_back(std::move(name));
  return static_cast<uint32_t>(hosts_.size() - 1);
}

StringId ExecutionGraph::Intern(std::string_view s) {
  auto it = string_ids_.find(std::string(s));
  if (it != string_ids_.end()) return it->second;
  if (strings_.size() >= max_qualifiers_) {
    ++unnamed_qualifiers_;
    return 0;
  }
  const StringId id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  string_ids_.emplace(std::string(s), id);
  return id;
}

WorkerId ExecutionGraph::AddWorker(uint32_t host, int32_t tid, int64_t ts, State s, StringId q) {
  Worker& w = workers_.emplace_back();
  w.host = host;
  w.tid = tid;
  w.ts.push_back(ts);
  w.edge.push_back(Pack(s, q));
  open_.push_back(Pack(s, q));
  return static_cast<WorkerId>(workers_.size() - 1);
}

WorkerId ExecutionGraph::AdoptWorker(Worker w) {
  open_.push_back(w.edge.back());
  workers_.push_back(std::move(w));
  return static_cast<WorkerId>(workers_.size() - 1);
}

void ExecutionGraph::SetState(WorkerId id, int64_t ts, State s, StringId q) {
  const uint32_t packed = Pack(s, q);
  if (open_[id] == packed) return;
  open_[id] = packed;
  Worker& w = workers_[id];
  if (ts <= w.ts.back()) {
    // A zero-length edge says nothing: relabel the last vertex instead, unless an in-link
    // ends there (its wait must stay visible as the edge before it).
    if (w.in.empty() || w.in.back().vertex != w.ts.size() - 1 || w.ts.size() == 1) {
      w.edge.back() = packed;
      return;
    }
    ts = w.ts.back();
  }
  w.ts.push_back(ts);
  w.edge.push_back(packed);
}

uint32_t ExecutionGraph::AddVertex(WorkerId id, int64_t ts, State s, StringId q) {
  Worker& w = workers_[id];
  w.ts.push_back(std::max(ts, w.ts.back()));
  w.edge.push_back(Pack(s, q));
  open_[id] = Pack(s, q);
  return static_cast<uint32_t>(w.ts.size() - 1);
}

void ExecutionGraph::AddLinkedVertex(WorkerId id, int64_t ts, State s, WorkerId from,
                                     uint32_t from_vertex, LinkKind kind) {
  const uint32_t v = AddVertex(id, ts, s);
  workers_[id].in.push_back(InLink{v, from, (from_vertex << 2) | static_cast<uint32_t>(kind)});
}

void ExecutionGraph::RelabelOpen(WorkerId id, State s, StringId q) {
  workers_[id].edge.back() = Pack(s, q);
  open_[id] = Pack(s, q);
}

void ExecutionGraph::RelabelEdge(WorkerId id, size_t v, State s, StringId q) {
  Worker& w = workers_[id];
  w.edge[v] = Pack(s, q);
  if (v + 1 == w.edge.size()) open_[id] = Pack(s, q);
}

void ExecutionGraph::ShrinkToFit() {
  for (Worker& w : workers_) {
    w.ts.shrink_to_fit();
    w.edge.shrink_to_fit();
    w.in.shrink_to_fit();
  }
  cpus_.ShrinkToFit();
}

const InLink* ExecutionGraph::FindInLink(WorkerId id, uint32_t v, size_t* hint) const {
  const std::vector<InLink>& in = workers_[id].in;
  if (in.empty()) return nullptr;
  size_t i = std::min(*hint, in.size() - 1);
  // Scans move monotonically, so the cursor is usually at or next to the answer; fall
  // back to binary search for long jumps.
  if (in[i].vertex < v) {
    size_t steps = 0;
    while (i + 1 < in.size() && in[i].vertex < v && ++steps < 8) ++i;
    if (in[i].vertex < v && i + 1 < in.size())
      i = std::lower_bound(in.begin() + i, in.end(), v,
                           [](const InLink& l, uint32_t x) { return l.vertex < x; }) -
          in.begin();
  } else if (in[i].vertex > v) {
    size_t steps = 0;
    while (i > 0 && in[i].vertex > v && ++steps < 8) --i;
    if (in[i].vertex > v && i > 0)
      i = std::lower_bound(in.begin(), in.begin() + i, v,
                           [](const InLink& l, uint32_t x) { return l.vertex < x; }) -
          in.begin();
  }
  if (i >= in.size()) i = in.size() - 1;
  *hint = i;
  return in[i].vertex == v ? &in[i] : nullptr;
}

uint64_t ExecutionGraph::num_vertices() const {
  uint64_t n = 0;
  for (const Worker& w : workers_) n += w.ts.size();
  return n;
}

uint64_t ExecutionGraph::num_links() const {
  uint64_t n = 0;
  for (const Worker& w : workers_) n += w.in.size();
  return n;
}

uint64_t ExecutionGraph::memory_bytes() const {
  if (built_memory_bytes_) return built_memory_bytes_;
  uint64_t n = sizeof(*this) + workers_.capacity() * sizeof(Worker);
  for (const Worker& w : workers_)
    n += w.ts.capacity() * 8 + w.edge.capacity() * 4 + w.in.capacity() * sizeof(InLink) +
         w.name.capacity();
  return n + cpus_.memory_bytes();
}

}  // namespace causeway::graph
