#include "report/critpath_format.h"

#include <fmt/format.h>

#include "graph/cpu_holders.h"
#include "report/cpu_wait_format.h"

namespace causeway::report {

using graph::ExecutionGraph;
using graph::State;
using graph::WorkerId;

std::string FormatTimestamp(int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t a = ns < 0 ? -static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:09}", sign, a / 1'000'000'000, a % 1'000'000'000);
}

std::string FormatDuration(int64_t ns) {
  const double a = static_cast<double>(ns < 0 ? -ns : ns);
  if (a < 1e3) return fmt::format("{} ns", ns);
  if (a < 1e6) return fmt::format("{:.3f} us", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string ThreadLabel(const ExecutionGraph& g, WorkerId w) {
  const graph::Worker& k = g.worker(w);
  const std::string who = g.hosts().size() > 1 ? fmt::format("{}/{}", g.hosts()[k.host], k.tid)
                                               : fmt::format("tid {}", k.tid);
  return k.name.empty() ? who : fmt::format("{} ({})", who, k.name);
}

nlohmann::json ThreadJson(const ExecutionGraph& g, WorkerId w) {
  const graph::Worker& k = g.worker(w);
  nlohmann::json j = {{"host", g.hosts()[k.host]}, {"tid", k.tid}, {"name", k.name}};
  if (k.pid >= 0) j["pid"] = k.pid;
  return j;
}

nlohmann::json StatesJson(const int64_t* by_state) {
  nlohmann::json j = nlohmann::json::object();
  for (int s = 0; s < graph::kNumStates; ++s)
    if (by_state[s]) j[std::string(graph::StateName(static_cast<State>(s)))] = by_state[s];
  return j;
}

namespace {

std::string Percent(int64_t part, int64_t total) {
  return total > 0 ? fmt::format("{:5.1f}%", 100.0 * part / total) : "    -";
}

// The PREEMPTED segments' waits summed over the path.
graph::CpuWaitSummary PathCpuWait(const ExecutionGraph& g, const graph::CriticalPath& path) {
  graph::CpuWaitSum sum(g);
  for (const auto& s : path.segments)
    if (s.state == State::kPreempted) sum.Add(s.worker, s.start, s.end);
  return sum.Take(3);
}
}  // namespace

nlohmann::json CriticalPathJson(const ExecutionGraph& g, const graph::CriticalPath& path,
                                const graph::PathSummary& summary) {
  nlohmann::json j;
  j["thread"] = ThreadJson(g, path.worker);
  j["begin_ns"] = path.begin;
  j["end_ns"] = path.end;
  j["duration_ns"] = path.end - path.begin;
  nlohmann::json segs = nlohmann::json::array();
  for (const auto& s : path.segments) {
    nlohmann::json x = ThreadJson(g, s.worker);
    x["start_ns"] = s.start;
    x["end_ns"] = s.end;
    x["duration_ns"] = s.end - s.start;
    x["state"] = graph::StateName(s.state);
    x["qualifier"] = g.str(s.qualifier);
    if (s.state == State::kPreempted) {
      const graph::CpuWait wait = graph::WhoHeldTheCpu(g, s.worker, s.start, s.end);
      if (wait.cpu >= 0) x["cpu"] = wait.cpu;
      x["held_by"] = CpuHoldersJson(g, wait.holders);
    }
    segs.push_back(std::move(x));
  }
  j["segments"] = std::move(segs);
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : path.links)
    links.push_back({{"kind", graph::LinkKindName(l.kind)},
                     {"from", ThreadJson(g, l.from)},
                     {"to", ThreadJson(g, l.to)},
                     {"from_ns", l.from_ts},
                     {"to_ns", l.to_ts}});
  j["links"] = std::move(links);
  nlohmann::json by_thread = nlohmann::json::array();
  for (const auto& t : summary.by_thread) {
    nlohmann::json x = ThreadJson(g, t.worker);
    x["total_ns"] = t.total;
    x["by_state"] = StatesJson(t.by_state);
    by_thread.push_back(std::move(x));
  }
  j["summary"] = {{"total_ns", summary.total},
                  {"by_state", StatesJson(summary.by_state)},
                  {"by_thread", std::move(by_thread)}};
  if (summary.by_state[static_cast<int>(State::kPreempted)])
    j["summary"]["cpu_wait"] = CpuWaitSummaryJson(g, PathCpuWait(g, path));
  return j;
}

std::string CriticalPathText(const ExecutionGraph& g, const graph::CriticalPath& path,
                             const graph::PathSummary& summary) {
  std::string out;
  fmt::format_to(std::back_inserter(out), "Critical path of {} on host {}\n",
                 ThreadLabel(g, path.worker), g.hosts()[g.worker(path.worker).host]);
  fmt::format_to(std::back_inserter(out), "From {} to {} ({}): {} segments, {} links\n\n",
                 FormatTimestamp(path.begin), FormatTimestamp(path.end),
                 FormatDuration(path.end - path.begin), path.segments.size(), path.links.size());
  fmt::format_to(std::back_inserter(out), "{:<21} {:>12}  {:<12} {:<32} {}\n", "START", "DURATION",
                 "STATE", "THREAD", "QUALIFIER");
  const WorkerLabel label = [&g](graph::WorkerId w) { return ThreadLabel(g, w); };
  for (const auto& s : path.segments) {
    std::string qualifier(g.str(s.qualifier));
    if (s.state == State::kPreempted) {
      // Who had the CPU meanwhile: computed here, for the segments shown only.
      const std::string held =
          CpuWaitText(graph::WhoHeldTheCpu(g, s.worker, s.start, s.end), label);
      if (!held.empty()) qualifier += (qualifier.empty() ? "" : "; ") + held;
    }
    fmt::format_to(std::back_inserter(out), "{:<21} {:>12}  {:<12} {:<32} {}\n",
                   FormatTimestamp(s.start), FormatDuration(s.end - s.start),
                   graph::StateName(s.state), ThreadLabel(g, s.worker), qualifier);
  }
  if (!path.links.empty()) {
    out += "\nLinks (the signal that ended a wait)\n";
    for (const auto& l : path.links)
      fmt::format_to(std::back_inserter(out), "  {} {:<8} {} -> {}\n", FormatTimestamp(l.to_ts),
                     graph::LinkKindName(l.kind), ThreadLabel(g, l.from), ThreadLabel(g, l.to));
  }
  out += "\nSummary by state\n";
  for (int s = 0; s < graph::kNumStates; ++s)
    if (summary.by_state[s])
      fmt::format_to(std::back_inserter(out), "  {:<12} {:>12}  {}\n",
                     graph::StateName(static_cast<State>(s)), FormatDuration(summary.by_state[s]),
                     Percent(summary.by_state[s], summary.total));
  if (summary.by_state[static_cast<int>(State::kPreempted)])
    fmt::format_to(std::back_inserter(out), "\nPREEMPTED: {}\n",
                   CpuWaitSummaryText(g, PathCpuWait(g, path), label));
  out += "\nSummary by thread\n";
  for (const auto& t : summary.by_thread)
    fmt::format_to(std::back_inserter(out), "  {:<32} {:>12}  {}\n", ThreadLabel(g, t.worker),
                   FormatDuration(t.total), Percent(t.total, summary.total));
  return out;
}

nlohmann::json ThreadTimesJson(const ExecutionGraph& g,
                               const std::vector<graph::ThreadTimes>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json x = ThreadJson(g, r.worker);
    x["start_ns"] = r.start;
    x["end_ns"] = r.end;
    x["by_state"] = StatesJson(r.by_state);
    j.push_back(std::move(x));
  }
  return j;
}

