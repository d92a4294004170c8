#include "support/kernel_scenario.h"

#include <algorithm>
#include <deque>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "graph/path_state_times.h"

namespace causeway::testing {

using kernel::KernelEvent;
using kernel::Kind;

namespace {

// "12:name" -> 12 and "name".
int TidAndName(const std::string& token, std::string* name) {
  const size_t colon = token.find(':');
  if (colon != std::string::npos) *name = token.substr(colon + 1);
  return std::stoi(token.substr(0, colon));
}

}  // namespace

uint32_t KernelScenario::HostId(const std::string& name) {
  for (size_t i = 0; i < host_names_.size(); ++i)
    if (host_names_[i] == name) return static_cast<uint32_t>(i);
  host_names_.push_back(name);
  return model_->AddHost(name);
}

KernelScenario::KernelScenario(const std::string& script, uint32_t max_qualifiers)
    : graph_(max_qualifiers) {
  model_ = std::make_unique<kernel::KernelModel>(&graph_);
  struct Pending {
    KernelEvent e;
    size_t line;
  };
  std::vector<Pending> events;
  std::deque<std::string> names;  // stable storage for string_views
  uint32_t host = HostId("A");
  int64_t end = 0;
  std::istringstream in(script);
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w[0] == "host" && w.size() == 2) {
      host = HostId(w[1]);
      continue;
    }
    if (w[0] == "end" && w.size() == 2) {
      end = std::stoll(w[1]);
      continue;
    }
    if (w.size() < 3 || w[1].rfind("cpu", 0) != 0) {
      ADD_FAILURE() << "scenario line " << line_no << ": cannot parse '" << line << "'";
      continue;
    }
    KernelEvent e;
    e.host = host;
    e.ts = std::stoll(w[0]);
    e.cpu = std::stoi(w[1].substr(3));
    size_t i = 2;
    if (w[i] == "as" && w.size() > i + 1) {
      e.current_tid = std::stoi(w[i + 1]);
      i += 2;
    }
    if (w[i] == "flags" && w.size() > i + 1) {
      e.has_context_flags = true;
      e.context_flags = w[i + 1] == "HARDIRQ" ? kernel::kFlagHardirq : kernel::kFlagSoftirq;
      i += 2;
    }
    const std::string verb = w[i];
    auto arg = [&](size_t k) -> const std::string& {
      static const std::string empty;
      return i + k < w.size() ? w[i + k] : empty;
    };
    auto keep = [&](const std::string& s) -> std::string_view { return names.emplace_back(s); };
    bool ok = true;
    try {
      if (verb == "switch") {
        e.kind = Kind::kSwitch;
        std::string pn, nn;
        e.tid = TidAndName(arg(1), &pn);
        size_t k = 2;
        e.set_prev_state(1);
        if (arg(k) != "->") {
          const std::string st = arg(k);
          e.set_prev_state(st == "R" ? 0 : st == "X" ? 64 : st == "D" ? 2 : 1);
          ++k;
        }
        ok = arg(k) == "->";
        e.set_next_tid(TidAndName(arg(k + 1), &nn));
        e.set_name(keep(pn));
        e.set_next_comm(keep(nn));
      } else if (verb == "waking" || verb == "wakeup_new") {
        e.kind = verb == "waking" ? Kind::kWakeup : Kind::kWakeupNew;
        e.tid = std::stoi(arg(1));
      } else if (verb == "fork") {
        e.kind = Kind::kFork;
        std::string cn;
        e.tid = std::stoi(arg(1));
        ok = arg(2) == "->";
        e.set_child_tid(TidAndName(arg(3), &cn));
        e.set_name(keep(cn));
        if (arg(4) == "pid") e.pid = std::stoi(arg(5));
      } else if (verb == "exec") {
        e.kind = Kind::kExec;
        e.tid = std::stoi(arg(1));
        e.set_name(keep(arg(2)));
      } else if (verb == "exit") {
        e.kind = Kind::kExit;
        e.tid = std::stoi(arg(1));
      } else if (verb == "statedump") {
        e.kind = Kind::kStatedump;
        e.tid = std::stoi(arg(1));
        e.set_name(keep(arg(2)));
        e.set_statedump_status(std::stoi(arg(3)));
        if (arg(4) == "pid") e.pid = std::stoi(arg(5));
      } else if (verb == "irq_entry") {
        e.kind = Kind::kIrqEntry;
        e.set_irq(std::stoi(arg(1)));
        e.set_name(keep(arg(2)));
      } else if (verb == "irq_exit") {
        e.kind = Kind::kIrqExit;
      } else if (verb == "softirq_entry" || verb == "softirq_exit") {
        e.kind = verb == "softirq_entry" ? Kind::kSoftirqEntry : Kind::kSoftirqExit;
        e.set_softirq_vector(std::stoi(arg(1)));
      } else if (verb == "hrtimer_entry") {
        e.kind = Kind::kTimerEntry;
      } else if (verb == "hrtimer_exit") {
        e.kind = Kind::kTimerExit;
      } else if (verb == "ipi_entry") {
        e.kind = Kind::kIpiEntry;
        e.set_name(keep(arg(1)));
      } else if (verb == "ipi_exit") {
        e.kind = Kind::kIpiExit;
      } else if (verb == "send" || verb == "recv") {
        e.kind = verb == "send" ? Kind::kPacketSend : Kind::kPacketRecv;
        e.seq = std::stoull(arg(1));
        e.ack_seq = std::stoull(arg(2));
        e.tcp_flags = static_cast<uint32_t>(std::stoul(arg(3), nullptr, 0));
      } else if (verb == "block_complete") {
        e.kind = Kind::kBlockComplete;
        e.set_dev(std::stoll(arg(1)));
      } else if (verb == "lost") {
        e.kind = Kind::kLost;
        e.set_lost_count(std::stoll(arg(1)));
        e.end_ts = std::stoll(arg(2));
      } else {
        ok = false;
      }
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok) {
      ADD_FAILURE() << "scenario line " << line_no << ": cannot parse '" << line << "'";
      continue;
    }
    events.push_back(Pending{e, line_no});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Pending& a, const Pending& b) { return a.e.ts < b.e.ts; });
  for (const Pending& p : events) {
    model_->Process(p.e);
    end = std::max(end, p.e.ts);
  }
  model_->Finish(end);
}

