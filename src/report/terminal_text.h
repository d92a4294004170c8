// Names from a recording (span names, services, thread names) written to a terminal: a
// control byte in one (NUL, CR, ESC) must not cut the output, rewrite a line or drive the
// terminal, so every output that prints such a name escapes it the way `events` does.
#pragma once

#include <string>
#include <string_view>

namespace causeway::report {

// Bytes below 0x20 and 0x7f. Bytes from 0x80 up pass: UTF-8 names stay readable.
inline bool IsControlByte(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The C escape of control byte `c`, as babeltrace2's text sink writes it: a letter where C
// has one (\e for ESC, as GCC writes it), else \x and two lowercase hex digits.
template <typename Out>
void AppendControlEscape(unsigned char c, Out* out) {
  char letter = 0;
  switch (c) {
    case '\a':
      letter = 'a';
      break;
    case '\b':
      letter = 'b';
      break;
    case 0x1b:
      letter = 'e';
      break;
    case '\f':
      letter = 'f';
      break;
    case '\n':
      letter = 'n';
      break;
    case '\r':
      letter = 'r';
      break;
    case '\t':
      letter = 't';
      break;
    case '\v':
      letter = 'v';
      break;
    default:
      break;
  }
  out->push_back('\\');
  if (letter) {
    out->push_back(letter);
    return;
  }
  out->push_back('x');
  out->push_back("0123456789abcdef"[c >> 4]);
  out->push_back("0123456789abcdef"[c & 15]);
}

// `s` with every control byte escaped (AppendControlEscape); other bytes as they are.
std::string TerminalText(std::string_view s);

}  // namespace causeway::report
