// causeway sync: the clock transform of every host from the TCP segments they exchanged.
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "analysis/sync_analysis.h"
#include "analysis/sync_transforms_json.h"
#include "cli/commands.h"

namespace causeway::cli {

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
    bool one_step = false;
    double expiry_s = 10;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("TRACE_DIR", o->paths,
                  "Trace directories (searched for CTF traces); one "
                  "host per env hostname")
      ->required();
  cmd->add_option("--reference", o->reference,
                  "Host whose clock the others are mapped to (default: first name in "
                  "lexical order)");
  cmd->add_option("--format", o->format,
                  "text or json (the json is what `--transforms FILE` of critpath, threads and "
                  "requests reads)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--one-step", o->one_step,
                "One pass on the raw timestamps, keeping every unmatched segment (by default: "
                "the two-step procedure, whose memory stays bounded when one trace is read far "
                "ahead of another)");
  cmd->add_option("--expiry", o->expiry_s,
                  "Two-step: seconds after which an unmatched segment of the coarse step is "
                  "dropped; must exceed the network delay plus the difference between the "
                  "traces' start times")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  causeway sync host-a/kernel host-b/kernel\n"
      "  causeway sync --format json TRACES > clocks.json\n"
      "  causeway critpath TRACES --tid 1234 --transforms clocks.json");
  return [o]() -> int {
    analysis::SyncOptions so;
    so.reference = o->reference;
    so.two_step = !o->one_step;
    so.coarse_expiry_ns = static_cast<int64_t>(o->expiry_s * 1e9);
    auto r = analysis::AnalyzeSync(o->paths, so);
    if (!r.ok()) {
      std::fprintf(stderr, "causeway sync: %s\n", r.status().ToString().c_str());
      return r.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
    if (o->format == "json") {
      std::printf("%s\n", analysis::SyncAnalysisJson(*r).c_str());
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
    const analysis::SyncStep& f = r->fine;
    std::printf(
        "\n%llu segments sent, %llu received, %llu matched across hosts, %llu on one "
        "host (loopback), %llu unmatched, %llu expired\n",
        static_cast<unsigned long long>(f.segments_sent),
        static_cast<unsigned long long>(f.segments_received),
        static_cast<unsigned long long>(f.matched_across_hosts),
        static_cast<unsigned long long>(f.matched_same_host),
        static_cast<unsigned long long>(f.unmatched), static_cast<unsigned long long>(f.expired));
    if (r->two_step)
      std::printf(
          "Two-step: the coarse step read %llu events (%s), at most %llu segments waiting; the "
          "fine step at most %llu\n",
          static_cast<unsigned long long>(r->coarse.events_read),
          r->coarse_connected ? "every host linked" : "NOT every host linked: fine step kept all",
          static_cast<unsigned long long>(r->coarse.peak_pending),
          static_cast<unsigned long long>(f.peak_pending));
    return 0;
  };
}

}  // namespace causeway::cli
