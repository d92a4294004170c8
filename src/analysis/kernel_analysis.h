// Pipeline assembly for kernel analyses: CTF traces -> KernelLayout -> KernelModel ->
// ExecutionGraph. The stages below know nothing of each other beyond their interfaces;
// this file is where they meet.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/clock_sync.h"
#include "base/status.h"
#include "ctf/reader/decode_pipeline.h"
#include "ctf/reader/stream_cursor.h"
#include "graph/execution_graph.h"
#include "kernel/http_message.h"
#include "kernel/kernel_event_observer.h"
#include "kernel/kernel_model.h"

namespace causeway::analysis {

// Whether and where to look for the analysis cached by `causeway index`
// (analysis/kernel_analysis_file.h) before reading the traces.
struct KernelIndexOptions {
  bool use = false;
  std::string cache_dir;  // where the index is ("": beside the trace, LocateIndex)
  // Told which was used: "using the index built …", "index stale (…): reading the trace",
  // "index refused (…): reading the trace". Silent when there is no index.
  std::function<void(const std::string&)> note;
};

struct KernelAnalysisOptions {
  // Called every so often with (bytes consumed, total bytes, events read).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  // Clock synchronization between hosts: by default automatic when the traces hold more
  // than one host (analysis/clock_sync.h).
  ClockSyncOptions sync;
  // Threads decoding the trace beside the one building the graph (ctf::ReaderOptions).
  unsigned decode_threads = ctf::AnalysisDecodeThreads();
  // Off by default: the tests and benchmarks that call AnalyzeKernel read the trace.
  KernelIndexOptions index;
  // Sees every event after the model, system calls included (kernel_event_observer.h). Not
  // owned; nullptr: none, and the pass costs what it did without the hook.
  kernel::KernelEventObserver* observer = nullptr;
};

struct KernelAnalysis {
  graph::ExecutionGraph graph;
  kernel::ModelCounters counters;
  std::vector<std::string> paths;  // the trace paths as given
  std::vector<std::string> trace_dirs;
  // Traces found but not read: none of their events is one the model needs (user-space
  // traces of the same recording).
  std::vector<std::string> unused_trace_dirs;
  std::vector<ctf::StreamStats> streams;
  uint64_t events_read = 0;
  uint64_t bytes = 0;
  // The HTTP messages the recorder saw on TCP sockets, in time order (the recorder's
  // `http_message` events; none in traces of other tracers).
  std::vector<kernel::HttpMessage> http_messages;
  ClockSync clocks;   // the transforms applied (clocks.applied false: none)
  int64_t begin = 0;  // first and last event time (ns, transformed)
  int64_t end = 0;
};

// Reads every trace directory (searched recursively, as `causeway events` does) and builds
// the execution graph of all their hosts. Fails when the traces cannot be read or hold no
// scheduling events. With `options.index.use`, loads the analysis from the index instead
// when its graph file was built from these very files with these options; a stale,
// damaged or foreign file is noted and the traces are read.
StatusOr<std::unique_ptr<KernelAnalysis>> AnalyzeKernel(const std::vector<std::string>& paths,
                                                        const KernelAnalysisOptions& options = {});

}  // namespace causeway::analysis
