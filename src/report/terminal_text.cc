#include "report/terminal_text.h"

namespace causeway::report {

std::string TerminalText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsControlByte(c))
      AppendControlEscape(c, &out);
    else
      out.push_back(ch);
  }
  return out;
}

}  // namespace causeway::report
