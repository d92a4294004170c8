// causeway-client: the application side of Causeway (client/README.md).
//
//   causeway::client::TracerOptions options;
//   options.service_name = "frontend";
//   options.otlp_json_file = "/tmp/spans/frontend.otlp.json";
//   auto& tracer = causeway::client::Tracer::Init(options);
//   causeway::client::Span span = tracer.StartSpan("GET /dispatch", parent_or_null, kServer);
//   causeway::client::InjectInto(span.context(), outgoing_headers);
//   ...
//   span.End();          // or let it go out of scope
//   tracer.Shutdown();   // writes the span files, closes the user-space trace
//
// Spans carry W3C trace context (traceparent), are exported as OTLP JSON (file or OTLP/HTTP)
// and Jaeger JSON, and, when a user-space trace directory is set (causeway record sets
// CAUSEWAY_TRACE_DIR for the program it runs), every span start and end is also written as a
// `jaeger_ust:start_span` / `jaeger_ust:end_span` event into a CTF trace on the same clock as
// the kernel trace, from lock-free per-thread buffers. Application tracepoints: tracepoint.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace causeway::client {

struct SpanContext {
  uint64_t trace_id_high = 0;
  uint64_t trace_id_low = 0;
  uint64_t span_id = 0;
  uint8_t flags = 0;  // W3C trace flags; 0x01 = sampled
  // W3C: an all-zero trace id or span id is invalid.
  bool valid() const { return (trace_id_high | trace_id_low) != 0 && span_id != 0; }
};

using Headers = std::map<std::string, std::string>;

// "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>".
std::string FormatTraceparent(const SpanContext& context);
// Rejects what W3C Trace Context rejects: wrong lengths or separators, upper-case or non-hex
// digits, version ff, a version-00 value with trailing data, all-zero ids.
std::optional<SpanContext> ParseTraceparent(std::string_view value);

inline constexpr std::string_view kTraceparentHeader = "traceparent";

// Works with any map from header name to value (std::map, std::multimap, httplib::Headers).
template <class Map>
void InjectInto(const SpanContext& context, Map& headers) {
  headers.erase(std::string(kTraceparentHeader));
  headers.emplace(std::string(kTraceparentHeader), FormatTraceparent(context));
}

template <class Map>
std::optional<SpanContext> ExtractFrom(const Map& headers) {
  auto it = headers.find(std::string(kTraceparentHeader));
  if (it == headers.end()) return std::nullopt;
  return ParseTraceparent(it->second);
}

inline void Inject(const SpanContext& context, Headers& headers) { InjectInto(context, headers); }
inline std::optional<SpanContext> Extract(const Headers& headers) { return ExtractFrom(headers); }

// OTLP's numbering.
enum SpanKind : int { kInternal = 1, kServer = 2, kClient = 3, kProducer = 4, kConsumer = 5 };

struct TracerOptions {
  std::string service_name = "unknown_service";
  // Finished spans as OTLP JSON Lines (the OTLP file format: one ExportTraceServiceRequest
  // of up to 1000 spans per line). Created empty by Init, then appended every
  // flush_interval_ms and at Flush(): the file grows with the program and the tracer keeps no
  // span it has written, so a long-running service's memory does not grow with its spans,
  // and a crash loses at most the last interval's spans.
  std::string otlp_json_file;
  // OTLP/HTTP JSON receiver, e.g. "http://127.0.0.1:4318" (the path /v1/traces is added when
  // the URL has none). Spans are posted in batches from a background thread.
  std::string otlp_endpoint;
  // Every finished span as a Jaeger query-API document, rewritten at each Flush(). One JSON
  // document cannot grow by appending, so with this set the tracer keeps every span since
  // Init in memory: for tests and short runs.
  std::string jaeger_json_file;
  // User-space CTF trace: written to <ust_trace_dir>/ust/<service>-<pid>/ (the process name
  // when service_name is unset). Empty: taken
  // from CAUSEWAY_TRACE_DIR when set, otherwise no user-space trace.
  std::string ust_trace_dir;
  // Tracepoints whose events go into the user-space trace, as comma-separated globs over
  // "provider:name" (e.g. "demo:*"). Empty: taken from CAUSEWAY_TRACEPOINTS (none if unset).
  std::string record_tracepoints;
  // Per-thread buffer of the user-space trace (a power of 2, ≥ 4 KiB). 0: from
  // CAUSEWAY_UST_BUFFER_BYTES, else 256 KiB. A full buffer drops (and counts) events.
  uint32_t thread_buffer_bytes = 0;
  // How often the background thread drains the buffers, appends to the OTLP file and posts
  // OTLP batches.
  uint32_t flush_interval_ms = 100;
  // A span lasting at least this long asks the recorder for a snapshot (once per second at
  // most). 0: from CAUSEWAY_TRIGGER_LATENCY_NS, else never. Needs CAUSEWAY_CONTROL_SOCKET.
  uint64_t trigger_latency_ns = 0;
};

