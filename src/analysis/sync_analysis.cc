#include "analysis/sync_analysis.h"

#include <algorithm>
#include <functional>
#include <map>

#include "ctf/reader/event_reader.h"
#include "kernel/kernel_layout.h"
#include "sync/packet_matcher.h"

namespace causeway::analysis {
namespace {

struct Hosts {
  std::vector<std::string> names;       // by host id
  std::map<std::string, uint32_t> ids;  // by name
  std::vector<uint32_t> of_trace;       // host id of each trace, in reader order
  std::vector<std::string> trace_dirs;
};

using TransformFn = std::function<ClockTransform(const ctf::Trace&)>;

// One pass over the traces, merged with `transform`. `stop` (may be empty) is asked every
// so often whether the pass can end early.
StatusOr<SyncStep> Pass(const std::vector<std::string>& paths, const Hosts& hosts,
                        const TransformFn& transform, int64_t expiry_ns, sync::HostSync* hs,
                        const std::function<bool()>& stop) {
  // Kernel traces only, as when the hosts were listed (hosts.of_trace is in that order).
  ctf::ReaderOptions ro = kernel::KernelTracesOnly();
  ro.clock_transform = transform;
  ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader, ctf::EventReader::Open(paths, ro));
  const kernel::KernelLayout layout = kernel::KernelLayout::Build(*reader, hosts.of_trace);
  sync::PacketMatcher matcher(hs, hosts.names, expiry_ns);
  SyncStep step;
  step.expiry_ns = expiry_ns;
  kernel::KernelEvent ke;
  uint64_t checked_at = 0;
  while (const ctf::Event* e = reader->Next()) {
    ++step.events_read;
    if (!layout.Convert(*e, &ke)) continue;
    const bool send = ke.kind == kernel::Kind::kPacketSend;
    if (!send && ke.kind != kernel::Kind::kPacketRecv) continue;
    (send ? step.segments_sent : step.segments_received)++;
    // The hulls need the host's own clock: the timestamp before the merge's transform.
    const auto host_ts =
        static_cast<int64_t>(e->trace->CyclesToNs(e->stream_plan->clock, e->cycles));
    matcher.Add(send, ke.host, sync::SegmentKey{ke.seq, ke.ack_seq, ke.tcp_flags}, host_ts, ke.ts);
    if (stop && matcher.matched_across_hosts() >= checked_at + 256) {
      checked_at = matcher.matched_across_hosts();
      if (stop()) break;
    }
  }
  if (!reader->status().ok()) return reader->status();
  step.matched_across_hosts = matcher.matched_across_hosts();
  step.matched_same_host = matcher.matched_same_host();
  step.expired = matcher.expired();
  step.unmatched = matcher.pending();
  step.peak_pending = matcher.peak_pending();
  step.peak_pending_bytes = matcher.peak_bytes();
  return step;
}

// The first timestamp of each host (its earliest trace's first event), raw.
StatusOr<std::vector<int64_t>> HostStarts(const Hosts& hosts) {
  std::vector<int64_t> start(hosts.names.size(), INT64_MAX);
  for (size_t t = 0; t < hosts.trace_dirs.size(); ++t) {
    ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> r,
                     ctf::EventReader::Open({hosts.trace_dirs[t]}));
    const ctf::Event* e = r->Next();
    if (!r->status().ok()) return r->status();
    if (e) {
      int64_t& s = start[hosts.of_trace[t]];
      s = std::min(s, static_cast<int64_t>(e->timestamp));
    }
  }
  return start;
}

}  // namespace

StatusOr<SyncAnalysis> AnalyzeSync(const std::vector<std::string>& paths,
                                   const SyncOptions& options) {
  Hosts hosts;
  {
    // The kernel traces: only they hold TCP segments (user-space traces would be decoded
    // for nothing in every pass).
    ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader,
                     ctf::EventReader::Open(paths, kernel::KernelTracesOnly()));
    for (const auto& t : reader->traces()) {
      auto [it, added] =
          hosts.ids.emplace(t->hostname(), static_cast<uint32_t>(hosts.names.size()));
      if (added) hosts.names.push_back(t->hostname());
      hosts.of_trace.push_back(it->second);
      hosts.trace_dirs.push_back(t->dir());
    }
  }
  if (hosts.names.empty()) {
    std::string dirs;
    for (const std::string& p : paths) dirs += (dirs.empty() ? "" : ", ") + p;
    return InvalidArgument("No kernel trace in " + dirs +
                           ": clocks are synchronized from the TCP segments kernel traces hold");
  }
  if (!options.reference.empty() && !hosts.ids.count(options.reference)) {
    std::string known;
    for (const auto& h : hosts.names) known += (known.empty() ? "" : ", ") + h;
    return InvalidArgument("Unknown reference host '" + options.reference + "' (hosts: " + known +
                           ")");
  }
  const std::string reference = !options.reference.empty()
                                    ? options.reference
                                    : *std::min_element(hosts.names.begin(), hosts.names.end());

  SyncAnalysis out;
  out.two_step = options.two_step && hosts.names.size() > 1;
  // Every host is declared up front, anchored at its first timestamp (the transforms'
  // origin must lie inside the trace for their fixed-point slope to be exact).
  ASSIGN_OR_RETURN(std::vector<int64_t> start, HostStarts(hosts));
  auto declare = [&](sync::HostSync* s) {
    for (size_t h = 0; h < hosts.names.size(); ++h)
      s->AddHost(hosts.names[h], start[h] == INT64_MAX ? 0 : start[h]);
  };
  sync::HostSync hs;
  declare(&hs);
  if (!out.two_step) {
    ASSIGN_OR_RETURN(out.fine, Pass(paths, hosts, {}, 0, &hs, {}));
  } else {
    // Step 1: traces aligned at their start, expiry, stop once linked.
    const int64_t ref_start = start[hosts.ids.at(reference)];
    auto shift = [&](const ctf::Trace& t) {
      ClockTransform c;
      const int64_t s = start[hosts.ids.at(t.hostname())];
      if (s != INT64_MAX && ref_start != INT64_MAX) c.offset = -(s - ref_start);
      return c;
    };
    sync::HostSync coarse;
    declare(&coarse);
    ASSIGN_OR_RETURN(out.coarse, Pass(paths, hosts, shift, options.coarse_expiry_ns, &coarse, [&] {
                       return coarse.ConnectedWithin(options.coarse_precision);
                     }));
    out.coarse_connected = coarse.ConnectedWithin(options.coarse_precision);
    // Step 2: merged in the coarse synchronized order. Hosts the coarse step did not
    // reach keep the shift, and then nothing may expire.
    std::map<std::string, ClockTransform> approx;
    for (const auto& h : coarse.Solve(reference))
      if (h.connected) approx[h.host] = h.transform;
    auto synced = [&](const ctf::Trace& t) {
      auto it = approx.find(t.hostname());
      return it != approx.end() ? it->second : shift(t);
    };
    ASSIGN_OR_RETURN(out.fine, Pass(paths, hosts, synced,
                                    out.coarse_connected ? options.fine_expiry_ns : 0, &hs, {}));
  }
  out.hosts = hs.Solve(reference);
  out.pairs = hs.Pairs();
  return out;
}

}  // namespace causeway::analysis
