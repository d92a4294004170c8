// Parsing of --begin/--end: nanoseconds ("1376592664828559410") or seconds with a
// fraction ("1376592664.828559410"), both from the clock origin (the Epoch for LTTng).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace causeway::cli {

StatusOr<uint64_t> ParseTimeArg(const std::string& text);

}  // namespace causeway::cli