// Counted since the last Init().
struct TracerStats {
  uint64_t spans_started = 0;
  uint64_t spans_finished = 0;
  uint64_t ust_events_written = 0;  // into the CTF trace
  uint64_t ust_events_lost = 0;     // dropped on full thread buffers (also in the trace)
  uint64_t otlp_posts_failed = 0;
  uint64_t snapshots_requested = 0;
  uint64_t span_file_errors = 0;   // failed creations of or appends to the OTLP file
  uint64_t spans_not_in_file = 0;  // finished spans an OTLP file error kept out of the file
};

class Tracer;

class Span {
 public:
  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span();  // End()s

  const SpanContext& context() const { return context_; }
  uint64_t parent_span_id() const { return parent_span_id_; }
  void SetAttribute(std::string_view key, std::string_view value);
  void SetAttribute(std::string_view key, const char* value) {
    SetAttribute(key, std::string_view(value));
  }
  void SetAttribute(std::string_view key, int64_t value);
  void SetAttribute(std::string_view key, double value);
  void SetAttribute(std::string_view key, bool value);
  // Records the end (and its user-space event) and hands the span to the tracer; later
  // calls do nothing.
  void End();

 private:
  friend class Tracer;
  friend struct SpanAccess;
  struct Attribute {
    std::string key;
    enum Type : uint8_t { kString, kInt, kDouble, kBool } type;
    std::string string_value;
    int64_t int_value = 0;
    double double_value = 0;
  };
  Span(Tracer* tracer, std::string name, SpanContext context, uint64_t parent_span_id, int kind,
       uint64_t start_raw);

  Tracer* tracer_ = nullptr;  // null once ended or moved from
  std::string name_;
  SpanContext context_;
  uint64_t parent_span_id_ = 0;
  int kind_ = kInternal;
  uint64_t start_raw_ = 0;  // raw clock (see client/raw_clock.h)
  uint64_t end_raw_ = 0;
  std::vector<Attribute> attributes_;
};

class Tracer {
 public:
  // Starts (or restarts, after Shutdown) the process's tracer. Problems (an unwritable
  // trace directory, say) are printed to stderr once; spans still work.
  static Tracer& Init(TracerOptions options);
  static Tracer& Get();

  // A child of `parent` when it is valid, else the root of a new trace.
  Span StartSpan(std::string_view operation, const SpanContext* parent = nullptr,
                 int kind = kInternal);
  // Writes the span files, drains the thread buffers into the user-space trace and posts
  // pending OTLP batches, now.
  void Flush();
  // Flush, then stop the background thread and close the user-space trace. Spans ending
  // later are dropped. Idempotent.
  void Shutdown();
  TracerStats stats() const;

 private:
  friend class Span;
  void Finish(Span&& span);
};

// Marks the current thread as working for the request `context` until destroyed (thread
// pools, queues, callbacks): writes `causeway_ust:activate` / `causeway_ust:deactivate`
// user-space events, so that the request's critical path follows it onto this thread.
class ScopedActivation {
 public:
  explicit ScopedActivation(const SpanContext& context);
  ~ScopedActivation();
  ScopedActivation(const ScopedActivation&) = delete;
  ScopedActivation& operator=(const ScopedActivation&) = delete;

 private:
  SpanContext context_;
};

// Asks the recorder running this process (CAUSEWAY_CONTROL_SOCKET) to write a snapshot.
// Returns the recorder's reply ("ok <path>" or "error <message>"), or an explanation when
// there is no recorder to ask.
std::string TriggerSnapshot(std::string_view reason);

}  // namespace causeway::client
