// The demo's instrumentation, in one thin layer over causeway-client.
//
// Every service makes one server span per request it handles and one client span per call it
// makes; the traceparent header carries the parent across processes. When tracing is off
// (`--tracing none`, or no spans directory) no tracer exists at all: spans are empty objects,
// nothing is injected or extracted, so the "no tracing" baseline pays nothing for it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <causeway/client.h>
#include <causeway/tracepoint.h>
#include <httplib.h>

#include "base/status.h"
#include "pivot/baggage.h"

namespace causeway::demo {

// Starts the process's tracer: spans are appended to `<spans_dir>/<service>.otlp.json` as
// they finish (every flush interval), the last ones at StopTracing.
// An empty spans_dir leaves tracing off. CAUSEWAY_TRACE_DIR, when set, is passed on to the
// client as its user-space trace directory.
Status StartTracing(std::string_view service, const std::string& spans_dir);
// Writes the spans and stops the tracer; does nothing when tracing is off.
void StopTracing();
bool TracingEnabled();

using ParentContext = std::optional<client::SpanContext>;

// A span that may be absent (tracing off). Ends when destroyed, like client::Span.
class DemoSpan {
 public:
  DemoSpan() = default;
  explicit DemoSpan(client::Span span) : span_(std::move(span)) {}

  // Explicit types: the client's overloads (string_view, int64_t, double, bool) would turn a
  // string literal into a bool and make an int ambiguous.
  void SetString(std::string_view key, std::string_view value);
  void SetInt(std::string_view key, int64_t value);
  ParentContext context() const;
  void End();

 private:
  std::optional<client::Span> span_;
};

// A server span for `req`, child of the span in its traceparent header (a root if none).
DemoSpan StartServerSpan(std::string_view operation, const httplib::Request& req);
// A client span under `parent` (a new trace when there is none), injected into `headers`.
DemoSpan StartClientSpan(std::string_view operation, const ParentContext& parent,
                         httplib::Headers& headers);

// Pivot Tracing (client/pivot). The demo's tracepoints, for live queries with `causeway pivot`:
//   demo:client_request  client (the load's client name), customer    the load, per request
//   demo:request         service, operation                           every request served
//   demo:bytes_read      service, from (the callee), bytes            every answer received
//   demo:bytes_written   service, bytes                               every answer sent
//   demo:driver_chosen   driver, eta_s                                the frontend's choice
// Besides these, every tracepoint has host, pid, procName, tid, timestamp and tracepoint.
extern client::Tracepoint<std::string_view, int64_t> tp_client_request;
extern client::Tracepoint<std::string_view, std::string_view> tp_request;
extern client::Tracepoint<std::string_view, std::string_view, int64_t> tp_bytes_read;
extern client::Tracepoint<std::string_view, int64_t> tp_bytes_written;
extern client::Tracepoint<std::string_view, double> tp_driver_chosen;

// Starts the process's Pivot Tracing agent when CAUSEWAY_PIVOT_NATS names a NATS server (run
// and load pass --pivot on as that variable). Without one, or if it cannot connect (said on
// stderr), the process runs without: its tracepoints then cost one load and a branch.
void StartPivot(std::string_view service);
// Sends the agent's last results and removes its queries; call before the process exits.
void StopPivot();
// The name given to StartTracing/StartPivot ("frontend", "load"...), for tracepoints.
std::string_view ServiceName();

// The request's baggage (the tuples packed for happened-before joins) crosses processes in the
// causeway-baggage header, beside traceparent: installed from an incoming request for the
// lifetime of the returned scope, and added to outgoing calls.
std::unique_ptr<pivot::BaggageScope> ScopeIncomingBaggage(const httplib::Request& req);
void InjectBaggage(httplib::Headers& headers);

}  // namespace causeway::demo
