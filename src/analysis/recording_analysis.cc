#include "analysis/recording_analysis.h"

#include <algorithm>
#include <filesystem>
#include <future>
#include <map>

#include "spans/span_reader.h"

namespace causeway::analysis {

namespace fs = std::filesystem;

std::vector<std::string> DefaultSpans(const std::vector<std::string>& traces) {
  std::vector<std::string> out;
  for (const std::string& t : traces) {
    for (const fs::path& p : {fs::path(t) / "spans", fs::path(t).parent_path() / "spans"}) {
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        out.push_back(p.string());
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StatusOr<RecordingAnalysis> AnalyzeRecording(const std::vector<std::string>& traces,
                                             const RecordingAnalysisOptions& options) {
  const std::vector<std::string> span_paths =
      options.span_paths.empty() ? DefaultSpans(traces) : options.span_paths;
  if (span_paths.empty())
    return NotFound(
        "No spans: give --spans FILE_OR_DIR (OTLP or Jaeger JSON); under `causeway record`, "
        "causeway-client writes them to TRACE_DIR/spans");
  RecordingAnalysis out;
  // The span files and the user-space sync events are read on a second thread while this
  // one reads the kernel trace (which leaves that thread's CPU to it): they need nothing
  // from each other until the clock transforms are applied. The future's destructor joins
  // the thread on every return.
  struct SideRead {
    StatusOr<spans::SpanSet> spans;
    StatusOr<spans::SyncEvents> sync;
  };
  std::future<SideRead> side =
      std::async(std::launch::async | std::launch::deferred, [&span_paths, &traces] {
        // The sync events first: their reader's buffers (a chunk per stream of each
        // user-space trace) are then freed while the kernel graph is still small, and the
        // spans reuse that memory instead of adding to the graph's and the spans' peak.
        StatusOr<spans::SyncEvents> sync = spans::ReadSyncEvents(traces);
        return SideRead{spans::ReadSpanFiles(span_paths), std::move(sync)};
      });
  auto kernel = AnalyzeKernel(traces, options.kernel);
  if (options.on_kernel_done) options.on_kernel_done(kernel.ok() ? kernel->get() : nullptr);
  SideRead read = side.get();
  RETURN_IF_ERROR(kernel.status());
  out.kernel = std::move(*kernel);
  RETURN_IF_ERROR(read.spans.status());
  RETURN_IF_ERROR(read.sync.status());
  out.spans = std::move(*read.spans);
  spans::NoteDamagedSyncTraces(*read.sync, &out.spans);
  if (options.on_spans_read) options.on_spans_read(out.spans);
  // Spans in the kernel graph's timebase: sync events through the same transforms, and
  // spans without them (their own times, on the host's clock) through that host's.
  const std::map<std::string, ClockTransform> transforms = out.kernel->clocks.Transforms();
  spans::ApplySyncEvents(*read.sync, &out.spans, transforms);
  // Applied: freed before the request analysis, whose peak they would otherwise add to.
  read.sync = spans::SyncEvents{};
  const graph::ExecutionGraph& g = out.kernel->graph;
  const std::string span_host =
      !options.host.empty() ? options.host : (g.hosts().empty() ? "" : g.hosts().front());
  if (auto it = transforms.find(span_host); it != transforms.end())
    spans::TransformUnsynced(it->second, &out.spans);
  // Every span on a thread and the kernel clock: sync events, the HTTP messages the kernel
  // saw, checked thread ids, ancestors (requests/span_placement.h).
  const auto host_it = std::find(g.hosts().begin(), g.hosts().end(), span_host);
  const uint32_t host_index =
      host_it == g.hosts().end() ? 0 : static_cast<uint32_t>(host_it - g.hosts().begin());
  const requests::SpanPlacement placement =
      requests::PlaceSpans(g, host_index, out.kernel->http_messages, &out.spans);
  requests::RequestOptions ro;
  ro.host = options.host;
  ro.keep_paths = options.keep_paths;
  ro.keep_thread_requests = options.keep_thread_requests;
  ro.placement = &placement;
  ASSIGN_OR_RETURN(out.requests, options.keep_paths
                                     ? requests::AnalyzeRequests(g, out.spans, ro)
                                     : requests::AnalyzeRequestsRootSpansOnly(g, &out.spans, ro));
  // The request analysis sees the graph only, where the lost events' time is UNKNOWN: their
  // count comes from the reader, so that the reports give it.
  for (const auto& s : out.kernel->streams) {
    out.requests.kernel_events_discarded += s.discarded_events;
    out.requests.kernel_timestamps_clamped += s.clamped_events;
    out.requests.kernel_max_backward_ns =
        std::max(out.requests.kernel_max_backward_ns, s.max_backward_ns);
  }
  return out;
}

}  // namespace causeway::analysis
