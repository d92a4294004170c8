#include "analysis/diagnose_analysis.h"

namespace causeway::analysis {

diagnose::RecordingView ViewOf(const RecordingAnalysis& a, const state::StateStore* store) {
  return {&a.kernel->graph, &a.spans, &a.requests, store};
}

diagnose::RecordingView DiagnoseAnalysis::view() const { return ViewOf(recording, store); }

StatusOr<DiagnoseAnalysis> AnalyzeDiagnosis(const std::vector<std::string>& traces,
                                            const DiagnoseAnalysisOptions& options) {
  DiagnoseAnalysis out;
  out.store = options.store;
  // The levels need each request's path pieces (RequestAnalysis::Detail), not its nodes
  // and links, nor any span but the roots.
  RecordingAnalysisOptions recording = options.recording;
  recording.keep_paths = false;
  auto subject = AnalyzeRecording(traces, recording);
  RETURN_IF_ERROR(subject.status());
  out.recording = std::move(*subject);
  if (!options.baseline_traces.empty()) {
    RecordingAnalysisOptions baseline = options.baseline;
    baseline.keep_paths = false;
    auto normal = AnalyzeRecording(options.baseline_traces, baseline);
    if (!normal.ok()) return normal.status().WithContext("Cannot analyse the baseline recording");
    out.baseline = std::make_unique<RecordingAnalysis>(std::move(*normal));
  }
  const diagnose::RecordingView subject_view = out.view();
  if (out.baseline) {
    const diagnose::RecordingView normal_view = ViewOf(*out.baseline, options.baseline_store);
    out.diagnosis = diagnose::Diagnose(subject_view, &normal_view, options.limit);
  } else {
    out.diagnosis = diagnose::Diagnose(subject_view, nullptr, options.limit);
  }
  return out;
}

RequestLevelsAnalysis AnalyzeRequestLevels(const RecordingAnalysis& a, size_t request,
                                           const state::StateStore* store) {
  RequestLevelsAnalysis out;
  const diagnose::RecordingView view = ViewOf(a, store);
  const diagnose::OperationKey operation = diagnose::OperationOf(view, request);
  out.baselines = diagnose::MakeBaselines(view, /*own=*/true, &operation);
  out.finding = diagnose::Examine(view, request, out.baselines);
  return out;
}

}  // namespace causeway::analysis
