// The trace context an HTTP request carries, from the headers the recorder keeps: W3C
// `traceparent`, Zipkin's single `b3` header, Jaeger's `uber-trace-id`. The span id in each
// is the sender's span: the client span that made the request, the parent of the server
// span that handles it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spans/span_model.h"

namespace causeway::requests {

struct TraceContext {
  spans::TraceId trace;
  uint64_t span_id = 0;  // the sender's span
};

// "00-<32 hex>-<16 hex>-<2 hex>" (a later version may add fields after the flags); nullopt
// for version ff, bad lengths, non-hex digits, or an all-zero id.
std::optional<TraceContext> ParseTraceparent(std::string_view header);
// "<16 or 32 hex>-<16 hex>[-<sampling>[-<parent>]]"; a bare sampling state ("0", "1", "d")
// carries no context.
std::optional<TraceContext> ParseB3(std::string_view header);
// "<trace>:<span>:<parent>:<flags>", ids of up to 32 and 16 hex digits ("%3A" for ':').
std::optional<TraceContext> ParseUberTraceId(std::string_view header);

// The first of the three that parses (traceparent, then b3, then uber-trace-id).
std::optional<TraceContext> ParseTraceContext(std::string_view traceparent, std::string_view b3,
                                              std::string_view uber_trace_id);

}  // namespace causeway::requests
