// The span model shared by the span readers and the request analysis (README.md).
#pragma once

#include <cstdint>
#include <string>
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

struct Span {
  TraceId trace;
  uint64_t span_id = 0;
  uint64_t parent_span_id = 0;  // 0: a root
  std::string service;
  std::string operation;
  SpanKind kind = SpanKind::kUnspecified;
  int64_t start_ns = 0;  // Unix ns (the kernel trace's time scale)
  int64_t end_ns = 0;
  int32_t tid = 0;      // 0: unknown
  int32_t pid = 0;      // 0: unknown
  bool synced = false;  // times and thread from user-space sync events
};

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
  std::vector<Activation> activations;
  absl::flat_hash_map<uint64_t, size_t> by_id;  // span id -> index in spans
  uint64_t duplicates = 0;                      // spans seen twice, kept once
  uint64_t synced = 0;                          // spans whose times come from sync events
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
