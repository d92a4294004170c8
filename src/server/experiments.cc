#include "server/experiments.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"

namespace causeway::server {

std::string NewUuid() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  const uint64_t hi = (rng() & ~0xf000ull) | 0x4000ull;        // version 4
  const uint64_t lo = (rng() & ~(3ull << 62)) | (2ull << 62);  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffull);
}

StatusOr<TraceInfo> Experiments::OpenTrace(const std::string& path, const std::string& name) {
  ASSIGN_OR_RETURN(std::string canonical, roots_.Resolve(path));
  ASSIGN_OR_RETURN(std::vector<std::string> dirs, ctf::FindTraceDirs(canonical));
  if (dirs.empty()) return NotFound(path + " holds no CTF trace (no metadata file below it)");
  std::lock_guard lock(mu_);
  for (const auto& [uuid, t] : traces_)
    if (t.path == canonical) return t;
  TraceInfo t{NewUuid(), name.empty() ? std::filesystem::path(canonical).filename().string() : name,
              canonical};
  traces_[t.uuid] = t;
  return t;
}

std::vector<TraceInfo> Experiments::Traces() const {
  std::lock_guard lock(mu_);
  std::vector<TraceInfo> out;
  for (const auto& [uuid, t] : traces_) out.push_back(t);
  return out;
}

std::optional<TraceInfo> Experiments::FindTrace(const std::string& uuid) const {
  std::lock_guard lock(mu_);
  auto it = traces_.find(uuid);
  if (it == traces_.end()) return std::nullopt;
  return it->second;
}

StatusOr<TraceInfo> Experiments::CloseTrace(const std::string& uuid) {
  std::lock_guard lock(mu_);
  auto it = traces_.find(uuid);
  if (it == traces_.end()) return NotFound("no trace " + uuid);
  for (const auto& [eu, e] : experiments_)
    if (std::find(e.trace_uuids.begin(), e.trace_uuids.end(), uuid) != e.trace_uuids.end())
      return FailedPrecondition("trace " + uuid + " is used by experiment " + eu);
  TraceInfo t = it->second;
  traces_.erase(it);
  return t;
}

StatusOr<std::shared_ptr<const ExperimentData>> Experiments::Analyse(
    std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::lock_guard analysing(analysing_);
  {
    std::lock_guard lock(mu_);
    auto it = analyses_.find(paths);
    if (it != analyses_.end()) return it->second;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto data = std::make_shared<ExperimentData>();
  data->paths = paths;
  analysis::RecordingAnalysisOptions options;
  options.span_paths = settings_.span_paths;
  options.host = settings_.host;
  options.kernel.sync = settings_.sync;
  options.kernel.index = settings_.index;
  const bool has_spans = !settings_.span_paths.empty() || !analysis::DefaultSpans(paths).empty();
  if (has_spans) {
    ASSIGN_OR_RETURN(data->recording, analysis::AnalyzeRecording(paths, options));
    data->has_spans = true;
  } else {
    // A kernel trace alone (LTTng, perf): threads, CPUs and events, no requests.
    ASSIGN_OR_RETURN(data->recording.kernel, analysis::AnalyzeKernel(paths, options.kernel));
    data->spans_note = "no spans beside these traces (TRACE_DIR/spans) and no --spans: no requests";
  }
  const auto& reqs = data->recording.requests.requests;
  data->slowest_first.resize(reqs.size());
  for (uint32_t i = 0; i < reqs.size(); ++i) data->slowest_first[i] = i;
  std::stable_sort(data->slowest_first.begin(), data->slowest_first.end(),
                   [&](uint32_t a, uint32_t b) { return reqs[a].latency() > reqs[b].latency(); });
  data->begin = data->recording.kernel->begin;
  data->end = data->recording.kernel->end;
  data->events = data->recording.kernel->events_read;
  data->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::shared_ptr<const ExperimentData> result = std::move(data);
  std::lock_guard lock(mu_);
  analyses_[paths] = result;
  return result;
}

StatusOr<ExperimentInfo> Experiments::OpenExperiment(const std::string& name,
                                                     const std::vector<std::string>& trace_uuids) {
  if (trace_uuids.empty()) return InvalidArgument("an experiment needs at least one trace");
  std::vector<std::string> paths;
  {
    std::lock_guard lock(mu_);
    for (const std::string& u : trace_uuids) {
      auto it = traces_.find(u);
      if (it == traces_.end()) return NotFound("no trace " + u);
      paths.push_back(it->second.path);
    }
    // The same name and traces: the experiment already open (TSP clients post it again).
    for (const auto& [eu, e] : experiments_)
      if (e.name == name && e.trace_uuids == trace_uuids) return e;
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const ExperimentData> data, Analyse(paths));
  std::lock_guard lock(mu_);
  ExperimentInfo e{NewUuid(), name, trace_uuids, std::move(data)};
  experiments_[e.uuid] = e;
  return e;
}

std::vector<ExperimentInfo> Experiments::List() const {
  std::lock_guard lock(mu_);
  std::vector<ExperimentInfo> out;
  for (const auto& [uuid, e] : experiments_) out.push_back(e);
  return out;
}

std::optional<ExperimentInfo> Experiments::Find(const std::string& uuid) const {
  std::lock_guard lock(mu_);
  auto it = experiments_.find(uuid);
  if (it == experiments_.end()) return std::nullopt;
  return it->second;
}

std::optional<ExperimentInfo> Experiments::Close(const std::string& uuid) {
  std::lock_guard lock(mu_);
  auto it = experiments_.find(uuid);
  if (it == experiments_.end()) return std::nullopt;
  ExperimentInfo e = it->second;
  experiments_.erase(it);
  // The analysis stays cached while another experiment holds it.
  bool used = false;
  for (const auto& [eu, other] : experiments_) used = used || other.data == e.data;
  if (!used) analyses_.erase(e.data->paths);
  return e;
}

std::shared_ptr<const ExperimentData> Experiments::DataOfTrace(const std::string& uuid) const {
  std::lock_guard lock(mu_);
  for (const auto& [eu, e] : experiments_)
    if (std::find(e.trace_uuids.begin(), e.trace_uuids.end(), uuid) != e.trace_uuids.end())
      return e.data;
  return nullptr;
}

}  // namespace causeway::server
