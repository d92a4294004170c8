// Span files (OTLP JSON, Jaeger JSON, JSON lines): any input gives spans or a clear error,
// never a crash; every span read satisfies the reader's invariants.
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
    if (s.end_ns < s.start_ns) std::abort();
  }
  if (set.spans.size() != set.by_id.size()) std::abort();
  // Only a file's last line can be cut short, and each one is described, naming the file.
  if (set.truncated_lines > 1 || set.warnings.size() != set.truncated_lines) std::abort();
  for (const auto& w : set.warnings)
    if (w.find("fuzz.json") == std::string::npos) std::abort();
  return 0;
}
