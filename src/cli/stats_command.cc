// `causeway stats TRACE_DIR...`: what a trace holds, and what the reader had to repair.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/progress.h"
#include "ctf/reader/event_reader.h"

namespace causeway::cli {
namespace {

struct StatsOptions {
  std::vector<std::string> traces;
  std::string format = "text";
};

std::string FormatNs(uint64_t ns) {
  return fmt::format("{}.{:09}", ns / 1'000'000'000, ns % 1'000'000'000);
}

int RunStats(const StatsOptions& o) {
  auto reader = ctf::EventReader::Open(o.traces);
  if (!reader.ok())
    return fmt::print(stderr, "causeway stats: {}\n", reader.status().ToString()), 1;
  Progress progress("Reading", (*reader)->total_bytes(), StderrIsInteractive());

  // Count per dense class index first (cheap), names later.
  std::vector<uint64_t> per_class((*reader)->num_event_classes(), 0);
  std::vector<const ctf::EventPlan*> class_plan((*reader)->num_event_classes(), nullptr);
  uint64_t total = 0, first = 0, last = 0, discarded_records = 0;
  while (const ctf::Event* e = (*reader)->Next()) {
    progress.Tick([&] { return (*reader)->consumed_bytes(); }, total);
    if (e->kind == ctf::Event::Kind::kDiscarded) {
      ++discarded_records;
      continue;
    }
    if (!total) first = e->timestamp;
    last = e->timestamp;
    ++total;
    if (!per_class[e->class_index]++) class_plan[e->class_index] = e->plan;
  }
  progress.Finish();
  if (!(*reader)->status().ok()) {
    fmt::print(stderr, "causeway stats: {}\n", (*reader)->status().ToString());
    return 1;
  }
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < per_class.size(); ++i)
    if (per_class[i]) by_name[class_plan[i]->cls->name] += per_class[i];
  std::vector<std::pair<std::string, uint64_t>> sorted(by_name.begin(), by_name.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto& a, auto& b) { return a.second > b.second; });
  const auto streams = (*reader)->stream_stats();
  uint64_t discarded = 0, lost_packets = 0, clamped = 0, bytes = 0;
  for (const auto& s : streams) {
    discarded += s.discarded_events;
    lost_packets += s.lost_packets;
    clamped += s.clamped_events;
    bytes += s.file_bytes;
  }

  if (o.format == "json") {
    nlohmann::json j;
    j["events"] = total;
    j["bytes"] = bytes;
    j["begin_ns"] = first;
    j["end_ns"] = last;
    j["duration_ns"] = last - first;
    j["discarded_events"] = discarded;
    j["lost_packets"] = lost_packets;
    j["clamped_timestamps"] = clamped;
    j["traces"] = nlohmann::json::array();
    for (const auto& t : (*reader)->traces())
      j["traces"].push_back({{"path", t->dir()},
                             {"hostname", t->hostname()},
                             {"domain", t->trace_class().EnvString("domain")},
                             {"tracer", t->trace_class().EnvString("tracer_name")}});
    j["by_name"] = nlohmann::json::array();
    for (const auto& [name, n] : sorted) j["by_name"].push_back({{"name", name}, {"count", n}});
    j["streams"] = nlohmann::json::array();
    for (const auto& s : streams)
      j["streams"].push_back({{"path", s.path},
                              {"trace", s.trace_index},
                              {"stream_class", s.stream_class_id},
                              {"cpu", s.cpu},
                              {"bytes", s.file_bytes},
                              {"packets", s.packets},
                              {"events", s.events},
                              {"begin_ns", s.first_ts},
                              {"end_ns", s.last_ts},
                              {"discarded_events", s.discarded_events},
                              {"lost_packets", s.lost_packets},
                              {"clamped_timestamps", s.clamped_events},
                              {"max_backward_ns", s.max_backward_ns}});
    fmt::print("{}\n", j.dump(2));
    return 0;
  }

  for (const auto& t : (*reader)->traces())
    fmt::print("Trace {} (host {}, domain {}, tracer {})\n", t->dir(), t->hostname(),
               t->trace_class().EnvString("domain"), t->trace_class().EnvString("tracer_name"));
  fmt::print("Events: {} in {} bytes, from {} to {} ({} s)\n", total, bytes, FormatNs(first),
             FormatNs(last), FormatNs(last - first));
  fmt::print("Discarded by the tracer: {} events; missing packets: {}; clamped timestamps: {}\n\n",
             discarded, lost_packets, clamped);
  fmt::print("{:>12}  {}\n", "COUNT", "EVENT");
  for (const auto& [name, n] : sorted) fmt::print("{:>12}  {}\n", n, name);
  fmt::print("\n{:>4} {:>10} {:>8} {:>10} {:>10} {:>8} {:>8}  {}\n", "CPU", "EVENTS", "PACKETS",
             "BYTES", "DISCARDED", "LOSTPKT", "CLAMPED", "STREAM");
  for (const auto& s : streams)
    fmt::print("{:>4} {:>10} {:>8} {:>10} {:>10} {:>8} {:>8}  {}\n", s.cpu, s.events, s.packets,
               s.file_bytes, s.discarded_events, s.lost_packets, s.clamped_events, s.path);
  return 0;
}

}  // namespace

Runner RegisterStats(CLI::App& app) {
  auto o = std::make_shared<StatsOptions>();
  CLI::App* cmd =
      app.add_subcommand("stats", "Summarize CTF traces: events by name, streams, losses");
  cmd->footer(
      "Read every event of one or more CTF traces and summarize them: events by name, the\n"
      "time range, and per stream the packets, events, events the tracer discarded,\n"
      "missing packets and timestamps the reader had to clamp to keep the stream ordered.\n\n"
      "Example:\n"
      "  causeway stats ~/lttng-traces/session/kernel --format json");
  cmd->add_option("traces", o->traces, "Trace directories")->required();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [o] { return RunStats(*o); };
}

}  // namespace causeway::cli
