#include "report/diagnosis_format.h"

#include <fmt/format.h>

#include "report/cpu_wait_format.h"
#include "report/critpath_format.h"
#include "report/terminal_text.h"

namespace causeway::report {
namespace {

using diagnose::Amount;
using diagnose::Finding;
using diagnose::OperationBaseline;
using diagnose::RecordingView;

// Rows of one level shown at most; the rest are counted.
constexpr size_t kMaxRows = 8;

constexpr std::string_view kRule =
    "abnormal: above the baseline's p95 and at least 1.5 x its median";

int64_t Mean(const OperationBaseline* b, const std::string& category) {
  return b ? b->Mean(category) : 0;
}

std::string Operation(const diagnose::OperationKey& k) {
  return TerminalText(k.service + " " + k.operation);
}

std::string Ratio(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%",
                                 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : "-";
}

// "12 of 40 pages read missed (30.0%)"; "no file reads"; or, when more pages came in
// than were read while the request ran (readahead, or reads begun before it), both counts.
std::string PageCacheCounts(int64_t misses, int64_t pages_read) {
  if (misses == 0 && pages_read == 0) return "no file reads";
  if (misses > pages_read)
    return fmt::format("{} pages read, {} brought in from the disk", pages_read, misses);
  return fmt::format("{} of {} pages read missed ({})", misses, pages_read,
                     Ratio(misses, pages_read));
}

// "├─ " or "└─ " after `indent`, then the row.
std::string Branch(const std::string& indent, bool last, const std::string& row) {
  return indent + (last ? "└─ " : "├─ ") + row + "\n";
}

std::string AmountRow(const std::string& name, int64_t ns, int64_t normal, bool with_normal) {
  std::string row = fmt::format("{:<24} {:>12}", name, FormatDuration(ns));
  if (with_normal) row += fmt::format("   normal {:>12}", FormatDuration(normal));
  return row;
}

std::string CpuHolders(const RecordingView& r, const graph::CpuWaitSummary& w) {
  return CpuWaitSummaryText(*r.graph, w, [&](graph::WorkerId x) {
    return TerminalText(r.requests->ThreadLabel(*r.graph, x));
  });
}

nlohmann::json AmountsJson(const std::vector<Amount>& amounts, const OperationBaseline* b,
                           const std::string& prefix) {
  nlohmann::json j = nlohmann::json::array();
  for (const Amount& a : amounts)
    j.push_back({{"name", a.name}, {"ns", a.ns}, {"normal_ns", Mean(b, prefix + a.name)}});
  return j;
}

nlohmann::json StatsJson(const diagnose::LatencyStats& s) {
  return {{"count", s.count}, {"median_ns", s.median}, {"p95_ns", s.p95}, {"max_ns", s.max}};
}

std::string_view VerdictName(diagnose::Verdict v) {
  switch (v) {
    case diagnose::Verdict::kNormal:
      return "normal";
    case diagnose::Verdict::kAbnormal:
      return "abnormal";
    case diagnose::Verdict::kNoBaseline:
      return "no_baseline";
  }
  return "no_baseline";
}

}  // namespace

std::string WalkText(const Finding& f, const OperationBaseline* baseline) {
  const std::vector<diagnose::Step> steps = diagnose::Walk(f, baseline);
  if (steps.empty()) return {};
  const std::string normal = fmt::format("normal {} requests", Operation(f.operation));
  std::string out;
  for (const diagnose::Step& s : steps) {
    if (!out.empty()) out += "; of it ";
    switch (s.level) {
      case 2:
        out +=
            s.name == diagnose::kNotInSyscall
                ? fmt::format("{} on the critical path outside system calls", FormatDuration(s.ns))
                : fmt::format("{} in {} on the critical path", FormatDuration(s.ns),
                              TerminalText(s.name));
        break;
      case 3:
        out += fmt::format("{} {}{}", FormatDuration(s.ns), TerminalText(s.name),
                           &s == &steps.front() ? " on the critical path" : "");
        break;
      default:
        out += fmt::format("{} in the {}", FormatDuration(s.ns), s.name);
        break;
    }
    // The comparison in full once, at the first step; shorter below it.
    if (baseline)
      out += &s == &steps.front()
                 ? fmt::format("; {} spend {}", normal, FormatDuration(s.normal_ns))
                 : fmt::format(" (normal {})", FormatDuration(s.normal_ns));
  }
  // Block time: the other half of the split, queued against on the device.
  if (steps.back().level == 4 && steps.back().name != diagnose::kNetwork) {
    const std::string_view other = steps.back().name == diagnose::kBlockDevice
                                       ? diagnose::kBlockQueue
                                       : diagnose::kBlockDevice;
    int64_t ns = 0;
    for (const Amount& a : f.levels.below)
      if (a.name == other) ns = a.ns;
    out += fmt::format(", against {} in the {}", FormatDuration(ns), other);
  }
  return out;
}

std::string FindingText(const Finding& f, const OperationBaseline* b, const RecordingView& r) {
  const requests::Request& req = r.requests->requests[f.request];
  const diagnose::RequestLevels& l = f.levels;
  const bool with_normal = b != nullptr;
  std::string out = fmt::format("Request {} ({}): {}", spans::TraceIdHex(req.trace).substr(0, 16),
                                Operation(f.operation), FormatDuration(l.latency));
  if (b && b->latency.median > 0)
    out += fmt::format(", {:.1f} x the normal median", f.judgement.ratio_to_median);
  out += "\n";
  // Level 1.
  std::string request_row;
  if (b) {
    request_row = fmt::format(
        "request: {}, {}; normal {} requests: median {}, p95 {} ({} requests{})",
        FormatDuration(l.latency), VerdictName(f.judgement.verdict), Operation(f.operation),
        FormatDuration(b->latency.median), FormatDuration(b->latency.p95), b->latency.count,
        f.judgement.few_baseline ? ", too few for a firm baseline" : "");
  } else {
    request_row = fmt::format("request: {}; no baseline request of {}", FormatDuration(l.latency),
                              Operation(f.operation));
  }
  out += Branch("", false, request_row);
  // Level 2.
  if (!l.syscalls_recorded) {
    out += Branch("", false, "system calls: not recorded (record with --syscalls)");
  } else {
    out += Branch("", false, "system calls on the critical path");
    const size_t n = std::min(l.syscalls.size(), kMaxRows);
    for (size_t i = 0; i < n; ++i) {
      const diagnose::SyscallTime& s = l.syscalls[i];
      const bool last = i + 1 == n && l.syscalls.size() <= kMaxRows;
      out +=
          Branch("│  ", last,
                 AmountRow(TerminalText(s.name), s.ns, Mean(b, "syscall/" + s.name), with_normal));
      std::string states;
      for (size_t k = 0; k < s.by_state.size() && k < 4; ++k) {
        const Amount& a = s.by_state[k];
        states += fmt::format("{}{} {}", states.empty() ? "" : ", ", TerminalText(a.name),
                              FormatDuration(a.ns));
        if (with_normal)
          states += fmt::format(" (normal {})",
                                FormatDuration(Mean(b, "syscall_state/" + s.name + "/" + a.name)));
      }
      out += fmt::format("│  {}     {}\n", last ? " " : "│", states);
    }
    if (l.syscalls.size() > kMaxRows)
      out += Branch("│  ", true, fmt::format("{} more", l.syscalls.size() - kMaxRows));
  }
  // Level 3.
  out += Branch("", false, "kernel states on the critical path");
  const size_t n = std::min(l.states.size(), kMaxRows);
  for (size_t i = 0; i < n; ++i) {
    const Amount& a = l.states[i];
    std::string row =
        AmountRow(TerminalText(a.name), a.ns, Mean(b, "state/" + a.name), with_normal);
    if (a.name == "PREEMPTED" && l.cpu_wait.ns > 0) row += "   " + CpuHolders(r, l.cpu_wait);
    out += Branch("│  ", i + 1 == n && l.states.size() <= kMaxRows, row);
  }
  if (l.states.size() > kMaxRows)
    out += Branch("│  ", true, fmt::format("{} more", l.states.size() - kMaxRows));
  // Level 4.
  out += Branch("", true, "below the kernel");
  auto below = [&](std::string_view name) {
    for (const Amount& a : l.below)
      if (a.name == name) return a.ns;
    return int64_t{0};
  };
  std::string devices;
  for (const Amount& a : l.devices)
    devices += fmt::format("{}{} {}", devices.empty() ? "" : ", ", TerminalText(a.name),
                           FormatDuration(a.ns));
  for (std::string_view name :
       {diagnose::kBlockQueue, diagnose::kBlockDevice, diagnose::kNetwork}) {
    std::string row = AmountRow(std::string(name), below(name),
                                Mean(b, "below/" + std::string(name)), with_normal);
    if (name == diagnose::kBlockDevice && !devices.empty()) row += "   " + devices;
    out += Branch("   ", false, row);
  }
  std::string cache;
  if (!l.page_cache.recorded) {
    cache = "page cache: not recorded";
  } else {
    cache = "page cache: " + PageCacheCounts(l.page_cache.cache_misses, l.page_cache.pages_read);
    if (b)
      cache += "; normal " + PageCacheCounts(Mean(b, "page_cache/cache_misses"),
                                             Mean(b, "page_cache/pages_read"));
  }
  out += Branch("   ", true, cache);
  if (const std::string walk = WalkText(f, b); !walk.empty()) out += "=> " + walk + "\n";
  return out;
}

nlohmann::json FindingJson(const Finding& f, const OperationBaseline* b, const RecordingView& r) {
  const requests::Request& req = r.requests->requests[f.request];
  const diagnose::RequestLevels& l = f.levels;
  nlohmann::json j = {{"trace_id", spans::TraceIdHex(req.trace)},
                      {"service", f.operation.service},
                      {"operation", f.operation.operation},
                      {"latency_ns", l.latency},
                      {"verdict", VerdictName(f.judgement.verdict)},
                      {"ratio_to_median", f.judgement.ratio_to_median},
                      {"few_baseline", f.judgement.few_baseline}};
  j["baseline"] = b ? StatsJson(b->latency) : nlohmann::json();
  if (l.syscalls_recorded) {
    nlohmann::json calls = nlohmann::json::array();
    for (const diagnose::SyscallTime& s : l.syscalls)
      calls.push_back({{"name", s.name},
                       {"ns", s.ns},
                       {"normal_ns", Mean(b, "syscall/" + s.name)},
                       {"by_state", AmountsJson(s.by_state, b, "syscall_state/" + s.name + "/")}});
    j["syscalls"] = calls;
  } else {
    j["syscalls"] = nullptr;
  }
  j["states"] = AmountsJson(l.states, b, "state/");
  j["cpu_wait"] = CpuWaitSummaryJson(*r.graph, l.cpu_wait);
  j["below"] = AmountsJson(l.below, b, "below/");
  nlohmann::json devices = nlohmann::json::array();
  for (const Amount& a : l.devices) devices.push_back({{"name", a.name}, {"ns", a.ns}});
  j["devices"] = devices;
  if (l.page_cache.recorded)
    j["page_cache"] = {{"pages_read", l.page_cache.pages_read},
                       {"cache_misses", l.page_cache.cache_misses},
                       {"normal_pages_read", Mean(b, "page_cache/pages_read")},
                       {"normal_cache_misses", Mean(b, "page_cache/cache_misses")}};
  else
    j["page_cache"] = nullptr;
  nlohmann::json walk = nlohmann::json::array();
  for (const diagnose::Step& s : diagnose::Walk(f, b))
    walk.push_back(
        {{"level", s.level}, {"name", s.name}, {"ns", s.ns}, {"normal_ns", s.normal_ns}});
  j["walk"] = walk;
  j["summary"] = WalkText(f, b);
  return j;
}

std::string DiagnosisText(const diagnose::Diagnosis& d, const RecordingView& subject,
                          const BaselineSource& source) {
  std::string out;
  out +=
      d.baselines.from_other_recording
          ? fmt::format("Baseline: {} (all its requests); {}\n", TerminalText(source.name), kRule)
          : fmt::format(
                "Baseline: this recording (each operation's requests under 1.5 x its median); "
                "{}\n",
                kRule);
  out += fmt::format("\n{:<12} {:<24} {:>8} {:>8} {:>12} {:>12}   {:>8} {:>12} {:>12}\n", "SERVICE",
                     "OPERATION", "REQUESTS", "ABNORMAL", "MEDIAN", "P95", "BASELINE", "MEDIAN",
                     "P95");
  for (const diagnose::OperationVerdicts& o : d.operations) {
    const OperationBaseline* b = d.baselines.Find(o.key);
    out += fmt::format("{:<12} {:<24} {:>8} {:>8} {:>12} {:>12}   ", TerminalText(o.key.service),
                       TerminalText(o.key.operation), o.requests, o.abnormal,
                       FormatDuration(o.latency.median), FormatDuration(o.latency.p95));
    out += b ? fmt::format("{:>8} {:>12} {:>12}{}\n", b->latency.count,
                           FormatDuration(b->latency.median), FormatDuration(b->latency.p95),
                           b->latency.count < diagnose::kMinBaselineRequests
                               ? "  (few: judged, but on little)"
                               : "")
             : fmt::format("{:>8}\n", "none");
  }
  if (!d.syscalls_recorded)
    out +=
        "\nSystem calls not recorded (record with --syscalls, then `causeway index`): no "
        "system call level.\n";
  if (d.baselines.from_other_recording && d.syscalls_recorded && !d.baselines.syscalls_recorded)
    out += "The baseline recording has no system calls: their normal times read 0.\n";
  out += fmt::format("\n{} abnormal requests", d.abnormal_requests);
  if (d.findings.empty()) return out + ".\n";
  out += fmt::format(" ({} shown, slowest first):\n", d.findings.size());
  for (const Finding& f : d.findings) {
    out += "\n";
    out += FindingText(f, d.baselines.Find(f.operation), subject);
  }
  return out;
}

nlohmann::json DiagnosisJson(const diagnose::Diagnosis& d, const RecordingView& subject,
                             const BaselineSource& source) {
  nlohmann::json baselines = nlohmann::json::array();
  for (const OperationBaseline& b : d.baselines.operations) {
    nlohmann::json x = {{"service", b.key.service}, {"operation", b.key.operation}};
    x.update(StatsJson(b.latency));
    x["profiled"] = b.profiled;
    x["mean_ns"] = b.mean_ns;
    baselines.push_back(std::move(x));
  }
  nlohmann::json operations = nlohmann::json::array();
  for (const diagnose::OperationVerdicts& o : d.operations) {
    nlohmann::json x = {{"service", o.key.service},
                        {"operation", o.key.operation},
                        {"requests", o.requests},
                        {"abnormal", o.abnormal}};
    x["latency"] = StatsJson(o.latency);
    operations.push_back(std::move(x));
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : d.findings)
    findings.push_back(FindingJson(f, d.baselines.Find(f.operation), subject));
  return {{"baseline",
           {{"source", d.baselines.from_other_recording ? source.name : "self"},
            {"rule", kRule},
            {"syscalls_recorded", d.baselines.syscalls_recorded},
            {"page_cache_recorded", d.baselines.page_cache_recorded},
            {"operations", baselines}}},
          {"operations", operations},
          {"abnormal_requests", d.abnormal_requests},
          {"syscalls_recorded", d.syscalls_recorded},
          {"page_cache_recorded", d.page_cache_recorded},
          {"abnormal", findings}};
}

}  // namespace causeway::report
