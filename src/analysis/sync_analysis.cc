#include "analysis/sync_analysis.h"

#include <deque>
#include <map>
#include <tuple>

#include "ctf/reader/event_reader.h"
#include "kernel/kernel_layout.h"

namespace causeway::analysis {

StatusOr<SyncAnalysis> AnalyzeSync(const std::vector<std::string>& paths,
                                   const std::string& reference) {
  ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader, ctf::EventReader::Open(paths));
  std::map<std::string, uint32_t> host_ids;
  std::vector<std::string> host_names;
  std::vector<uint32_t> host_of_trace;
  for (const auto& t : reader->traces()) {
    auto [it, added] = host_ids.emplace(t->hostname(), static_cast<uint32_t>(host_names.size()));
    if (added) host_names.push_back(t->hostname());
    host_of_trace.push_back(it->second);
  }
  if (!reference.empty() && !host_ids.count(reference)) {
    std::string known;
    for (const auto& h : host_names) known += (known.empty() ? "" : ", ") + h;
    return InvalidArgument("Unknown reference host '" + reference + "' (hosts: " + known + ")");
  }
  const kernel::KernelLayout layout = kernel::KernelLayout::Build(*reader, host_of_trace, {});

  // Segments waiting for their other half. Either half can come first: the reader merges
  // on raw timestamps, and an unsynchronized receiver may look earlier than the sender.
  struct Half {
    uint32_t host;
    int64_t ts;
  };
  using Key = std::tuple<uint64_t, uint64_t, uint32_t>;
  std::map<Key, std::deque<Half>> sends, recvs;
  SyncAnalysis out;
  sync::HostSync hs;
  std::vector<bool> seen(host_names.size(), false);
  kernel::KernelEvent ke;
  while (const ctf::Event* e = reader->Next()) {
    if (!layout.Convert(*e, &ke)) continue;
    if (!seen[ke.host]) {
      seen[ke.host] = true;
      hs.AddHost(host_names[ke.host], static_cast<int64_t>(ke.ts));
    }
    const bool send = ke.kind == kernel::Kind::kPacketSend;
    if (!send && ke.kind != kernel::Kind::kPacketRecv) continue;
    (send ? out.segments_sent : out.segments_received)++;
    const Key key{ke.seq, ke.ack_seq, ke.tcp_flags};
    auto& others = (send ? recvs : sends)[key];
    bool matched = false;
    for (auto it = others.begin(); it != others.end(); ++it) {
      if (it->host == ke.host) {  // loopback: both halves on one host, nothing to learn
        others.erase(it);
        ++out.matched_same_host;
        matched = true;
        break;
      }
      if (send) {
        hs.AddMessage(host_names[ke.host], static_cast<int64_t>(ke.ts), host_names[it->host],
                      it->ts);
      } else {
        hs.AddMessage(host_names[it->host], it->ts, host_names[ke.host],
                      static_cast<int64_t>(ke.ts));
      }
      others.erase(it);
      ++out.matched_across_hosts;
      matched = true;
      break;
    }
    if (!matched) (send ? sends : recvs)[key].push_back(Half{ke.host, static_cast<int64_t>(ke.ts)});
  }
  if (!reader->status().ok()) return reader->status();
  for (const auto& [k, v] : sends) out.unmatched += v.size();
  for (const auto& [k, v] : recvs) out.unmatched += v.size();
  for (uint32_t h = 0; h < host_names.size(); ++h)
    if (!seen[h]) hs.AddHost(host_names[h], 0);
  out.hosts = hs.Solve(reference);
  out.pairs = hs.Pairs();
  return out;
}

}  // namespace causeway::analysis
