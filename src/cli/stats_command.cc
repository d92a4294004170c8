// `causeway stats TRACE_DIR...`: what a trace holds, and what the reader had to repair.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/progress.h"
#include "ctf/reader/event_reader.h"
#include "ctf/reader/overlapping_traces.h"

namespace causeway::cli {
namespace {

struct StatsOptions {
  std::vector<std::string> traces;
  std::string format = "text";
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

std::string FormatNs(uint64_t ns) {
  return fmt::format("{}.{:09}", ns / 1'000'000'000, ns % 1'000'000'000);
}

// What one worker counted, over the streams it decoded.
struct Tally {
  std::vector<uint64_t> per_class;
  std::vector<const ctf::EventPlan*> class_plan;
  uint64_t events = 0;
  uint64_t first = UINT64_MAX, last = 0;
};

int RunStats(const StatsOptions& o) {
  ctf::ReaderOptions reader_options;
  reader_options.decode_threads = 0;  // ScanUnordered spreads whole streams over threads
  auto reader = ctf::EventReader::Open(o.traces, reader_options);
  if (!reader.ok())
    return fmt::print(stderr, "causeway stats: {}\n", reader.status().ToString()), 1;
  Progress progress("Reading", (*reader)->total_bytes(), StderrIsInteractive());
  std::mutex progress_mutex;  // whichever worker holds it draws
  std::atomic<uint64_t> done_bytes{0}, done_events{0};

  // Nothing here depends on the order across streams, so each stream is decoded on its
  // own, without the merge, the streams spread over the threads. Counts go per dense class
  // index first (cheap), names later.
  const uint32_t classes = (*reader)->num_event_classes();
  std::vector<Tally> tallies(std::max(1u, o.threads));
  for (Tally& t : tallies) {
    t.per_class.assign(classes + 16, 0);  // padded: workers count in separate cache lines
    t.class_plan.assign(classes, nullptr);
  }
  const Status scanned =
      (*reader)->ScanUnordered(o.threads, [&](unsigned worker, ctf::StreamCursor& cursor) {
        Tally& t = tallies[worker];
        uint64_t events = 0, first = UINT64_MAX, last = 0, published_bytes = 0;
        uint64_t records = 0, published_records = 0;
        // After each event, the events that follow in the static layout come as records
        // from NextStaticRun's loop, which writes nothing else.
        std::array<ctf::EventRecord, 256> run;
        while (cursor.Next()) {
          const ctf::Event& e = cursor.event();
          // Every 64 Ki records or so: share this stream's progress, and draw if no one
          // else is.
          if (++records - published_records >= 0x10000) [[unlikely]] {
            const uint64_t bytes = cursor.bytes_consumed();
            done_bytes.fetch_add(bytes - published_bytes, std::memory_order_relaxed);
            published_bytes = bytes;
            done_events.fetch_add(records - published_records, std::memory_order_relaxed);
            published_records = records;
            if (progress_mutex.try_lock()) {
              progress.Update(done_bytes.load(std::memory_order_relaxed),
                              done_events.load(std::memory_order_relaxed));
              progress_mutex.unlock();
            }
          }
          if (e.kind == ctf::Event::Kind::kDiscarded) continue;
          if (!events++) first = e.timestamp;
          last = e.timestamp;  // a stream's events come in order
          if (!t.per_class[e.class_index]++) t.class_plan[e.class_index] = e.plan;
          const uint32_t n = cursor.NextStaticRun(run.data(), run.size());
          if (n == 0) continue;
          events += n;
          records += n;
          last = run[n - 1].timestamp;
          for (uint32_t i = 0; i < n; ++i) {
            const uint32_t c = cursor.class_base() + run[i].plan_index;
            if (!t.per_class[c]++)
              t.class_plan[c] = cursor.static_layouts()[run[i].plan_index * 2].plan;
          }
        }
        t.events += events;
        if (events) {
          t.first = std::min(t.first, first);
          t.last = std::max(t.last, last);
        }
      });
  progress.Finish();
  if (!scanned.ok()) {
    fmt::print(stderr, "causeway stats: {}\n", scanned.ToString());
    return 1;
  }
  uint64_t total = 0, first = UINT64_MAX, last = 0;
  std::vector<uint64_t> per_class(classes, 0);
  std::vector<const ctf::EventPlan*> class_plan(classes, nullptr);
  for (const Tally& t : tallies) {
    total += t.events;
    first = std::min(first, t.first);
    last = std::max(last, t.last);
    for (uint32_t c = 0; c < classes; ++c) {
      per_class[c] += t.per_class[c];
      if (t.class_plan[c]) class_plan[c] = t.class_plan[c];
    }
  }
  if (!total) {
    first = 0;
    // Zero events is never what was meant: say so, whatever the format.
    fmt::print(stderr,
               "causeway stats: warning: the trace holds no events (a recorder stopped before "
               "its first packet reached the disk, or nothing was recorded)\n");
  }
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < per_class.size(); ++i)
    if (per_class[i]) by_name[class_plan[i]->cls->name] += per_class[i];
  std::vector<std::pair<std::string, uint64_t>> sorted(by_name.begin(), by_name.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto& a, auto& b) { return a.second > b.second; });
  const auto streams = (*reader)->stream_stats();
  // Stats describe what the files hold, so they go on; the analyses refuse such a folder.
  const std::optional<std::string> overlap = ctf::OverlappingTraces(**reader, streams);
  if (overlap)
    fmt::print(stderr, "causeway stats: warning: {}; the counts below hold those events twice\n",
               *overlap);
  uint64_t discarded = 0, discarded_early = 0, lost_packets = 0, clamped = 0, bytes = 0;
  for (const auto& s : streams) {
    discarded += s.discarded_events;
    discarded_early += s.discarded_before_first_packet;
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
    j["discarded_before_first_packet"] = discarded_early;
    j["lost_packets"] = lost_packets;
    j["clamped_timestamps"] = clamped;
    if (overlap) j["overlapping_traces"] = *overlap;
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
                              {"discarded_before_first_packet", s.discarded_before_first_packet},
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
  fmt::print("Discarded by the tracer: {} events", discarded);
  if (discarded_early)
    fmt::print(" ({} of them reported by a stream's first packet: at unknown times before it)",
               discarded_early);
  fmt::print("; missing packets: {}; clamped timestamps: {}\n\n", lost_packets, clamped);
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
      "missing packets and timestamps the reader had to clamp to keep the stream ordered.\n"
      "None of this depends on the order across streams, so the stream files are decoded\n"
      "side by side on --threads threads, without merging them by time.\n"
      "The chunks of a rotated recording (lttng rotate: traces that share a UUID under\n"
      "archives/) count on from one another; a stream's first packet may report events\n"
      "discarded before it (a snapshot's do), at times the trace does not give.\n\n"
      "Example:\n"
      "  causeway stats ~/lttng-traces/session/kernel --format json");
  cmd->add_option("traces", o->traces, "Trace directories")->required();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Threads decoding stream files, one stream per thread at a time "
                  "(default: the CPUs of this machine)")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  return [o] { return RunStats(*o); };
}

}  // namespace causeway::cli