graph::WorkerId KernelScenario::Worker(int tid, const std::string& host) const {
  graph::WorkerId found = graph::kNoWorker;
  for (graph::WorkerId w = 0; w < graph_.num_workers(); ++w) {
    const graph::Worker& k = graph_.worker(w);
    if (k.tid == tid && graph_.hosts()[k.host] == host) found = w;
  }
  return found;
}

std::string KernelScenario::Who(graph::WorkerId w) const {
  const graph::Worker& k = graph_.worker(w);
  return graph_.hosts().size() > 1 ? fmt::format("{}/{}", graph_.hosts()[k.host], k.tid)
                                   : std::to_string(k.tid);
}

std::string KernelScenario::Timeline(int tid, const std::string& host) const {
  const graph::WorkerId w = Worker(tid, host);
  if (w == graph::kNoWorker) return "<no thread>";
  const graph::Worker& k = graph_.worker(w);
  std::string out;
  size_t link = 0;
  for (size_t v = 0; v < k.size(); ++v) {
    if (!out.empty()) out += " | ";
    out += fmt::format("{} {}", k.ts[v], graph::StateName(k.state(v)));
    if (k.qualifier(v)) out += fmt::format("({})", graph_.str(k.qualifier(v)));
    while (link < k.in.size() && k.in[link].vertex < v) ++link;
    if (link < k.in.size() && k.in[link].vertex == v) {
      const graph::InLink& l = k.in[link];
      const char* arrow = l.kind() == graph::LinkKind::kWakeup    ? "<-"
                          : l.kind() == graph::LinkKind::kNetwork ? "<="
                                                                  : "<~";
      out += arrow + Who(l.from_worker);
    }
  }
  return out;
}

std::string KernelScenario::Path(int tid, int64_t begin, int64_t end,
                                 const std::string& host) const {
  const graph::WorkerId w = Worker(tid, host);
  if (w == graph::kNoWorker) return "<no thread>";
  return PathString(graph_, w, begin, end);
}

std::string PathString(const graph::ExecutionGraph& g, graph::WorkerId w, int64_t begin,
                       int64_t end, int64_t origin) {
  graph::CriticalPathFinder finder(g);
  const graph::CriticalPath p = finder.Compute(w, begin, end);
  ExpectPathStateTimesEqual(g, w, begin, end, p);
  std::string out;
  for (const auto& s : p.segments) {
    if (!out.empty()) out += " | ";
    const graph::Worker& k = g.worker(s.worker);
    const std::string who = g.hosts().size() > 1 ? fmt::format("{}/{}", g.hosts()[k.host], k.tid)
                                                 : std::to_string(k.tid);
    out += fmt::format("{}@{}-{} {}", who, s.start - origin, s.end - origin,
                       graph::StateName(s.state));
    if (s.qualifier) out += fmt::format("({})", g.str(s.qualifier));
  }
  return out;
}

void ExpectPathStateTimesEqual(const graph::ExecutionGraph& g, graph::WorkerId w, int64_t begin,
                               int64_t end, const graph::CriticalPath& expected) {
  const graph::PathSummary summary = graph::Summarize(expected);
  for (const bool others_first : {false, true}) {
    graph::PathStateTimes times(g);
    if (others_first)
      for (graph::WorkerId o = 0; o < g.num_workers(); ++o) times.Of(o, INT64_MIN, INT64_MAX);
    const graph::StateTimesArray got = times.Of(w, begin, end);
    for (int s = 0; s < graph::kNumStates; ++s)
      if (got[s] != summary.by_state[s])
        ADD_FAILURE() << "PathStateTimes of worker " << w << " over [" << begin << ", " << end
                      << "] (others first: " << others_first
                      << "): " << graph::StateName(static_cast<graph::State>(s)) << " " << got[s]
                      << " vs " << summary.by_state[s] << " on the path";
  }
}

std::string KernelScenario::Links(int tid, int64_t begin, int64_t end,
                                  const std::string& host) const {
  const graph::WorkerId w = Worker(tid, host);
  if (w == graph::kNoWorker) return "<no thread>";
  graph::CriticalPathFinder finder(graph_);
  const graph::CriticalPath p = finder.Compute(w, begin, end);
  ExpectPathStateTimesEqual(graph_, w, begin, end, p);
  std::string out;
  for (const auto& l : p.links) {
    if (!out.empty()) out += " | ";
    out +=
        fmt::format("{}->{}@{} {}", Who(l.from), Who(l.to), l.to_ts, graph::LinkKindName(l.kind));
  }
  return out;
}

}  // namespace causeway::testing
