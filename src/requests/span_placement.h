// Spans tied to the threads that ran them, and put on the kernel clock, with no help from
// the service: from the HTTP messages the recorder saw (kernel/http_message.h) and the
// trace context they carried (README.md, "Spans of unmodified services").
//
// A span gets its thread, by the first of:
//   1. causeway-client's sync events (already in the span: exact thread and times);
//   2. an HTTP message: client span P is the thread that sent the request carrying
//      context (T, P); a server span whose remote parent is P, the thread that received it;
//      a root server span (a request that came with no context), the thread that received
//      the request on the connection its attributes name (peer and host ports, process),
//      nearest in time. Its start is that message's time and its end the response's;
//   3. its `thread.id` / `tid` attribute, when that is a kernel tid that lives in the
//      span's process (`process.pid`) at the span's time; otherwise the attribute is
//      ignored and counted;
//   4. the thread of its nearest placed ancestor in the same process.
// Span times from files (rounded to milliseconds, or on another clock) are moved, per
// process, by the median difference between its anchored server spans' kernel times and
// their file times (its client spans', when it serves none).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/execution_graph.h"
#include "kernel/http_message.h"
#include "spans/span_model.h"

namespace causeway::requests {

// Span::placed_by: how the span got its thread, or why it has none.
enum class ThreadSource : uint8_t {
  kNone,              // no thread attribute, no matching HTTP message, no placed ancestor
  kSyncEvents,        // causeway-client's sync events
  kHttpMessage,       // the HTTP message the kernel saw
  kThreadAttribute,   // thread.id / tid, checked against process.pid
  kAncestor,          // its nearest placed ancestor's
  kThreadIdIgnored,   // thread.id is not a thread of process.pid at the span's time
  kThreadNotInTrace,  // the thread is not in the kernel trace at the span's time
};
inline constexpr int kNumThreadSources = 7;
// JSON keys: "none", "sync_events", "http_message", ...
std::string_view ThreadSourceName(ThreadSource s);
// For people: why a span has no thread ("no thread attribute and no matching HTTP message").
std::string_view UnplacedReason(ThreadSource s);

// A thread, from the time of a socket message on, works for the request of trace `trace`
// (none: a message of no known request, or a response that ended the thread's part).
struct MessageStep {
  int64_t ts = 0;  // from the message, or from when its thread woke up for it
  spans::TraceId trace;
  bool none = true;
  int64_t awake_since = 0;  // the message's own time, or when its thread last woke up
};

struct SpanPlacement {
  // Per span of the set (same index): its worker, kNoWorker when it has none.
  std::vector<graph::WorkerId> worker;
  // Per worker that sent or received HTTP messages: what it works for, in time order.
  std::unordered_map<graph::WorkerId, std::vector<MessageStep>> message_steps;
  uint64_t spans_by_source[kNumThreadSources] = {};
  // thread.id attributes that were no thread of the span's process (the span may still
  // have been placed under an ancestor).
  uint64_t thread_ids_ignored = 0;
  uint64_t messages = 0;               // HTTP messages in the kernel traces
  uint64_t messages_with_context = 0;  // requests carrying a trace context
  uint64_t messages_truncated = 0;     // header block cut by the recorder's copy
  uint64_t processes_corrected = 0;    // processes whose file times were moved
};

// Places the spans of `set` (updating their tid, times and placed_by) on the workers of
// `g`; `host` is the host of spans placed by their thread attribute alone.
SpanPlacement PlaceSpans(const graph::ExecutionGraph& g, uint32_t host,
                         const std::vector<kernel::HttpMessage>& messages, spans::SpanSet* set);

}  // namespace causeway::requests
