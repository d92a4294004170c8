#include "analysis/kernel_analysis.h"

#include <map>
#include <type_traits>

#include <fmt/format.h>

#include "analysis/kernel_analysis_index.h"
#include "ctf/reader/event_reader.h"
#include "ctf/reader/overlapping_traces.h"
#include "kernel/http_message_layout.h"
#include "kernel/kernel_layout.h"

namespace causeway::analysis {

namespace {

StatusOr<std::unique_ptr<KernelAnalysis>> ReadTraces(const std::vector<std::string>& paths,
                                                     const KernelAnalysisOptions& options) {
  // Transforms go into the reader, so that its merge order is the synchronized order.
  auto result = std::make_unique<KernelAnalysis>();
  result->paths = paths;
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
  kernel::KernelLayoutOptions layout_options;
  layout_options.syscalls = options.observer != nullptr;
  layout_options.page_cache = options.observer != nullptr;
  const kernel::KernelLayout layout =
      kernel::KernelLayout::Build(*reader, std::move(host_of_trace), layout_options);
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
  // Two instances of the loop, so that the one without an observer has no test for it.
  auto pass = [&](auto with_observer) {
    // ForEach rather than Next(): the same events, with the merge's heads kept in registers.
    reader->ForEach([&](const ctf::Event& e) {
      ++n;
      if (options.progress && (n & 0xFFFF) == 0)
        options.progress(reader->consumed_bytes(), total, n);
      if (!layout.Convert(e, &ke)) {
        if (http.Read(e, &message)) result->http_messages.push_back(std::move(message));
        return;
      }
      if constexpr (decltype(with_observer)::value) {
        // System calls and page cache events go to the observer alone: the graph and its
        // time range are the same with or without them.
        if (ke.kind == kernel::Kind::kSyscallEntry || ke.kind == kernel::Kind::kSyscallExit ||
            ke.kind == kernel::Kind::kPageCacheAdd || ke.kind == kernel::Kind::kPageCacheDelete ||
            ke.kind == kernel::Kind::kPageCacheRead) {
          options.observer->OnEvent(ke);
          return;
        }
      }
      if (first) {
        result->begin = ke.ts;
        first = false;
      }
      result->end = std::max(result->end, ke.ts);
      model.Process(ke);
      if constexpr (decltype(with_observer)::value) options.observer->OnEvent(ke);
    });
  };
  if (options.observer) {
    options.observer->Start(model, result->graph);
    pass(std::true_type{});
  } else {
    pass(std::false_type{});
  }
  if (!reader->status().ok()) return reader->status();
  // Several snapshots of one flight recorder in one folder: every event twice, and the
  // model would repair switch-outs without end. Refused (stats and events warn).
  if (auto overlap = ctf::OverlappingTraces(*reader, reader->stream_stats()))
    return InvalidArgument(*overlap);
  model.Finish(result->end);
  if (options.observer) options.observer->Finish(result->end);
  result->graph.ShrinkToFit();
  result->counters = model.counters();
  result->streams = reader->stream_stats();
  result->events_read = n;
  result->bytes = total;
  return result;
}

}  // namespace

StatusOr<std::unique_ptr<KernelAnalysis>> AnalyzeKernel(const std::vector<std::string>& paths,
                                                        const KernelAnalysisOptions& options) {
  // An observer needs the events themselves: with one, the traces are always read.
  if (options.index.use && !options.observer)
    if (auto cached = LoadIndexedKernelAnalysis(paths, options)) return cached;
  return ReadTraces(paths, options);
}

}  // namespace causeway::analysis
