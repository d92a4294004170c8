// Appending JSON text directly to a string, for outputs written per item in bulk (every
// request of a recording), where building an nlohmann::json tree per item and dumping it
// cost more than the analysis that produced the item.
//
// The text is the same bytes nlohmann::json::dump() writes for the same values (compact,
// object keys in byte order, the same escapes), so outputs built either way agree and the
// writers can be checked against it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace causeway::report {

// `s` as a JSON string: '"' and '\' escaped, \b \f \n \r \t, other control characters as
// \u00xx; UTF-8 is kept as is. Bytes that are not valid UTF-8 become U+FFFD (dump() would
// throw on them).
void AppendJsonString(std::string* out, std::string_view s);

void AppendJsonInt(std::string* out, int64_t v);

}  // namespace causeway::report
