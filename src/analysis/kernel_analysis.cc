#include "analysis/kernel_analysis.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "kernel/http_message_layout.h"
#include "kernel/kernel_layout.h"

namespace causeway::analysis {

namespace {

// Two traces of one host whose streams of one CPU cover the same time are the same events
// twice (a folder of several snapshots of one flight recorder, each holding the ring's
// last seconds): merged, every event in both would count twice and the model would repair
// switch-outs without end. Chunks of one recording (LTTng's rotations) follow each other.
Status CheckNoOverlappingTraces(const ctf::EventReader& reader,
                                const std::vector<ctf::StreamStats>& streams) {
  const auto& traces = reader.traces();
  for (size_t i = 0; i < streams.size(); ++i) {
    const ctf::StreamStats& a = streams[i];
    if (a.cpu < 0 || a.events == 0) continue;
    for (size_t j = i + 1; j < streams.size(); ++j) {
      const ctf::StreamStats& b = streams[j];
      if (b.trace_index == a.trace_index || b.cpu != a.cpu || b.events == 0) continue;
      if (traces[a.trace_index]->hostname() != traces[b.trace_index]->hostname()) continue;
      if (a.last_ts < b.first_ts || b.last_ts < a.first_ts) continue;
      const std::string& x = traces[a.trace_index]->dir();
      const std::string& y = traces[b.trace_index]->dir();
      return InvalidArgument(fmt::format(
          "The traces {} and {} are of one host ({}) and cover the same time on CPU {}: "
          "several snapshots of one recording? Their events would be counted twice; give one "
          "snapshot's folder (e.g. {})",
          x, y, traces[a.trace_index]->hostname(), a.cpu,
          std::filesystem::path(x).parent_path().string()));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<KernelAnalysis>> AnalyzeKernel(const std::vector<std::string>& paths,
                                                        const KernelAnalysisOptions& options) {
  // Transforms go into the reader, so that its merge order is the synchronized order.
  auto result = std::make_unique<KernelAnalysis>();
  ASSIGN_OR_RETURN(result->clocks, ResolveClockSync(paths, options.sync));
  ctf::ReaderOptions reader_options =
      kernel::KernelTracesOnly(ctf::ReaderOptions::ByHost(result->clocks.Transforms()));
  reader_options.decode_threads = options.decode_threads;
  ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader,
                   ctf::EventReader::Open(paths, reader_options));
  result->unused_trace_dirs = reader->skipped_traces();
  kernel::KernelModel model(&result->graph);

  // Hosts by env hostname: a host's kernel and user-space traces share one host id.
  std::map<std::string, uint32_t> host_ids;
  std::vector<uint32_t> host_of_trace;
  for (const auto& t : reader->traces()) {
    result->trace_dirs.push_back(t->dir());
    auto [it, added] = host_ids.emplace(t->hostname(), 0);
    if (added) it->second = model.AddHost(t->hostname());
    host_of_trace.push_back(it->second);
  }
  const kernel::HttpMessageLayout http = kernel::HttpMessageLayout::Build(*reader, host_of_trace);
  const kernel::KernelLayout layout =
      kernel::KernelLayout::Build(*reader, std::move(host_of_trace));
  if (!layout.has_scheduling()) {
    std::string dirs;
    for (const auto* list : {&result->trace_dirs, &result->unused_trace_dirs})
      for (const auto& d : *list) dirs += (dirs.empty() ? "" : ", ") + d;
    return InvalidArgument(fmt::format(
        "No scheduling events in {}: a kernel analysis needs sched_switch (and sched_waking "
        "for causes); record with `causeway record`, LTTng's kernel tracer, or `perf record -e "
        "'sched:*'` converted by `perf data convert --to-ctf`",
        dirs));
  }

  kernel::KernelEvent ke;
  kernel::HttpMessage message;
  uint64_t n = 0;
  bool first = true;
  const uint64_t total = reader->total_bytes();
  // ForEach rather than Next(): the same events, with the merge's heads kept in registers.
  reader->ForEach([&](const ctf::Event& e) {
    ++n;
    if (options.progress && (n & 0xFFFF) == 0) options.progress(reader->consumed_bytes(), total, n);
    if (!layout.Convert(e, &ke)) {
      if (http.Read(e, &message)) result->http_messages.push_back(std::move(message));
      return;
    }
    if (first) {
      result->begin = ke.ts;
      first = false;
    }
    result->end = std::max(result->end, ke.ts);
    model.Process(ke);
  });
  if (!reader->status().ok()) return reader->status();
  RETURN_IF_ERROR(CheckNoOverlappingTraces(*reader, reader->stream_stats()));
  model.Finish(result->end);
  result->graph.ShrinkToFit();
  result->counters = model.counters();
  result->streams = reader->stream_stats();
  result->events_read = n;
  result->bytes = total;
  return result;
}

}  // namespace causeway::analysis
