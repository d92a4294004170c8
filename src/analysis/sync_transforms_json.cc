#include "analysis/sync_transforms_json.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace causeway::analysis {
namespace {

nlohmann::json Number(long double v) {
  if (std::isinf(v)) return nullptr;  // unbounded: JSON has no infinity
  return static_cast<double>(v);
}

nlohmann::json StepJson(const SyncStep& s) {
  return nlohmann::json{{"events_read", s.events_read},
                        {"segments_sent", s.segments_sent},
                        {"segments_received", s.segments_received},
                        {"matched_across_hosts", s.matched_across_hosts},
                        {"matched_same_host", s.matched_same_host},
                        {"expired", s.expired},
                        {"unmatched", s.unmatched},
                        {"peak_pending", s.peak_pending},
                        {"peak_pending_bytes", s.peak_pending_bytes},
                        {"expiry_ns", s.expiry_ns}};
}

}  // namespace

std::string SyncAnalysisJson(const SyncAnalysis& r) {
  nlohmann::json hosts = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (const auto& h : r.hosts)
    hosts.push_back({{"host", h.host},
                     {"reference", h.reference},
                     {"connected", h.connected},
                     {"via", h.via},
                     {"slope", Number(h.slope)},
                     {"offset_ns", Number(h.offset)},
                     {"accuracy_ns", Number(h.accuracy_ns)}});
  for (size_t i = 0; i < r.hosts.size(); ++i)
    if (r.hosts[i].connected)
      hosts[i]["transform"] = {{"origin_ns", r.hosts[i].transform.origin},
                               {"slope_q40", r.hosts[i].transform.slope},
                               {"offset_ns", r.hosts[i].transform.offset}};
  for (const auto& p : r.pairs)
    pairs.push_back({{"a", p.a},
                     {"b", p.b},
                     {"quality", sync::SyncQualityName(p.result.quality)},
                     {"a_to_b", p.result.a_to_b},
                     {"b_to_a", p.result.b_to_a},
                     {"slope", Number(p.result.slope)},
                     {"offset_ns", Number(p.result.offset)},
                     {"accuracy_ns", Number(p.result.accuracy_ns)},
                     {"kept_last_good", p.result.kept_last_good}});
  const SyncStep& f = r.fine;
  nlohmann::json j = {{"hosts", hosts},
                      {"pairs", pairs},
                      {"segments_sent", f.segments_sent},
                      {"segments_received", f.segments_received},
                      {"matched_across_hosts", f.matched_across_hosts},
                      {"matched_same_host", f.matched_same_host},
                      {"unmatched", f.unmatched},
                      {"expired", f.expired},
                      {"two_step", r.two_step},
                      {"fine_step", StepJson(f)}};
  if (r.two_step) {
    j["coarse_step"] = StepJson(r.coarse);
    j["coarse_connected"] = r.coarse_connected;
  }
  return j.dump(2);
}

StatusOr<std::vector<sync::HostTransform>> ParseTransformsJson(std::string_view text,
                                                               const std::string& source) {
  auto fail = [&source](const std::string& where, const std::string& what) {
    return InvalidArgument(
        fmt::format("Cannot read clock transforms: file={}: {}: {} (expected the output of "
                    "`causeway sync --format json`)",
                    source, where, what));
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
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

StatusOr<std::vector<sync::HostTransform>> LoadTransformsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(fmt::format("Cannot read clock transforms: file={}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseTransformsJson(ss.str(), path);
}

}  // namespace causeway::analysis
