// TEMPORARY stand-in for causeway-client (include/causeway/client.h), built only while the
// real library is not part of the build (see examples/demo/CMakeLists.txt). It implements the
// part of the agreed API that the demo uses, with the agreed names, so that switching to the
// real library changes no demo code: spans kept in memory and written as OTLP JSON to
// `otlp_json_file` on Flush/Shutdown, and W3C traceparent propagation. `otlp_endpoint`,
// `jaeger_json_file` and `ust_trace_dir` are accepted and ignored. Delete this folder when
// causeway-client lands.
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
  uint8_t flags = 0;
  // W3C: an all-zero trace id or span id is invalid.
  bool valid() const { return (trace_id_high | trace_id_low) != 0 && span_id != 0; }
};

using Headers = std::map<std::string, std::string>;

// "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>".
std::string FormatTraceparent(const SpanContext& context);
std::optional<SpanContext> ParseTraceparent(std::string_view value);

// Works with any map from header name to value (std::map, httplib::Headers' multimap).
template <class Map>
void InjectInto(const SpanContext& context, Map& headers) {
  headers.erase("traceparent");
  headers.emplace("traceparent", FormatTraceparent(context));
}

template <class Map>
std::optional<SpanContext> ExtractFrom(const Map& headers) {
  auto it = headers.find("traceparent");
  if (it == headers.end()) return std::nullopt;
  return ParseTraceparent(it->second);
}

struct TracerOptions {
  std::string service_name;
  std::string otlp_json_file;
  std::string otlp_endpoint;
  std::string jaeger_json_file;
  std::string ust_trace_dir;
};

class Tracer;

class Span {
 public:
  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span();

  const SpanContext& context() const { return context_; }
  void SetAttribute(std::string_view key, std::string_view value);
  void SetAttribute(std::string_view key, int64_t value);
  void SetAttribute(std::string_view key, double value);
  void SetAttribute(std::string_view key, bool value);
  // Records the end time and hands the span to the tracer; later calls do nothing.
  void End();

 private:
  friend class Tracer;
  struct Attribute {
    std::string key;
    enum Type { kString, kInt, kDouble, kBool } type;
    std::string string_value;
    int64_t int_value = 0;
    double double_value = 0;
  };
  Span(Tracer* tracer, std::string name, SpanContext context, uint64_t parent_span_id, int kind);

  Tracer* tracer_ = nullptr;  // null once ended or moved from
  std::string name_;
  SpanContext context_;
  uint64_t parent_span_id_ = 0;
  int kind_ = 1;
  uint64_t start_ns_ = 0;
  uint64_t end_ns_ = 0;
  std::vector<Attribute> attributes_;
};

class Tracer {
 public:
  static Tracer& Init(TracerOptions options);
  static Tracer& Get();

  // kind: 1 internal, 2 server, 3 client (OTLP's numbering).
  Span StartSpan(std::string_view operation, const SpanContext* parent = nullptr, int kind = 1);
  // Writes every span ended so far to otlp_json_file (the whole file, replaced atomically).
  void Flush();
  // Flush, then drop spans that end later.
  void Shutdown();

 private:
  friend class Span;
  void Finish(Span&& span);
};

}  // namespace causeway::client
