// Pipeline assembly for the top-down diagnosis (`causeway diagnose`, the levels of
// `causeway request ID`): a recording's request analysis (recording_analysis.h), the
// baselines of its operations (its own, or a normal recording's), and each abnormal
// request's levels (diagnose/diagnosis.h), with the state store's system calls and page
// cache counts when the caller has one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/recording_analysis.h"
#include "base/status.h"
#include "diagnose/diagnosis.h"
#include "state/state_store.h"

namespace causeway::analysis {

struct DiagnoseAnalysisOptions {
  RecordingAnalysisOptions recording;  // of the recording diagnosed
  // A normal recording's trace directories: the baseline. Empty: the recording is its own.
  std::vector<std::string> baseline_traces;
  RecordingAnalysisOptions baseline;  // how the baseline recording is analysed
  // The stores of the two recordings (null: no system call or page cache level).
  const state::StateStore* store = nullptr;
  const state::StateStore* baseline_store = nullptr;
  long limit = -1;  // abnormal requests given their levels (< 0: all)
};

struct DiagnoseAnalysis {
  RecordingAnalysis recording;
  std::unique_ptr<RecordingAnalysis> baseline;  // null when the recording is its own
  diagnose::Diagnosis diagnosis;
  const state::StateStore* store = nullptr;
  diagnose::RecordingView view() const;  // of `recording`, for the reports
};

StatusOr<DiagnoseAnalysis> AnalyzeDiagnosis(const std::vector<std::string>& traces,
                                            const DiagnoseAnalysisOptions& options);

// The view of an analysed recording.
diagnose::RecordingView ViewOf(const RecordingAnalysis& a, const state::StateStore* store);

// One request of an analysed recording judged against its operation's requests in the same
// recording, with its levels (`causeway request ID`).
struct RequestLevelsAnalysis {
  diagnose::Baselines baselines;
  diagnose::Finding finding;
  const diagnose::OperationBaseline* baseline() const { return baselines.Find(finding.operation); }
};
RequestLevelsAnalysis AnalyzeRequestLevels(const RecordingAnalysis& a, size_t request,
                                           const state::StateStore* store);

}  // namespace causeway::analysis
