// Reads OTLP JSON and Jaeger JSON span files into a SpanSet (README.md).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock_transform.h"
#include "base/line_reader.h"
#include "base/status.h"
#include "spans/span_model.h"

namespace causeway::spans {

// Parses one file's content (format detected from its top-level keys); `name` is used in
// error messages. `fast_path` false reads every line with the DOM reader alone (tests
// compare it with the On-Demand fast path, otlp_fast_path.h).
Status ParseSpanDocument(std::string_view text, const std::string& name, SpanSet* out,
                         bool fast_path = true);

// Reads files, or every *.json file (sorted by name) of each directory. JSON Lines files
// are read `window` bytes at a time (the window grows to the longest line).
StatusOr<SpanSet> ReadSpanFiles(const std::vector<std::string>& paths,
                                size_t window = LineReader::kDefaultWindow);

// User-space sync events (jaeger_ust:*, causeway_ust:*) as read, on each host's own clock:
// read apart from applying them so that the reading can go on beside the kernel trace's,
// which decides the clock transforms.
// 24 bytes: a 10,000-request recording has 320,000 of them. The trace id only a
// kDeactivate needs is kept apart (SyncEvents::Trace::deactivated).
struct SyncEvent {
  enum Kind : uint8_t { kOther, kStart, kEnd, kActivate, kDeactivate };
  Kind kind = kOther;
  int32_t tid = 0;  // the `tid` field, else LTTng-UST's vtid context; 0: unknown
  int64_t ts = 0;   // ns, the host's clock
  uint64_t span_id = 0;
};
static_assert(sizeof(SyncEvent) == 24);
struct SyncEvents {
  struct Trace {
    std::string dir;
    std::string hostname;              // env hostname: selects the transform
    std::vector<SyncEvent> events;     // in the trace's time order
    std::vector<TraceId> deactivated;  // the trace of each kDeactivate event, in that order
    uint64_t discarded_events = 0;     // the tracer lost (packet context events_discarded)
  };
  std::vector<Trace> traces;  // user-space traces holding sync events
  // The reader's errors (file and offset) of the user-space traces that are damaged: each
  // one's events before the damage are in `traces`, a trace that cannot be opened is not.
  std::vector<std::string> damaged;
};

// Reads the sync events of `trace_paths` (CTF trace directories or their parents); traces
// without sync events in their metadata are skipped unread.
StatusOr<SyncEvents> ReadSyncEvents(const std::vector<std::string>& trace_paths);

// Counts the damaged user-space traces of `events` in `set` and describes each in its
// warnings (the reader's error: file and offset).
void NoteDamagedSyncTraces(const SyncEvents& events, SpanSet* set);

// Spans take their sync events' times and threads; `transforms` (by trace env hostname)
// maps each host's clock to the analysis timebase. Causeway's activate/deactivate pairs
// become SpanSet::activations. A span is found by `set->by_id`, which must index every span
// (as the readers build it).
void ApplySyncEvents(const SyncEvents& events, SpanSet* set,
                     const std::map<std::string, ClockTransform>& transforms = {});

// ReadSyncEvents, then ApplySyncEvents.
Status ApplySyncEvents(const std::vector<std::string>& trace_paths, SpanSet* set,
                       const std::map<std::string, ClockTransform>& transforms = {});

// Maps the times of the spans that have no sync events (their own, on one host's clock)
// through `t`.
void TransformUnsynced(const ClockTransform& t, SpanSet* set);

}  // namespace causeway::spans
