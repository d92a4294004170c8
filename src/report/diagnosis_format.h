// Text (a tree) and JSON of the top-down diagnosis (`causeway diagnose`) and of one
// request's levels (`causeway request ID`). The JSON shapes are documented in docs/cli.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "diagnose/diagnosis.h"

namespace causeway::report {

// Where the baseline came from, in words: "this recording" or the other recording's path.
struct BaselineSource {
  std::string name;
};

std::string DiagnosisText(const diagnose::Diagnosis& d, const diagnose::RecordingView& subject,
                          const BaselineSource& source);
nlohmann::json DiagnosisJson(const diagnose::Diagnosis& d, const diagnose::RecordingView& subject,
                             const BaselineSource& source);

// One request's verdict and levels beside its operation's baseline (null: none): the tree
// `diagnose` prints per abnormal request, and `request ID`'s "Top-down" section.
std::string FindingText(const diagnose::Finding& f, const diagnose::OperationBaseline* baseline,
                        const diagnose::RecordingView& r);
nlohmann::json FindingJson(const diagnose::Finding& f, const diagnose::OperationBaseline* baseline,
                           const diagnose::RecordingView& r);

// The walk's last words: "200.3 ms in fsync on the critical path; normal GET /dispatch
// requests spend 0.4 ms; of it 180.0 ms BLOCK_DEVICE (normal 0 ns)...".
std::string WalkText(const diagnose::Finding& f, const diagnose::OperationBaseline* baseline);

}  // namespace causeway::report
