// causeway sync: the clock transform of every host from the TCP segments they exchanged.
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/sync_analysis.h"
#include "cli/commands.h"

namespace causeway::cli {

namespace {

nlohmann::json Number(long double v) {
  if (std::isinf(v)) return nullptr;  // unbounded: JSON has no infinity
  return static_cast<double>(v);
}

}  // namespace

Runner RegisterSync(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sync",
      "Synchronize the clocks of several hosts' traces from the TCP segments they exchanged "
      "(convex hull method): prints, per host, t_reference = slope * t + offset, its quality "
      "and accuracy bound, and per host pair the matched messages.");
  struct Opts {
    std::vector<std::string> paths;
    std::string reference;
    std::string format = "text";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("TRACE_DIR", o->paths,
                  "Trace directories (searched for CTF traces); one "
                  "host per env hostname")
      ->required();
  cmd->add_option("--reference", o->reference,
                  "Host whose clock the others are mapped to (default: first name in "
                  "lexical order)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return [o]() -> int {
    auto r = analysis::AnalyzeSync(o->paths, o->reference);
    if (!r.ok()) {
      std::fprintf(stderr, "causeway sync: %s\n", r.status().ToString().c_str());
      return r.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
    if (o->format == "json") {
      nlohmann::json hosts = nlohmann::json::array(), pairs = nlohmann::json::array();
      for (const auto& h : r->hosts)
        hosts.push_back({{"host", h.host},
                         {"reference", h.reference},
                         {"connected", h.connected},
                         {"via", h.via},
                         {"slope", Number(h.slope)},
                         {"offset_ns", Number(h.offset)},
                         {"accuracy_ns", Number(h.accuracy_ns)}});
      for (const auto& p : r->pairs)
        pairs.push_back({{"a", p.a},
                         {"b", p.b},
                         {"quality", sync::SyncQualityName(p.result.quality)},
                         {"a_to_b", p.result.a_to_b},
                         {"b_to_a", p.result.b_to_a},
                         {"slope", Number(p.result.slope)},
                         {"offset_ns", Number(p.result.offset)},
                         {"accuracy_ns", Number(p.result.accuracy_ns)},
                         {"kept_last_good", p.result.kept_last_good}});
      nlohmann::json j = {{"hosts", hosts},
                          {"pairs", pairs},
                          {"segments_sent", r->segments_sent},
                          {"segments_received", r->segments_received},
                          {"matched_across_hosts", r->matched_across_hosts},
                          {"matched_same_host", r->matched_same_host},
                          {"unmatched", r->unmatched}};
      std::printf("%s\n", j.dump(2).c_str());
      return 0;
    }
    std::printf("%-20s %-22s %-26s %-14s %s\n", "HOST", "SLOPE", "OFFSET (ns)", "ACCURACY", "VIA");
    for (const auto& h : r->hosts) {
      if (!h.connected) {
        std::printf("%-20s not connected to the reference: no usable messages\n", h.host.c_str());
        continue;
      }
      std::printf("%-20s %-22.15Lf %-26.1Lf %-14s %s\n", h.host.c_str(), h.slope, h.offset,
                  std::isinf(h.accuracy_ns)
                      ? "unbounded"
                      : fmt::format("{:.0f} ns", (double)h.accuracy_ns).c_str(),
                  h.reference ? "(reference)" : h.via.c_str());
    }
    std::printf("\n%-20s %-20s %-12s %8s %8s\n", "PAIR A", "PAIR B", "QUALITY", "A->B", "B->A");
    for (const auto& p : r->pairs)
      std::printf("%-20s %-20s %-12s %8llu %8llu\n", p.a.c_str(), p.b.c_str(),
                  std::string(sync::SyncQualityName(p.result.quality)).c_str(),
                  static_cast<unsigned long long>(p.result.a_to_b),
                  static_cast<unsigned long long>(p.result.b_to_a));
    std::printf(
        "\n%llu segments sent, %llu received, %llu matched across hosts, %llu on one "
        "host (loopback), %llu unmatched\n",
        static_cast<unsigned long long>(r->segments_sent),
        static_cast<unsigned long long>(r->segments_received),
        static_cast<unsigned long long>(r->matched_across_hosts),
        static_cast<unsigned long long>(r->matched_same_host),
        static_cast<unsigned long long>(r->unmatched));
    return 0;
  };
}

}  // namespace causeway::cli
