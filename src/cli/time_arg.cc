#include "cli/time_arg.h"

#include <cctype>

namespace causeway::cli {

StatusOr<uint64_t> ParseTimeArg(const std::string& text) {
  auto bad = [&] {
    return InvalidArgument(
        "invalid time '" + text +
        "': expected nanoseconds (1376592664828559410) or seconds.fraction (1376592664.8285)");
  };
  if (text.empty()) return bad();
  const size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || whole.size() > 20 || frac.size() > 9) return bad();
  for (char c : whole + frac)
    if (!std::isdigit(static_cast<unsigned char>(c))) return bad();
  uint64_t w = 0;
  for (char c : whole) {
    if (w > (UINT64_MAX - 9) / 10) return bad();
    w = w * 10 + static_cast<uint64_t>(c - '0');
  }
  if (dot == std::string::npos) return w;
  uint64_t f = 0;
  for (size_t i = 0; i < 9; ++i)
    f = f * 10 + (i < frac.size() ? static_cast<uint64_t>(frac[i] - '0') : 0);
  if (w > UINT64_MAX / 1'000'000'000) return bad();
  return w * 1'000'000'000 + f;
}

}  // namespace causeway::cli
