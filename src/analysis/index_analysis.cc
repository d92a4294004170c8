#include "analysis/index_analysis.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "analysis/kernel_analysis.h"
#include "analysis/kernel_analysis_file.h"
#include "analysis/recording_analysis.h"
#include "index/graph_feed.h"
#include "index/kernel_event_feed.h"
#include "index/request_feed.h"

namespace causeway::analysis {

namespace fs = std::filesystem;

std::vector<std::string> IndexSpanPaths(const IndexSource& source) {
  return source.span_paths.empty() ? DefaultSpans(source.traces) : source.span_paths;
}

std::string IndexSourceKey(const IndexSource& source) {
  return RecordingSourceKey(KernelSourceKey(source.traces, source.sync), IndexSpanPaths(source),
                            source.host);
}

StatusOr<IndexBuild> BuildIndex(const IndexSource& source, const IndexLocation& where,
                                const IndexBuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(where.dir, ec);
  if (ec)
    return IoError(fmt::format("{}: cannot create the index folder: {}", where.dir, ec.message()));
  state::StateWriterOptions writer_options;
  writer_options.source_key = IndexSourceKey(source);
  ASSIGN_OR_RETURN(std::unique_ptr<state::StateWriter> writer,
                   state::StateWriter::Create(where.store_path, writer_options));

  index::KernelEventFeed events(writer.get());
  KernelAnalysisOptions kernel_options;
  kernel_options.progress = options.progress;
  kernel_options.sync = source.sync;
  kernel_options.observer = &events;

  IndexBuild build;
  const std::vector<std::string> span_paths = IndexSpanPaths(source);
  build.with_spans = !span_paths.empty();
  std::unique_ptr<KernelAnalysis> kernel;
  requests::RequestAnalysis requests;
  if (build.with_spans) {
    RecordingAnalysisOptions recording;
    recording.span_paths = span_paths;
    recording.host = source.host;
    // Each request's path is worked out again from its slice of the shared paths (Detail):
    // the merged paths' nodes are not needed.
    recording.keep_paths = false;
    recording.keep_thread_requests = true;
    recording.kernel = kernel_options;
    recording.on_kernel_done = options.on_kernel_done;
    ASSIGN_OR_RETURN(RecordingAnalysis a, AnalyzeRecording(source.traces, recording));
    kernel = std::move(a.kernel);
    requests = std::move(a.requests);
  } else {
    auto a = AnalyzeKernel(source.traces, kernel_options);
    if (options.on_kernel_done) options.on_kernel_done(a.ok() ? a->get() : nullptr);
    RETURN_IF_ERROR(a.status());
    kernel = std::move(*a);
  }
  const graph::ExecutionGraph& g = kernel->graph;

  index::GraphFeedCounters graph_counters;
  index::WriteThreadStates(g, writer.get(), &graph_counters);
  index::WriteCpuThreads(g, writer.get(), &graph_counters);
  index::RequestFeedCounters request_counters;
  if (build.with_spans) index::WriteRequests(g, requests, writer.get(), &request_counters);
  RETURN_IF_ERROR(writer->Finish(std::max(g.end(), events.last_ts())));
  // The kernel analysis itself, so that the other commands load it instead of reading the
  // trace (kernel_analysis_file.h). The observer changed neither the graph nor its range.
  RETURN_IF_ERROR(WriteKernelAnalysisFile(*kernel, where.graph_path,
                                          KernelSourceKey(source.traces, source.sync)));
  build.graph_bytes = fs::file_size(where.graph_path, ec);
  if (ec) build.graph_bytes = 0;

  build.intervals = writer->intervals_written();
  build.store_bytes = fs::file_size(where.store_path, ec);
  if (ec) build.store_bytes = writer->bytes_written();
  build.trace_bytes = kernel->bytes;
  build.events = kernel->events_read;
  build.requests = request_counters.requests;
  build.threads = graph_counters.threads;
  build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return build;
}

ValidIndex OpenValidIndex(const IndexSource& source, const std::string& cache_dir) {
  ValidIndex out;
  auto where = LocateIndex(source.traces, cache_dir);
  if (!where.ok()) {
    out.reason = where.status().ToString();
    return out;
  }
  out.location = *where;
  std::error_code ec;
  if (!fs::exists(where->store_path, ec)) {
    out.reason = fmt::format("no index at {}", where->store_path);
    return out;
  }
  auto store = state::StateStore::Open(where->store_path);
  if (!store.ok()) {
    out.reason = store.status().ToString();
    return out;
  }
  if ((*store)->source_key() != IndexSourceKey(source)) {
    out.reason = fmt::format(
        "{} is stale: the traces, the span files or the clock options changed since it was "
        "built",
        where->store_path);
    return out;
  }
  out.store = std::move(*store);
  return out;
}

ValidIndex OpenValidIndex(const std::vector<std::string>& traces,
                          const std::vector<std::string>& span_paths,
                          const std::string& cache_dir) {
  IndexSource source;
  source.traces = traces;
  source.span_paths = span_paths;
  return OpenValidIndex(source, cache_dir);
}

}  // namespace causeway::analysis