std::string ThreadTimesText(const ExecutionGraph& g, const std::vector<graph::ThreadTimes>& rows) {
  // The columns a user reads first; the rarer states are folded into OTHER.
  static constexpr State kColumns[] = {State::kRunning,     State::kPreempted, State::kBlocked,
                                       State::kTimer,       State::kNetwork,   State::kBlockQueue,
                                       State::kBlockDevice, State::kUnknown};
  std::string out;
  fmt::format_to(std::back_inserter(out), "{:<32}", "THREAD");
  for (State s : kColumns) fmt::format_to(std::back_inserter(out), " {:>12}", graph::StateName(s));
  fmt::format_to(std::back_inserter(out), " {:>12}\n", "OTHER");
  for (const auto& r : rows) {
    fmt::format_to(std::back_inserter(out), "{:<32}", ThreadLabel(g, r.worker));
    int64_t other = 0;
    for (int s = 0; s < graph::kNumStates; ++s) other += r.by_state[s];
    for (State s : kColumns) {
      const int64_t v = r.by_state[static_cast<int>(s)];
      other -= v;
      fmt::format_to(std::back_inserter(out), " {:>12}", v ? FormatDuration(v) : "-");
    }
    fmt::format_to(std::back_inserter(out), " {:>12}\n", other ? FormatDuration(other) : "-");
  }
  return out;
}

}  // namespace causeway::report
