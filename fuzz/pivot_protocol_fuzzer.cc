// libFuzzer target: the agent protocol's decoders (client/pivot/protocol.h), which read what
// arrives over NATS from anyone on the bus. Any input gives a value or an error, never a
// crash; a message that decodes encodes and decodes again to the same content.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pivot/protocol.h"

using namespace causeway::pivot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto m = DecodeInstall(text); m.ok()) {
    auto again = DecodeInstall(Encode(*m));
    if (!again.ok() || again->id != m->id || again->query != m->query ||
        again->interval_ms != m->interval_ms || again->results != m->results) {
      std::abort();
    }
  }
  if (auto m = DecodeResults(text); m.ok()) {
    auto again = DecodeResults(Encode(*m));
    if (!again.ok() || again->rows.size() != m->rows.size() || again->id != m->id) std::abort();
  }
  (void)DecodeInstallReply(text);
  (void)DecodeStatus(text);
  (void)DecodeUninstall(text);
  (void)DecodeHelloReply(text);
  return 0;
}
