// libFuzzer target: the input is a Pivot Tracing query. It is parsed and, when it parses,
// printed, parsed again (the canonical text must give the same query) and compiled to advice.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pivot/advice.h"
#include "pivot/parser.h"

using namespace causeway::pivot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Parse(text);
  if (!q.ok()) return 0;
  const std::string canonical = q->ToString();
  auto again = Parse(canonical);
  if (!again.ok() || again->ToString() != canonical) std::abort();
  auto compiled = Compile(*q, "fuzz");
  if (compiled.ok()) (void)compiled->ToString();
  return 0;
}
