#include "report/cpu_wait_format.h"

#include <fmt/format.h>

#include "report/critpath_format.h"

namespace causeway::report {

std::string CpuHoldersText(const std::vector<graph::CpuHolder>& holders, const WorkerLabel& label) {
  std::string out;
  for (const graph::CpuHolder& h : holders) {
    if (!out.empty()) out += ", ";
    const std::string who = h.task == graph::kIdleTask      ? std::string("idle")
                            : h.task == graph::kUnknownTask ? std::string("unknown")
                                                            : label(h.task);
    out += fmt::format("{} {}", who, FormatDuration(h.ns));
  }
  return out;
}

std::string CpuWaitText(const graph::CpuWait& wait, const WorkerLabel& label) {
  if (wait.cpu < 0 || wait.holders.empty()) return {};
  return fmt::format("CPU {} held by {}", wait.cpu, CpuHoldersText(wait.holders, label));
}

std::string CpuWaitSummaryText(const graph::ExecutionGraph& g, const graph::CpuWaitSummary& s,
                               const WorkerLabel& label) {
  const std::string held = CpuHoldersText(s.held_by, label);
  if (s.throttled != 0 && s.throttled_ns * 2 >= s.ns) {
    std::string out = fmt::format("{} {}", g.str(s.throttled), FormatDuration(s.throttled_ns));
    if (!held.empty()) out += "; CPU held by " + held;
    return out;
  }
  std::string out = held.empty() ? "waiting for a CPU" : "waiting for a CPU held by " + held;
  if (s.throttled != 0)
    out += fmt::format("; {} {}", g.str(s.throttled), FormatDuration(s.throttled_ns));
  return out;
}

nlohmann::json CpuHoldersJson(const graph::ExecutionGraph& g,
                              const std::vector<graph::CpuHolder>& holders) {
  nlohmann::json j = nlohmann::json::array();
  for (const graph::CpuHolder& h : holders) {
    nlohmann::json x;
    if (h.task == graph::kIdleTask)
      x["idle"] = true;
    else if (h.task == graph::kUnknownTask)
      x["unknown"] = true;
    else
      x = ThreadJson(g, h.task);
    x["ns"] = h.ns;
    j.push_back(std::move(x));
  }
  return j;
}

nlohmann::json CpuWaitSummaryJson(const graph::ExecutionGraph& g, const graph::CpuWaitSummary& s) {
  nlohmann::json j = {
      {"ns", s.ns}, {"throttled_ns", s.throttled_ns}, {"held_by", CpuHoldersJson(g, s.held_by)}};
  if (s.throttled != 0) j["throttled_by"] = g.str(s.throttled);
  return j;
}

}  // namespace causeway::report
