// The span model shared by the span readers and the request analysis (README.md).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace causeway::spans {

struct TraceId {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const TraceId& o) const { return high == o.high && low == o.low; }
  bool operator<(const TraceId& o) const { return high != o.high ? high < o.high : low < o.low; }
};

enum class SpanKind : uint8_t { kUnspecified, kInternal, kServer, kClient, kProducer, kConsumer };

// The empty name: a span's service and operation until it gets one.
inline const std::string kNoName;

// Service and operation names, each stored once: a span points to its names. A recording
// has a few dozen names against 10^5 spans, and a string per name per span would make a
// span 136 bytes instead of 80, each name copied again as it is parsed. Names stay where they are
// while the store lives (a deque does not move its elements).
class SpanNames {
 public:
  const std::string* Intern(std::string_view name) {
    if (name.empty()) return &kNoName;
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    const std::string* stored = &names_.emplace_back(name);
    index_.emplace(*stored, stored);
    return stored;
  }
  size_t size() const { return names_.size(); }

 private:
  std::deque<std::string> names_;
  absl::flat_hash_map<std::string_view, const std::string*> index_;  // views of names_
};

struct Span {
  TraceId trace;
  uint64_t span_id = 0;
  uint64_t parent_span_id = 0;  // 0: a root
  int64_t start_ns = 0;         // Unix ns (the kernel trace's time scale)
  int64_t end_ns = 0;
  // Never null: kNoName, or a name of the SpanSet's store (SpanSet::names) or a static one.
  const std::string* service = &kNoName;
  const std::string* operation = &kNoName;
  int32_t tid = 0;  // 0: unknown
  int32_t pid = 0;  // 0: unknown
  SpanKind kind = SpanKind::kUnspecified;
  bool synced = false;  // times and thread from user-space sync events
  // How the span got its thread and kernel-clock times (requests/span_placement.h).
  uint8_t placed_by = 0;
  // The connection's ports as the HTTP instrumentation records them (0: absent). A server
  // span's peer is its client (net.peer.port, network.peer.port, client.port) and its host
  // port the one it listens on (net.host.port, server.port): what ties a request that came
  // without trace context to the message the kernel saw. A client span's are the server's.
  uint16_t peer_port = 0;
  uint16_t host_port = 0;
};
static_assert(sizeof(Span) == 80);

// The span attributes the readers keep, by key (OTel's conventions, old and new names).
enum class SpanAttributeKey : uint8_t { kOther, kThread, kPeerPort, kHostPort };
inline SpanAttributeKey SpanAttributeOf(std::string_view key) {
  if (key == "thread.id" || key == "tid") return SpanAttributeKey::kThread;
  if (key == "net.peer.port" || key == "network.peer.port" || key == "client.port")
    return SpanAttributeKey::kPeerPort;
  if (key == "net.host.port" || key == "server.port") return SpanAttributeKey::kHostPort;
  return SpanAttributeKey::kOther;
}
// An integer attribute's value into the span; a port out of range is dropped. A key given
// twice: the last counts.
inline void SetSpanAttribute(SpanAttributeKey key, int64_t v, Span* s) {
  const uint16_t port = v > 0 && v <= 65535 ? static_cast<uint16_t>(v) : 0;
  switch (key) {
    case SpanAttributeKey::kThread:
      s->tid = static_cast<int32_t>(v);
      break;
    case SpanAttributeKey::kPeerPort:
      s->peer_port = port;
      break;
    case SpanAttributeKey::kHostPort:
      s->host_port = port;
      break;
    case SpanAttributeKey::kOther:
      break;
  }
}

// A thread working for a request between begin and end (causeway_ust:activate/deactivate).
struct Activation {
  TraceId trace;
  uint64_t span_id = 0;
  int32_t tid = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

struct SpanSet {
  std::vector<Span> spans;
  // The spans' names. Shared: a copy of the set, and the spans copied out of it, point into
  // the same store, which lives as long as the last set holding it.
  std::shared_ptr<SpanNames> names = std::make_shared<SpanNames>();
  std::vector<Activation> activations;
  absl::flat_hash_map<uint64_t, size_t> by_id;  // span id -> index in spans
  uint64_t duplicates = 0;                      // span ids seen twice (any trace), kept once
  uint64_t negative_times = 0;                  // spans starting before 1970: dropped
  uint64_t synced = 0;                          // spans whose times come from sync events
  // User-space events the tracer discarded (packet context events_discarded) in the traces
  // the sync events came from: a span whose sync events were among them keeps its own times.
  uint64_t sync_events_discarded = 0;
  // User-space traces damaged (their reader's error is in `warnings`): their sync events
  // after the damage are lost, and the spans that needed them keep their own times.
  uint64_t sync_traces_damaged = 0;
  // JSON Lines files whose last line was cut short (a writer that died mid-append): the
  // line is skipped, counted here and described in `warnings`.
  uint64_t truncated_lines = 0;
  std::vector<std::string> warnings;
  std::vector<std::string> files;  // span files read
};

std::string TraceIdHex(const TraceId& t);
std::string SpanIdHex(uint64_t id);
std::string_view SpanKindName(SpanKind k);

}  // namespace causeway::spans
