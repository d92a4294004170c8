#include "diagnose/levels.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace causeway::diagnose {
namespace {

using graph::State;

std::string HostPath(const graph::ExecutionGraph& g, uint32_t host) {
  return fmt::format("hosts/{}", g.hosts()[host]);
}

// Part of a path piece with its edge's qualifier.
struct Part {
  int64_t start = 0, end = 0;
  graph::StringId qualifier = 0;
};

// The piece cut where its thread's edges change qualifier. The piece's state is the path's;
// a stretch where the thread's edge has another state (or no edge) keeps no qualifier.
std::vector<Part> PartsOf(const graph::ExecutionGraph& g, const requests::Piece& p) {
  std::vector<Part> parts;
  if (p.worker == graph::kNoWorker) return {{p.start, p.end, 0}};
  const graph::Worker& k = g.worker(p.worker);
  auto it = std::upper_bound(k.ts.begin(), k.ts.end(), p.start);
  size_t v = it == k.ts.begin() ? 0 : static_cast<size_t>(it - k.ts.begin()) - 1;
  int64_t at = p.start;
  auto add = [&](int64_t start, int64_t end, graph::StringId q) {
    if (end <= start) return;
    if (!parts.empty() && parts.back().qualifier == q && parts.back().end == start)
      parts.back().end = end;
    else
      parts.push_back({start, end, q});
  };
  for (; v < k.size() && k.ts[v] < p.end; ++v) {
    const int64_t s = std::max(at, k.ts[v]), e = std::min(p.end, g.EdgeEnd(p.worker, v));
    if (e <= s) continue;
    add(at, s, 0);
    add(s, e, k.state(v) == p.state ? k.qualifier(v) : 0);
    at = e;
  }
  add(at, p.end, 0);
  return parts;
}

// Level 3's name of a state: BLOCKED with its qualifier ("BLOCKED(futex)"), the others bare
// (their qualifiers name the irq, the disk or the CPU's cgroup: levels 4 and PREEMPTED's
// holders say those).
std::string StateLabel(const graph::ExecutionGraph& g, State s, graph::StringId q) {
  if (s == State::kBlocked && q != 0) return fmt::format("BLOCKED({})", g.str(q));
  return std::string(graph::StateName(s));
}

std::vector<Amount> Sorted(const std::map<std::string, int64_t>& m) {
  std::vector<Amount> out;
  for (const auto& [name, ns] : m)
    if (ns > 0) out.push_back({name, ns});
  std::stable_sort(out.begin(), out.end(),
                   [](const Amount& x, const Amount& y) { return x.ns > y.ns; });
  return out;
}

}  // namespace

StoreLevels::StoreLevels(const graph::ExecutionGraph& g, const state::StateStore* store)
    : g_(g), store_(store) {
  if (!store_) return;
  for (uint32_t h = 0; h < g.hosts().size(); ++h) {
    const std::string host = HostPath(g, h);
    if (!syscalls_recorded_)
      for (std::string_view tid : store_->Children(host + "/threads"))
        if (store_->Find(fmt::format("{}/threads/{}/syscall", host, tid))) {
          syscalls_recorded_ = true;
          break;
        }
    if (!page_cache_recorded_)
      for (std::string_view pid : store_->Children(host + "/processes"))
        if (!store_->Children(fmt::format("{}/processes/{}/files", host, pid)).empty()) {
          page_cache_recorded_ = true;
          break;
        }
  }
}

bool StoreLevels::MakesCalls(graph::WorkerId w) const {
  if (!syscalls_recorded_ || w == graph::kNoWorker) return false;
  const graph::Worker& k = g_.worker(w);
  return store_->Find(fmt::format("{}/threads/{}/syscall", HostPath(g_, k.host), k.tid))
      .has_value();
}

std::vector<StoreLevels::Call> StoreLevels::Syscalls(graph::WorkerId w, int64_t start,
                                                     int64_t end) const {
  std::vector<Call> calls;
  if (!syscalls_recorded_ || w == graph::kNoWorker || end <= start) return calls;
  const graph::Worker& k = g_.worker(w);
  const auto attribute =
      store_->Find(fmt::format("{}/threads/{}/syscall", HostPath(g_, k.host), k.tid));
  if (!attribute) return calls;
  const state::AttributeId ids[1] = {*attribute};
  store_->Range(ids, start, end, /*step=*/0, [&](const state::StateInterval& i) {
    const int64_t s = std::max(start, i.start), e = std::min(end, i.end);
    if (i.value.is_null() || e <= s) return;
    calls.push_back({s, e,
                     i.value.kind == state::StateValue::Kind::kString
                         ? std::string(store_->str(static_cast<state::StringRef>(i.value.i)))
                         : store_->Format(i.value)});
  });
  return calls;
}

int64_t StoreLevels::Delta(std::string_view path, int64_t start, int64_t end) const {
  const auto attribute = store_->Find(path);
  if (!attribute) return 0;
  // Cumulative counts: the value at the range's start (what was read before it) and at its
  // last moment.
  auto at = [&](int64_t t) {
    const state::StateInterval i = store_->At(*attribute, t);
    return i.value.kind == state::StateValue::Kind::kInt ? i.value.i : 0;
  };
  return std::max<int64_t>(0, at(end - 1) - at(start));
}

