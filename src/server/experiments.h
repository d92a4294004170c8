// The traces and experiments a server holds, by UUID. A trace is a directory the client
// (or the command line) opened; an experiment is a set of traces analysed together (several
// hosts are synchronized by analysis/clock_sync). Each distinct set of trace paths is
// analysed once (analysis::AnalyzeRecording, or the kernel alone when the recording has no
// spans), and the analysis is shared, read-only, by every experiment and request that
// names it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/clock_sync.h"
#include "analysis/recording_analysis.h"
#include "base/status.h"
#include "server/access.h"

namespace causeway::server {

// One analysed set of traces, immutable once made: the outputs read it from many threads.
struct ExperimentData {
  std::vector<std::string> paths;         // canonical, sorted
  analysis::RecordingAnalysis recording;  // requests empty when there are no spans
  bool has_spans = false;
  std::string spans_note;  // why there are no requests, when there are none
  // Requests by latency, slowest first (indexes into recording.requests.requests).
  std::vector<uint32_t> slowest_first;
  int64_t begin = 0, end = 0;  // the analysis' time range (graph timebase, ns)
  uint64_t events = 0;         // events read
  double seconds = 0;          // time the analysis took
};

struct TraceInfo {
  std::string uuid, name, path;  // path: canonical
};

struct ExperimentInfo {
  std::string uuid, name;
  std::vector<std::string> trace_uuids;
  std::shared_ptr<const ExperimentData> data;
};

struct AnalysisSettings {
  std::vector<std::string> span_paths;  // --spans: used for every experiment
  analysis::ClockSyncOptions sync;
  std::string host;
  // The index `causeway index` built: a valid one replaces reading the traces at open.
  analysis::KernelIndexOptions index;
};

class Experiments {
 public:
  Experiments(AllowedRoots roots, AnalysisSettings settings)
      : roots_(std::move(roots)), settings_(std::move(settings)) {}

  // Opens a trace directory: refused (PermissionDenied) outside the allowed roots,
  // NotFound when it holds no CTF trace. The same path opened twice is the same trace.
  StatusOr<TraceInfo> OpenTrace(const std::string& path, const std::string& name);
  std::vector<TraceInfo> Traces() const;
  std::optional<TraceInfo> FindTrace(const std::string& uuid) const;
  // Closes a trace; FailedPrecondition while an experiment uses it.
  StatusOr<TraceInfo> CloseTrace(const std::string& uuid);

  // Analyses the traces together (once per set of paths) and names the result. NotFound
  // for an unknown trace UUID; the analysis' own error otherwise.
  StatusOr<ExperimentInfo> OpenExperiment(const std::string& name,
                                          const std::vector<std::string>& trace_uuids);
  std::vector<ExperimentInfo> List() const;
  std::optional<ExperimentInfo> Find(const std::string& uuid) const;
  std::optional<ExperimentInfo> Close(const std::string& uuid);

  // The analysis of an experiment that holds the trace (for its start, end and event
  // count), else nullptr.
  std::shared_ptr<const ExperimentData> DataOfTrace(const std::string& uuid) const;

  const AllowedRoots& roots() const { return roots_; }

 private:
  StatusOr<std::shared_ptr<const ExperimentData>> Analyse(std::vector<std::string> paths);

  const AllowedRoots roots_;
  const AnalysisSettings settings_;
  mutable std::mutex mu_;
  std::map<std::string, TraceInfo> traces_;  // by uuid
  std::map<std::string, ExperimentInfo> experiments_;
  std::map<std::vector<std::string>, std::shared_ptr<const ExperimentData>> analyses_;
  // One analysis at a time: each takes every core, and a second client asking for the same
  // set waits for the first's result instead of computing it again.
  std::mutex analysing_;
};

// A random (version 4) UUID.
std::string NewUuid();

}  // namespace causeway::server
