// The recorder's control socket: a UNIX stream socket in the recording directory on which
// `causeway snapshot DIR` and causeway-client (slow-span triggers) send one line each
// ("snapshot <reason>") and get one line back ("ok <path>" or "error <message>").
// Non-blocking: the recorder's loop calls Poll() between ring-buffer reads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace causeway::record {

class ControlSocket {
 public:
  // Listens at `path` (bound through `bind_path` when given: another name of the same
  // place). The socket file is 0600 whatever the umask: only the recorder's user may ask
  // for snapshots.
  static StatusOr<std::unique_ptr<ControlSocket>> Listen(const std::string& path,
                                                         const std::string& bind_path = "");
  ~ControlSocket();  // closes every connection and removes the socket file

  struct Request {
    int fd = -1;  // reply with Reply(fd, ...)
    std::string line;
  };
  // Accepts new connections and returns the complete request lines received.
  std::vector<Request> Poll();
  void Reply(int fd, const std::string& line);  // sends "line\n" and closes the connection
  const std::string& path() const { return path_; }

 private:
  ControlSocket() = default;
  struct Conn {
    int fd;
    std::string buf;
  };
  int listen_fd_ = -1;
  std::string path_;
  std::string bind_path_;
  std::vector<Conn> conns_;
};

// Client side: sends `line` to the socket at `path` and returns the reply line. Waits at
// most `timeout_ms` for the reply.
StatusOr<std::string> SendControl(const std::string& path, const std::string& line, int timeout_ms);

}  // namespace causeway::record
