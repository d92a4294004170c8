#include "ctf/reader/overlapping_traces.h"

#include <filesystem>

#include <fmt/format.h>

namespace causeway::ctf {

std::optional<std::string> OverlappingTraces(const EventReader& reader,
                                             const std::vector<StreamStats>& streams) {
  const auto& traces = reader.traces();
  for (size_t i = 0; i < streams.size(); ++i) {
    const StreamStats& a = streams[i];
    if (a.cpu < 0 || a.events == 0) continue;
    for (size_t j = i + 1; j < streams.size(); ++j) {
      const StreamStats& b = streams[j];
      if (b.trace_index == a.trace_index || b.cpu != a.cpu || b.events == 0) continue;
      if (traces[a.trace_index]->hostname() != traces[b.trace_index]->hostname()) continue;
      if (a.last_ts < b.first_ts || b.last_ts < a.first_ts) continue;
      const std::string& x = traces[a.trace_index]->dir();
      const std::string& y = traces[b.trace_index]->dir();
      return fmt::format(
          "The traces {} and {} are of one host ({}) and cover the same time on CPU {}: "
          "several snapshots of one recording? Their events would be counted twice; give one "
          "snapshot's folder (e.g. {})",
          x, y, traces[a.trace_index]->hostname(), a.cpu,
          std::filesystem::path(x).parent_path().string());
    }
  }
  return std::nullopt;
}

}  // namespace causeway::ctf
