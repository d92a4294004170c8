#include "analysis/clock_sync.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/sync_analysis.h"
#include "analysis/sync_transforms_json.h"
#include "ctf/reader/event_reader.h"
#include "kernel/kernel_layout.h"

namespace causeway::analysis {

std::map<std::string, ClockTransform> ClockSync::Transforms() const {
  std::map<std::string, ClockTransform> out;
  if (!applied) return out;
  for (const auto& h : hosts)
    if (h.connected && !h.transform.identity()) out[h.host] = h.transform;
  return out;
}

std::string ClockSync::Note() const {
  if (!applied) return {};
  std::string ref, synced, alone;
  for (const auto& h : hosts) {
    if (h.reference) {
      ref = h.host;
    } else if (h.connected) {
      synced +=
          fmt::format("{}{} (±{})", synced.empty() ? "" : ", ", h.host,
                      std::isinf(h.accuracy_ns)
                          ? std::string("unbounded")
                          : fmt::format("{:.1f} µs", static_cast<double>(h.accuracy_ns) / 1e3));
    } else {
      alone += (alone.empty() ? "" : ", ") + h.host;
    }
  }
  std::string note = fmt::format("Clocks synchronized from {}: {} mapped to {}", source,
                                 synced.empty() ? "no host" : synced, ref);
  if (matched_segments) note += fmt::format(" ({} segments matched)", matched_segments);
  if (!alone.empty())
    note += fmt::format("; NOT synchronized (no usable messages, own clock kept): {}", alone);
  return note;
}

StatusOr<ClockSync> ResolveClockSync(const std::vector<std::string>& paths,
                                     const ClockSyncOptions& options) {
  ClockSync out;
  if (options.mode == ClockSyncMode::kOff) return out;
  if (options.mode == ClockSyncMode::kFile) {
    ASSIGN_OR_RETURN(out.hosts, LoadTransformsFile(options.file));
    out.applied = true;
    out.source = options.file;
    return out;
  }
  std::set<std::string> hostnames;
  {
    // The hosts of the kernel traces: only they hold the TCP segments that link clocks.
    ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> r,
                     ctf::EventReader::Open(paths, kernel::KernelTracesOnly()));
    for (const auto& t : r->traces()) hostnames.insert(t->hostname());
  }
  if (!options.reference.empty() && !hostnames.count(options.reference)) {
    std::string known;
    for (const auto& h : hostnames) known += (known.empty() ? "" : ", ") + h;
    return InvalidArgument("Unknown reference host '" + options.reference + "' (hosts: " + known +
                           ")");
  }
  if (hostnames.size() < 2) return out;  // one clock: nothing to synchronize
  SyncOptions so;
  so.reference = options.reference;
  ASSIGN_OR_RETURN(SyncAnalysis s, AnalyzeSync(paths, so));
  out.applied = true;
  out.source = "the traces";
  out.hosts = std::move(s.hosts);
  out.matched_segments = s.fine.matched_across_hosts;
  return out;
}

}  // namespace causeway::analysis
