// Who may ask the server what: the bearer token and the directories traces may be opened
// from. Both are checked before any handler runs (server.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace causeway::server {

// Whether an Authorization header value ("Bearer T") carries `token`. The comparison takes
// the same time whatever the bytes compared, so that a client cannot guess the token one
// byte at a time from the answer's delay.
bool BearerTokenMatches(std::string_view authorization, std::string_view token);
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Whether an address other than loopback is asked for (127.0.0.0/8, ::1, localhost).
bool IsLoopbackAddress(std::string_view address);

// The directories traces may be opened from, each made absolute and canonical (symbolic
// links resolved) once, when the server starts.
class AllowedRoots {
 public:
  static StatusOr<AllowedRoots> Make(const std::vector<std::string>& roots);
  // The canonical path of `path` when it exists and lies inside one of the roots (after
  // resolving every symbolic link and "..": a link inside a root that points outside is
  // refused); PermissionDenied when outside, NotFound when it does not exist.
  StatusOr<std::string> Resolve(const std::string& path) const;
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  std::vector<std::string> roots_;
};

}  // namespace causeway::server
