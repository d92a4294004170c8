// TEMPORARY stand-in for causeway-client: see stand_in/causeway/client.h.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include <causeway/client.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace causeway::client {
namespace {

struct TracerState {
  std::mutex mutex;
  TracerOptions options;
  bool initialized = false;
  bool shut_down = false;
  std::vector<Span> finished;
};

TracerState& State() {
  static TracerState state;
  return state;
}

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

uint64_t RandomNonZero() {
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   std::hash<std::thread::id>{}(std::this_thread::get_id()));
  uint64_t v = 0;
  while (v == 0) v = rng();
  return v;
}

std::optional<uint64_t> ParseHex64(std::string_view s) {
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return std::nullopt;  // W3C requires lower-case hex
    }
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

std::string FormatTraceparent(const SpanContext& c) {
  return fmt::format("00-{:016x}{:016x}-{:016x}-{:02x}", c.trace_id_high, c.trace_id_low, c.span_id,
                     c.flags);
}

std::optional<SpanContext> ParseTraceparent(std::string_view v) {
  // version(2) - trace id(32) - span id(16) - flags(2); later versions may append fields.
  if (v.size() < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-') return std::nullopt;
  if (v.substr(0, 2) == "ff" || (v.substr(0, 2) == "00" && v.size() != 55)) return std::nullopt;
  auto version = ParseHex64(v.substr(0, 2));
  auto high = ParseHex64(v.substr(3, 16));
  auto low = ParseHex64(v.substr(19, 16));
  auto span = ParseHex64(v.substr(36, 16));
  auto flags = ParseHex64(v.substr(53, 2));
  if (!version || !high || !low || !span || !flags) return std::nullopt;
  SpanContext c{*high, *low, *span, static_cast<uint8_t>(*flags)};
  if (!c.valid()) return std::nullopt;
  return c;
}

Span::Span(Tracer* tracer, std::string name, SpanContext context, uint64_t parent_span_id, int kind)
    : tracer_(tracer),
      name_(std::move(name)),
      context_(context),
      parent_span_id_(parent_span_id),
      kind_(kind),
      start_ns_(NowNs()) {}

Span::Span(Span&& o) noexcept
    : tracer_(std::exchange(o.tracer_, nullptr)),
      name_(std::move(o.name_)),
      context_(o.context_),
      parent_span_id_(o.parent_span_id_),
      kind_(o.kind_),
      start_ns_(o.start_ns_),
      end_ns_(o.end_ns_),
      attributes_(std::move(o.attributes_)) {}

Span& Span::operator=(Span&& o) noexcept {
  if (this != &o) {
    End();
    tracer_ = std::exchange(o.tracer_, nullptr);
    name_ = std::move(o.name_);
    context_ = o.context_;
    parent_span_id_ = o.parent_span_id_;
    kind_ = o.kind_;
    start_ns_ = o.start_ns_;
    end_ns_ = o.end_ns_;
    attributes_ = std::move(o.attributes_);
  }
  return *this;
}

Span::~Span() { End(); }

void Span::SetAttribute(std::string_view key, std::string_view value) {
  attributes_.push_back({std::string(key), Attribute::kString, std::string(value)});
}
void Span::SetAttribute(std::string_view key, int64_t value) {
  attributes_.push_back({std::string(key), Attribute::kInt, {}, value});
}
void Span::SetAttribute(std::string_view key, double value) {
  attributes_.push_back({std::string(key), Attribute::kDouble, {}, 0, value});
}
void Span::SetAttribute(std::string_view key, bool value) {
  attributes_.push_back({std::string(key), Attribute::kBool, {}, value ? 1 : 0});
}

void Span::End() {
  if (!tracer_) return;
  end_ns_ = NowNs();
  Tracer* tracer = std::exchange(tracer_, nullptr);
  tracer->Finish(std::move(*this));
}

Tracer& Tracer::Init(TracerOptions options) {
  TracerState& s = State();
  std::lock_guard lock(s.mutex);
  s.options = std::move(options);
  s.initialized = true;
  s.shut_down = false;
  return Get();
}

Tracer& Tracer::Get() {
  static Tracer tracer;
  return tracer;
}

Span Tracer::StartSpan(std::string_view operation, const SpanContext* parent, int kind) {
  SpanContext c;
  uint64_t parent_id = 0;
  if (parent && parent->valid()) {
    c.trace_id_high = parent->trace_id_high;
    c.trace_id_low = parent->trace_id_low;
    c.flags = parent->flags;
    parent_id = parent->span_id;
  } else {
    c.trace_id_high = RandomNonZero();
    c.trace_id_low = RandomNonZero();
    c.flags = 1;  // sampled: the stand-in records everything
  }
  c.span_id = RandomNonZero();
  return Span(this, std::string(operation), c, parent_id, kind);
}

void Tracer::Finish(Span&& span) {
  TracerState& s = State();
  std::lock_guard lock(s.mutex);
  if (s.initialized && !s.shut_down) s.finished.push_back(std::move(span));
}

void Tracer::Flush() {
  TracerState& s = State();
  std::lock_guard lock(s.mutex);
  if (!s.initialized || s.options.otlp_json_file.empty()) return;
  nlohmann::json spans = nlohmann::json::array();
  for (const Span& sp : s.finished) {
    nlohmann::json attributes = nlohmann::json::array();
    for (const auto& a : sp.attributes_) {
      nlohmann::json value;
      switch (a.type) {
        case Span::Attribute::kString:
          value["stringValue"] = a.string_value;
          break;
        case Span::Attribute::kInt:  // OTLP JSON writes 64-bit integers as strings
          value["intValue"] = std::to_string(a.int_value);
          break;
        case Span::Attribute::kDouble:
          value["doubleValue"] = a.double_value;
          break;
        case Span::Attribute::kBool:
          value["boolValue"] = a.int_value != 0;
          break;
      }
      attributes.push_back({{"key", a.key}, {"value", value}});
    }
    nlohmann::json j = {{"traceId", fmt::format("{:016x}{:016x}", sp.context_.trace_id_high,
                                                sp.context_.trace_id_low)},
                        {"spanId", fmt::format("{:016x}", sp.context_.span_id)},
                        {"name", sp.name_},
                        {"kind", sp.kind_},
                        {"startTimeUnixNano", std::to_string(sp.start_ns_)},
                        {"endTimeUnixNano", std::to_string(sp.end_ns_)},
                        {"attributes", attributes}};
    if (sp.parent_span_id_) j["parentSpanId"] = fmt::format("{:016x}", sp.parent_span_id_);
    spans.push_back(std::move(j));
  }
  nlohmann::json doc = {
      {"resourceSpans",
       {{{"resource",
          {{"attributes",
            {{{"key", "service.name"}, {"value", {{"stringValue", s.options.service_name}}}}}}}},
         {"scopeSpans",
          {{{"scope", {{"name", "causeway-client-stand-in"}, {"version", "0"}}},
            {"spans", spans}}}}}}}};
  // Write beside the target and rename, so a reader never sees half a file.
  const std::string tmp = s.options.otlp_json_file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump() << '\n';
    if (!out) {
      std::fprintf(stderr, "causeway-client (stand-in): cannot write %s\n", tmp.c_str());
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, s.options.otlp_json_file, ec);
  if (ec)
    std::fprintf(stderr, "causeway-client (stand-in): cannot write %s: %s\n",
                 s.options.otlp_json_file.c_str(), ec.message().c_str());
}

void Tracer::Shutdown() {
  Flush();
  TracerState& s = State();
  std::lock_guard lock(s.mutex);
  s.shut_down = true;
}

}  // namespace causeway::client
