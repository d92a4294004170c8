// Text from a recording (span names, services, URLs) put into an HTML page: as element text,
// and as JSON inside a <script> element, whose content ends at the first "</script" and
// whose parser also treats "<!--" and "<script" specially, whatever the JSON's quotes say.
#pragma once

#include <string>
#include <string_view>

namespace causeway::report {

// `json` (a JSON text) with every '<', '>' and '&' written as \u003c, \u003e, \u0026: the
// same JSON value, and nothing an HTML parser reads inside <script> (those bytes occur in a
// JSON text only inside strings, where the escape means the same character).
std::string JsonForScript(std::string_view json);

// `s` as HTML element text: '&', '<', '>' and '"' as entities.
std::string HtmlText(std::string_view s);

}  // namespace causeway::report
