#include "record/control_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace causeway::record {

namespace {

StatusOr<sockaddr_un> Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument(
        fmt::format("Control socket path is {} bytes, longer than UNIX sockets allow ({}): {}",
                    path.size(), sizeof(addr.sun_path) - 1, path));
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

}  // namespace

StatusOr<std::unique_ptr<ControlSocket>> ControlSocket::Listen(const std::string& path,
                                                               const std::string& bind_path) {
  const std::string& where = bind_path.empty() ? path : bind_path;
  ASSIGN_OR_RETURN(sockaddr_un addr, Address(where));
  std::unique_ptr<ControlSocket> s(new ControlSocket());
  s->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->listen_fd_ < 0)
    return IoError(fmt::format("Cannot create control socket: {}", std::strerror(errno)));
  ::unlink(where.c_str());  // a socket file left by a killed recorder
  // bind() creates the file with the umask applied to 0777 and Linux ignores fchmod() on
  // the socket before it: the umask it is created under is what makes it 0600. The
  // recorder is single-threaded here, so no other file is created meanwhile.
  const mode_t old_umask = ::umask(0177);
  const int bound = ::bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int bind_errno = errno;
  ::umask(old_umask);
  if (bound != 0 || ::listen(s->listen_fd_, 16) != 0) {
    return IoError(fmt::format("Cannot listen on control socket: path={}, error={}", path,
                               std::strerror(bound != 0 ? bind_errno : errno)));
  }
  s->path_ = path;
  s->bind_path_ = where;
  return s;
}

ControlSocket::~ControlSocket() {
  for (Conn& c : conns_) ::close(c.fd);
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    ::unlink(bind_path_.c_str());
  }
}

std::vector<ControlSocket::Request> ControlSocket::Poll() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    conns_.push_back(Conn{fd, {}});
  }
  std::vector<Request> out;
  for (size_t i = 0; i < conns_.size();) {
    Conn& c = conns_[i];
    char buf[512];
    bool closed = false;
    for (;;) {
      ssize_t n = ::read(c.fd, buf, sizeof(buf));
      if (n > 0) {
        c.buf.append(buf, static_cast<size_t>(n));
        if (c.buf.size() > 4096) closed = true;  // not a control client
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EINTR)) closed = true;
      break;
    }
    const size_t nl = c.buf.find('\n');
    if (nl != std::string::npos) {
      out.push_back(Request{c.fd, c.buf.substr(0, nl)});
      conns_.erase(conns_.begin() + static_cast<long>(i));  // the request owns the fd now
      continue;
    }
    if (closed) {
      ::close(c.fd);
      conns_.erase(conns_.begin() + static_cast<long>(i));
      continue;
    }
    ++i;
  }
  return out;
}

void ControlSocket::Reply(int fd, const std::string& line) {
  const std::string msg = line + "\n";
  // Best effort: a client that went away does not stop the recording.
  (void)!::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::close(fd);
}

StatusOr<std::string> SendControl(const std::string& path, const std::string& line,
                                  int timeout_ms) {
  ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError(fmt::format("Cannot create socket: {}", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return NotFound(fmt::format(
        "No recorder is listening at {} ({}); is `causeway record` running on that directory?",
        path, std::strerror(errno)));
  }
  const std::string msg = line + "\n";
  if (::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size()))
    return IoError(fmt::format("Cannot send to {}: {}", path, std::strerror(errno)));
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return IoError(fmt::format("No reply from the recorder at {} in time", path));
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
    if (reply.find('\n') != std::string::npos) break;
  }
  if (const size_t nl = reply.find('\n'); nl != std::string::npos) reply.resize(nl);
  if (reply.empty()) return IoError(fmt::format("The recorder at {} closed without a reply", path));
  return reply;
}

}  // namespace causeway::record
