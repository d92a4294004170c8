#include "demo_tracing.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "pivot/agent.h"
#include "pivot/baggage_codec.h"

namespace causeway::demo {
namespace {

// Set once before any request is served, read by every handler thread.
std::atomic<bool> g_enabled{false};
std::string g_service;  // set before any thread starts
std::unique_ptr<pivot::Agent> g_agent;

}  // namespace

client::Tracepoint<std::string_view, int64_t> tp_client_request("demo", "client_request",
                                                                {"client", "customer"});
client::Tracepoint<std::string_view, std::string_view> tp_request("demo", "request",
                                                                  {"service", "operation"});
client::Tracepoint<std::string_view, std::string_view, int64_t> tp_bytes_read("demo", "bytes_read",
                                                                              {"service", "from",
                                                                               "bytes"});
client::Tracepoint<std::string_view, int64_t> tp_bytes_written("demo", "bytes_written",
                                                               {"service", "bytes"});
client::Tracepoint<std::string_view, double> tp_driver_chosen("demo", "driver_chosen",
                                                              {"driver", "eta_s"});

void StartPivot(std::string_view service) {
  g_service = std::string(service);
  auto agent = pivot::StartAgentFromEnvironment(service);
  if (!agent.ok()) {
    fmt::print(stderr, "causeway-demo {}: running without Pivot Tracing: {}\n", service,
               agent.status().ToString());
    return;
  }
  g_agent = std::move(*agent);
}

void StopPivot() { g_agent.reset(); }

std::string_view ServiceName() { return g_service; }

std::unique_ptr<pivot::BaggageScope> ScopeIncomingBaggage(const httplib::Request& req) {
  // Always a scope, even without the header: a pooled thread must not keep the baggage of
  // the request it served before.
  const auto it = req.headers.find(std::string(pivot::kBaggageHeader));
  return std::make_unique<pivot::BaggageScope>(
      it == req.headers.end() ? nullptr : pivot::BaggageFromHeader(it->second));
}

void InjectBaggage(httplib::Headers& headers) {
  if (std::string v = pivot::CurrentBaggageHeader(); !v.empty()) {
    headers.emplace(std::string(pivot::kBaggageHeader), std::move(v));
  }
}

Status StartTracing(std::string_view service, const std::string& spans_dir) {
  if (spans_dir.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(spans_dir, ec);
  if (ec)
    return IoError(fmt::format("cannot create spans directory {}: {}", spans_dir, ec.message()));
  g_service = std::string(service);
  client::TracerOptions options;
  options.service_name = std::string(service);
  options.otlp_json_file = fmt::format("{}/{}.otlp.json", spans_dir, service);
  if (const char* dir = std::getenv("CAUSEWAY_TRACE_DIR"); dir && *dir) options.ust_trace_dir = dir;
  client::Tracer::Init(std::move(options));
  g_enabled = true;
  return Status::Ok();
}

void StopTracing() {
  if (!g_enabled.exchange(false)) return;
  client::Tracer::Get().Shutdown();
}

bool TracingEnabled() { return g_enabled.load(std::memory_order_relaxed); }

void DemoSpan::SetString(std::string_view key, std::string_view value) {
  if (span_) span_->SetAttribute(key, value);
}

void DemoSpan::SetInt(std::string_view key, int64_t value) {
  if (span_) span_->SetAttribute(key, value);
}

ParentContext DemoSpan::context() const {
  if (!span_) return std::nullopt;
  return span_->context();
}

void DemoSpan::End() {
  if (span_) span_->End();
}

DemoSpan StartServerSpan(std::string_view operation, const httplib::Request& req) {
  if (!TracingEnabled()) return DemoSpan();
  const ParentContext parent = client::ExtractFrom(req.headers);
  DemoSpan span(client::Tracer::Get().StartSpan(operation, parent ? &*parent : nullptr, 2));
  span.SetString("http.method", req.method);
  span.SetString("http.target", req.target);
  return span;
}

DemoSpan StartClientSpan(std::string_view operation, const ParentContext& parent,
                         httplib::Headers& headers) {
  if (!TracingEnabled()) return DemoSpan();
  client::Span span = client::Tracer::Get().StartSpan(operation, parent ? &*parent : nullptr, 3);
  client::InjectInto(span.context(), headers);
  return DemoSpan(std::move(span));
}

}  // namespace causeway::demo
