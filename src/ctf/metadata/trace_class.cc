#include "ctf/metadata/trace_class.h"

namespace causeway::ctf {

std::string TraceClass::EnvString(const std::string& key) const {
  for (const auto& [k, v] : env) {
    if (k != key) continue;
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    return std::to_string(std::get<int64_t>(v));
  }
  return {};
}

}  // namespace causeway::ctf
