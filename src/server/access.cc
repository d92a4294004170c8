#include "server/access.h"

#include <filesystem>
#include <system_error>

namespace causeway::server {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // The length is not secret (a token's length says little); the bytes are compared all,
  // whatever differs first.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  volatile unsigned char acc = 0;
  for (size_t i = 0; i < n; ++i)
    acc = acc | (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]));
  return (diff | acc) == 0;
}

bool BearerTokenMatches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "Bearer ";
  if (token.empty() || authorization.size() < kScheme.size()) return false;
  // The scheme is case-insensitive (RFC 7235); the token is not.
  for (size_t i = 0; i < kScheme.size(); ++i) {
    char c = authorization[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    char k = kScheme[i];
    if (k >= 'A' && k <= 'Z') k = static_cast<char>(k - 'A' + 'a');
    if (c != k) return false;
  }
  return ConstantTimeEquals(authorization.substr(kScheme.size()), token);
}

bool IsLoopbackAddress(std::string_view address) {
  return address == "localhost" || address == "::1" || address == "[::1]" ||
         address.rfind("127.", 0) == 0;
}

StatusOr<AllowedRoots> AllowedRoots::Make(const std::vector<std::string>& roots) {
  AllowedRoots out;
  for (const std::string& r : roots) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::canonical(r, ec);
    if (ec) return NotFound("cannot use " + r + " as an allowed root: " + ec.message());
    if (!std::filesystem::is_directory(p, ec))
      p = p.parent_path();  // a trace given as a file: its directory
    out.roots_.push_back(p.string());
  }
  return out;
}

StatusOr<std::string> AllowedRoots::Resolve(const std::string& path) const {
  if (path.empty()) return InvalidArgument("empty trace path");
  if (path.find('\0') != std::string::npos) return InvalidArgument("trace path holds a NUL byte");
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::canonical(path, ec);
  if (ec) {
    // Say "not allowed" before "not found" for paths outside the roots, so that the answer
    // does not tell which files exist elsewhere on the machine.
    const std::filesystem::path lexical = std::filesystem::absolute(path, ec).lexically_normal();
    bool inside = false;
    for (const std::string& r : roots_) {
      auto rel = lexical.lexically_relative(r);
      if (!rel.empty() && *rel.begin() != "..") inside = true;
    }
    if (!inside) return PermissionDenied(path + " is outside the allowed roots");
    return NotFound(path + " does not exist");
  }
  for (const std::string& r : roots_) {
    const std::filesystem::path rel = p.lexically_relative(r);
    if (!rel.empty() && *rel.begin() != "..") return p.string();
  }
  return PermissionDenied(path + " is outside the allowed roots (--root)");
}

}  // namespace causeway::server
