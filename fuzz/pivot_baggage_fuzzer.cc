// libFuzzer target: the input is a binary baggage (the causeway-baggage header before
// base64). When it decodes, encoding and decoding again gives the same baggage, and trimming to a
// small budget stays within it; the input is also tried as a header value (base64url text).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pivot/baggage_codec.h"

using namespace causeway::pivot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)DecodeBaggageHeader(bytes);
  auto b = DecodeBaggage(bytes);
  if (!b.ok()) return 0;
  auto again = DecodeBaggage(EncodeBaggage(*b, SIZE_MAX));
  if (!again.ok() || !(*again == *b)) std::abort();
  if (EncodeBaggage(*b, 64).size() > 64) std::abort();
  return 0;
}
