// libFuzzer target: the input is a `metadata` file, plain TSDL text or packetized. It is
// decoded, parsed and, when it parses, compiled into decoding plans.
#include <cstdint>
#include <string>
#include <string_view>

#include "ctf/metadata/metadata_file.h"
#include "ctf/metadata/tsdl_parser.h"
#include "ctf/plan/decode_plan.h"

using namespace causeway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string text;
  if (ctf::IsPacketizedMetadata(bytes)) {
    auto decoded = ctf::DecodeMetadataPackets(bytes, "fuzz/metadata");
    if (!decoded.ok()) return 0;
    text = std::move(decoded).value();
  } else {
    text.assign(bytes);
  }
  auto trace = ctf::ParseTsdl(text);
  if (!trace.ok()) return 0;
  auto plan = ctf::CompileTracePlan(*trace);
  if (!plan.ok()) text = plan.status().ToString();
  return 0;
}
