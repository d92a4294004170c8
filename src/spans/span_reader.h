// Reads OTLP JSON and Jaeger JSON span files into a SpanSet (README.md).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock_transform.h"
#include "base/status.h"
#include "spans/span_model.h"

namespace causeway::spans {

// Parses one file's content (format detected from its top-level keys); `name` is used in
// error messages.
Status ParseSpanDocument(std::string_view text, const std::string& name, SpanSet* out);

// Reads files, or every *.json file (sorted by name) of each directory.
StatusOr<SpanSet> ReadSpanFiles(const std::vector<std::string>& paths);

// Applies user-space sync events (jaeger_ust:*, causeway_ust:*) found in `trace_paths`
// (CTF trace directories or their parents): spans take the events' times and threads.
// `transforms` (by trace env hostname) maps each host's clock to the analysis timebase.
Status ApplySyncEvents(const std::vector<std::string>& trace_paths, SpanSet* set,
                       const std::map<std::string, ClockTransform>& transforms = {});

// Maps the times of the spans that have no sync events (their own, on one host's clock)
// through `t`.
void TransformUnsynced(const ClockTransform& t, SpanSet* set);

}  // namespace causeway::spans
