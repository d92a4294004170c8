// Tests only: a real nats-server (Debian's package) on a free loopback port, stopped when the
// object goes. Header-only so both the pivot unit tests and the end-to-end tests use it.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace causeway::pivot::testing {

class NatsTestServer {
 public:
  NatsTestServer() {
    for (const char* path : {"/usr/sbin/nats-server", "/usr/bin/nats-server"}) {
      if (access(path, X_OK) == 0) binary_ = path;
    }
    if (binary_.empty()) {
      error_ = "nats-server is not installed (scripts/setup.sh installs Debian's nats-server)";
      return;
    }
    port_ = FreePort();
    const std::string port = std::to_string(port_);
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
      }
      execl(binary_.c_str(), binary_.c_str(), "-a", "127.0.0.1", "-p", port.c_str(), nullptr);
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (CanConnect(port_)) return;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        error_ = "nats-server exited at start";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    error_ = "nats-server did not listen within 10 s";
  }

  ~NatsTestServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }

  NatsTestServer(const NatsTestServer&) = delete;
  NatsTestServer& operator=(const NatsTestServer&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::string url() const { return "nats://127.0.0.1:" + std::to_string(port_); }

 private:
  static int FreePort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
  }

  static bool CanConnect(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
  }

  std::string binary_;
  std::string error_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace causeway::pivot::testing
