#include "snapshot_request.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace causeway::client {

StatusOr<std::string> RequestSnapshot(const std::string& socket_path, std::string_view reason,
                                      int timeout_ms) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path))
    return InvalidArgument(fmt::format("Control socket path too long: {}", socket_path));
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError(fmt::format("socket: {}", std::strerror(errno)));
  auto fail = [&](std::string what) {
    const int e = errno;
    close(fd);
    return IoError(fmt::format("Cannot ask for a snapshot: socket={}: {}: {}", socket_path, what,
                               std::strerror(e)));
  };
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0)
    return fail("connect");
  // One line: reasons never contain a newline.
  std::string line = "snapshot ";
  for (char c : reason) line += (c == '\n' || c == '\r') ? ' ' : c;
  line += '\n';
  if (send(fd, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size()))
    return fail("send");
  std::string reply;
  char buf[512];
  while (reply.find('\n') == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, timeout_ms);
    if (r == 0) {
      close(fd);
      return IoError(fmt::format("Cannot ask for a snapshot: socket={}: no reply in {} ms",
                                 socket_path, timeout_ms));
    }
    if (r < 0) return fail("poll");
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0) return fail("recv");
    if (n == 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (auto nl = reply.find('\n'); nl != std::string::npos) reply.resize(nl);
  return reply;
}

}  // namespace causeway::client
