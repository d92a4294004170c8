// Span files (OTLP JSON, Jaeger JSON, JSON lines): any input gives spans or a clear error,
// never a crash; every span read satisfies the reader's invariants. And differentially: the
// On-Demand fast path (spans/otlp_fast_path.h) reads what the DOM reader alone reads — the
// same spans, or the same error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "spans/span_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  causeway::spans::SpanSet set;
  const causeway::Status st = causeway::spans::ParseSpanDocument(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", &set);
  if (!st.ok() && st.ToString().find("fuzz.json") == std::string::npos) std::abort();
  for (const auto& s : set.spans) {
    if (s.span_id == 0 || (s.trace.high | s.trace.low) == 0) std::abort();
    if (s.end_ns < s.start_ns || s.start_ns < 0) std::abort();
  }
  if (set.spans.size() != set.by_id.size()) std::abort();
  causeway::spans::SpanSet dom;
  const causeway::Status dom_st = causeway::spans::ParseSpanDocument(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", &dom,
      /*fast_path=*/false);
  if (dom_st.ToString() != st.ToString()) std::abort();
  if (dom_st.ok()) {
    if (dom.spans.size() != set.spans.size() || dom.duplicates != set.duplicates ||
        dom.negative_times != set.negative_times || dom.warnings != set.warnings)
      std::abort();
    for (size_t i = 0; i < dom.spans.size(); ++i) {
      const auto &a = dom.spans[i], &b = set.spans[i];
      if (!(a.trace == b.trace) || a.span_id != b.span_id || a.parent_span_id != b.parent_span_id ||
          *a.service != *b.service || *a.operation != *b.operation || a.kind != b.kind ||
          a.start_ns != b.start_ns || a.end_ns != b.end_ns || a.tid != b.tid || a.pid != b.pid ||
          a.peer_port != b.peer_port || a.host_port != b.host_port)
        std::abort();
    }
  }
  // Only a file's last line can be cut short, and each one is described, naming the file.
  if (set.truncated_lines > 1 || set.warnings.size() != set.truncated_lines) std::abort();
  for (const auto& w : set.warnings)
    if (w.find("fuzz.json") == std::string::npos) std::abort();
  return 0;
}
