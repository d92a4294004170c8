// What `causeway requests`, `request` and `export` share: the flags that say where the spans
// are and how the clocks are synchronized, and the request analysis run with them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/recording_analysis.h"
#include "base/status.h"
#include "cli/kernel_load.h"
#include "state/state_store.h"

namespace causeway::cli {

struct RecordingFlags {
  std::vector<std::string> spans;
  std::string host;
  ClockSyncFlags sync;
  IndexFlags index;  // added by the commands that read the index (AddIndexFlags)
};
// --spans, the clock sync flags and --host.
void AddRecordingFlags(CLI::App* cmd, RecordingFlags* flags);

// The analysis options the flags ask for: `display`'s progress line and clock note, and the
// span files' warnings on stderr. `display` must outlive the analysis.
analysis::RecordingAnalysisOptions RecordingOptions(const RecordingFlags& flags, bool keep_paths,
                                                    KernelAnalysisDisplay* display);

// analysis::AnalyzeRecording with a progress line, the clock note and the span files'
// warnings on stderr. `keep_paths`: whether each request's critical path is kept (the HTML
// report, one request's report and the export draw them; the listings do not).
StatusOr<analysis::RecordingAnalysis> LoadRecording(const std::vector<std::string>& traces,
                                                    const RecordingFlags& flags, bool keep_paths);

// The state store of the recording's index (system calls, page cache, ...), when it is
// valid; else, with `build_when_missing`, builds the index first (a note on stderr says so,
// since it reads the trace once more) and opens it. Null when there is none (with a note
// naming the reason, unless there is simply no index and none is to be built), or with
// --no-index. `command` prefixes the notes.
std::unique_ptr<state::StateStore> OpenRecordingStore(const std::vector<std::string>& traces,
                                                      const RecordingFlags& flags,
                                                      const char* command, bool build_when_missing);

}  // namespace causeway::cli