PageCacheReads StoreLevels::Reads(uint32_t host, const std::vector<int32_t>& pids, int64_t start,
                                  int64_t end) const {
  PageCacheReads r;
  r.recorded = page_cache_recorded_;
  if (!page_cache_recorded_ || end <= start) return r;
  for (int32_t pid : pids) {
    const std::string files = fmt::format("{}/processes/{}/files", HostPath(g_, host), pid);
    for (std::string_view inode : store_->Children(files)) {
      r.pages_read += Delta(fmt::format("{}/{}/pages_read", files, inode), start, end);
      r.cache_misses += Delta(fmt::format("{}/{}/cache_misses", files, inode), start, end);
    }
  }
  return r;
}

RequestLevels ComputeLevels(const graph::ExecutionGraph& g, std::span<const requests::Piece> path,
                            int64_t latency, const graph::CpuWaitSummary& cpu_wait,
                            const StoreLevels& store) {
  RequestLevels out;
  out.latency = latency;
  out.cpu_wait = cpu_wait;
  out.syscalls_recorded = store.syscalls_recorded();
  std::map<std::string, int64_t> states, below, devices;
  std::map<std::string, std::map<std::string, int64_t>> syscalls;  // name -> state -> ns
  std::set<std::pair<uint32_t, int32_t>> processes;                // (host, pid) on the path
  // Whose system calls a piece's time is cut by: its thread's, or, on a thread that makes
  // none (a kernel thread: the kworker writing back the pages an fsync waits for, a
  // softirq), the next thread on the path that makes calls, the one it works for (the
  // fsync caller its I/O wakes), else the previous one. Level 2 is the user-kernel
  // boundary: the kworker's device time is time in the caller's fsync.
  std::vector<graph::WorkerId> callers(path.size(), graph::kNoWorker);
  if (out.syscalls_recorded) {
    graph::WorkerId next = graph::kNoWorker;
    for (size_t i = path.size(); i-- > 0;) {
      if (store.MakesCalls(path[i].worker)) next = path[i].worker;
      callers[i] = next;
    }
    graph::WorkerId previous = graph::kNoWorker;
    for (size_t i = 0; i < path.size(); ++i) {
      if (store.MakesCalls(path[i].worker)) previous = path[i].worker;
      if (callers[i] == graph::kNoWorker) callers[i] = previous;
    }
  }
  for (size_t i = 0; i < path.size(); ++i) {
    const requests::Piece& p = path[i];
    if (p.end <= p.start) continue;
    if (p.worker != graph::kNoWorker && g.worker(p.worker).pid >= 0)
      processes.insert({g.worker(p.worker).host, g.worker(p.worker).pid});
    const std::vector<Part> parts = PartsOf(g, p);
    const std::vector<StoreLevels::Call> calls = store.Syscalls(callers[i], p.start, p.end);
    size_t c = 0;
    for (const Part& part : parts) {
      const std::string label = StateLabel(g, p.state, part.qualifier);
      const int64_t ns = part.end - part.start;
      states[label] += ns;
      if (p.state == State::kBlockQueue || p.state == State::kBlockDevice) {
        below[std::string(p.state == State::kBlockQueue ? kBlockQueue : kBlockDevice)] += ns;
        devices[part.qualifier ? std::string(g.str(part.qualifier)) : "unknown device"] += ns;
      } else if (p.state == State::kNetwork) {
        below[std::string(kNetwork)] += ns;
      }
      if (!out.syscalls_recorded) continue;
      // The calls over this part; what none of them covers is outside any call.
      int64_t covered = 0;
      while (c < calls.size() && calls[c].end <= part.start) ++c;
      for (size_t k = c; k < calls.size() && calls[k].start < part.end; ++k) {
        const int64_t s = std::max(part.start, calls[k].start);
        const int64_t e = std::min(part.end, calls[k].end);
        if (e <= s) continue;
        syscalls[calls[k].name][label] += e - s;
        covered += e - s;
      }
      if (ns > covered) syscalls[std::string(kNotInSyscall)][label] += ns - covered;
    }
  }
  for (const auto& [name, by_state] : syscalls) {
    SyscallTime t;
    t.name = name;
    for (const auto& [label, ns] : by_state) t.ns += ns;
    t.by_state = Sorted(by_state);
    out.syscalls.push_back(std::move(t));
  }
  std::stable_sort(out.syscalls.begin(), out.syscalls.end(),
                   [](const SyscallTime& x, const SyscallTime& y) { return x.ns > y.ns; });
  out.states = Sorted(states);
  out.below = Sorted(below);
  out.devices = Sorted(devices);
  if (!path.empty()) {
    out.page_cache.recorded = store.page_cache_recorded();
    std::map<uint32_t, std::vector<int32_t>> pids;
    for (const auto& [host, pid] : processes) pids[host].push_back(pid);
    for (const auto& [host, list] : pids) {
      const PageCacheReads r = store.Reads(host, list, path.front().start, path.back().end);
      out.page_cache.pages_read += r.pages_read;
      out.page_cache.cache_misses += r.cache_misses;
    }
  }
  return out;
}

std::map<std::string, int64_t> Categories(const RequestLevels& levels) {
  std::map<std::string, int64_t> out;
  for (const SyscallTime& s : levels.syscalls) {
    out["syscall/" + s.name] += s.ns;
    for (const Amount& a : s.by_state) out["syscall_state/" + s.name + "/" + a.name] += a.ns;
  }
  for (const Amount& a : levels.states) out["state/" + a.name] += a.ns;
  for (const Amount& a : levels.below) out["below/" + a.name] += a.ns;
  if (levels.page_cache.recorded) {
    out["page_cache/pages_read"] += levels.page_cache.pages_read;
    out["page_cache/cache_misses"] += levels.page_cache.cache_misses;
  }
  return out;
}

}  // namespace causeway::diagnose
