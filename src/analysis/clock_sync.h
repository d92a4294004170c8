// ClockSync: the clock transforms a multi-host analysis applies, from the traces themselves
// (AnalyzeSync, automatic when the traces hold more than one host), from a file written by
// `causeway sync --format json` (analysis/sync_transforms_json.h), or none.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/clock_transform.h"
#include "base/status.h"
#include "sync/host_sync.h"

namespace causeway::analysis {

enum class ClockSyncMode { kAuto, kOff, kFile };

struct ClockSyncOptions {
  ClockSyncMode mode = ClockSyncMode::kAuto;
  std::string file;       // kFile
  std::string reference;  // kAuto: the reference host (empty: first name in lexical order)
};

struct ClockSync {
  bool applied = false;
  std::string source;  // "the traces" or the file's path
  std::vector<sync::HostTransform> hosts;
  uint64_t matched_segments = 0;  // kAuto: segments matched across hosts

  // Transforms of the connected hosts, by host name (what the readers apply).
  std::map<std::string, ClockTransform> Transforms() const;
  // One line for a report: which hosts were synchronized, how well, and which were not.
  std::string Note() const;
};

StatusOr<ClockSync> ResolveClockSync(const std::vector<std::string>& paths,
                                     const ClockSyncOptions& options);

}  // namespace causeway::analysis
