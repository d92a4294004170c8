#include "analysis/clock_sync.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/sync_analysis.h"
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

std::string TransformJsonFields(const ClockTransform& t) {
  return fmt::format("\"origin_ns\": {}, \"slope_q40\": {}, \"offset_ns\": {}", t.origin, t.slope,
                     t.offset);
}

StatusOr<std::vector<sync::HostTransform>> LoadTransformsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(fmt::format("Cannot read clock transforms: file={}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  auto fail = [&path](const std::string& where, const std::string& what) {
    return InvalidArgument(
        fmt::format("Cannot read clock transforms: file={}: {}: {} (expected the output of "
                    "`causeway sync --format json`)",
                    path, where, what));
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    return fail("", e.what());
  }
  if (!j.is_object() || !j.contains("hosts") || !j["hosts"].is_array())
    return fail("hosts", "missing or not an array");
  std::vector<sync::HostTransform> out;
  std::set<std::string> names;
  for (size_t i = 0; i < j["hosts"].size(); ++i) {
    const nlohmann::json& h = j["hosts"][i];
    const std::string where = fmt::format("hosts[{}]", i);
    if (!h.is_object() || !h.contains("host") || !h["host"].is_string())
      return fail(where + ".host", "missing or not a string");
    sync::HostTransform t;
    t.host = h["host"].get<std::string>();
    if (!names.insert(t.host).second) return fail(where + ".host", "host listed twice");
    t.reference = h.value("reference", false);
    t.connected = h.value("connected", false);
    t.via = h.value("via", "");
    if (h.contains("accuracy_ns") && h["accuracy_ns"].is_number())
      t.accuracy_ns = h["accuracy_ns"].get<double>();
    else
      t.accuracy_ns = INFINITY;
    if (t.connected) {
      if (!h.contains("transform") || !h["transform"].is_object())
        return fail(where + ".transform", "missing for a connected host");
      const nlohmann::json& x = h["transform"];
      for (const char* k : {"origin_ns", "slope_q40", "offset_ns"})
        if (!x.contains(k) || !x[k].is_number_integer())
          return fail(where + ".transform." + k, "missing or not an integer");
      t.transform.origin = x["origin_ns"].get<int64_t>();
      t.transform.slope = x["slope_q40"].get<int64_t>();
      t.transform.offset = x["offset_ns"].get<int64_t>();
      if (t.transform.slope <= 0)
        return fail(where + ".transform.slope_q40", "must be positive (clocks run forward)");
      t.slope = static_cast<long double>(t.transform.slope) / ClockTransform::kSlopeOne;
      t.offset = t.transform.offset - t.slope * t.transform.origin;
    }
    out.push_back(t);
  }
  return out;
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
