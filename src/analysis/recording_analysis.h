// Pipeline assembly for request analyses: a recording's kernel traces and span files ->
// kernel analysis (analysis/kernel_analysis.h) -> spans in the graph's timebase (sync
// events, clock transforms) -> each request's critical path (requests/request_analysis.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/kernel_analysis.h"
#include "base/status.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::analysis {

struct RecordingAnalysisOptions {
  // Span files or directories (OTLP or Jaeger JSON); empty: DefaultSpans(traces).
  std::vector<std::string> span_paths;
  // The host whose threads ran the spans, whose clock the spans without sync events are on
  // (empty: the graph's first host).
  std::string host;
  // Whether each request's critical path is kept after its summary is made (the HTML
  // report, one request's report and the export draw them). Without, the spans but the
  // requests' roots are let go before the paths are computed
  // (requests::AnalyzeRequestsRootSpansOnly): the listings show the roots alone.
  bool keep_paths = true;
  // Keep each thread's active request over time (RequestAnalysis::thread_requests).
  bool keep_thread_requests = false;
  KernelAnalysisOptions kernel;
  // Called on the calling thread once the kernel analysis is done (nullptr: it failed), and
  // once the spans are read, before they are joined: a command line prints its notes and the
  // spans' warnings there, ahead of any later error.
  std::function<void(const KernelAnalysis*)> on_kernel_done;
  std::function<void(const spans::SpanSet&)> on_spans_read;
};

struct RecordingAnalysis {
  std::unique_ptr<KernelAnalysis> kernel;
  spans::SpanSet spans;  // in the graph's timebase; warnings in spans.warnings
  requests::RequestAnalysis requests;
};

// Where `causeway record` and causeway-client put the spans: DIR/spans beside DIR/kernel
// (or inside DIR), for each trace directory that has one; sorted, without repeats.
std::vector<std::string> DefaultSpans(const std::vector<std::string>& traces);

// Fails when no span file is given or found, or when the traces or the spans cannot be read.
StatusOr<RecordingAnalysis> AnalyzeRecording(const std::vector<std::string>& traces,
                                             const RecordingAnalysisOptions& options);

}  // namespace causeway::analysis
