// `causeway serve` run by a test: started on a free port of 127.0.0.1 (--port 0, the port
// read from the line it prints when listening; stdout and stderr up to it are output()), and always
// killed by the destructor, so that no server outlives its test whatever fails.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace causeway::testing {

class ServeProcess {
 public:
  // Runs CAUSEWAY_CLI serve ARGS (add "--port", "0" for a free port); waits up to `timeout`
  // for the "listening on" line. started() says whether it came.
  explicit ServeProcess(std::vector<std::string> args,
                        std::chrono::seconds timeout = std::chrono::seconds(120)) {
    int out[2];
    if (pipe(out) != 0) return;
    args.insert(args.begin(), {CAUSEWAY_CLI, "serve"});
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      EndWithParent(parent, SIGKILL);
      dup2(out[1], STDOUT_FILENO);
      dup2(out[1], STDERR_FILENO);  // its notes (which index it used) are output() too
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_fd_ = out[0];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    static const std::regex kListening(R"(listening on http://([^/]+):(\d+)/)");
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{stdout_fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(stdout_fd_, buf, sizeof buf);
      if (n <= 0) break;  // exited
      output_.append(buf, static_cast<size_t>(n));
      std::smatch m;
      if (std::regex_search(output_, m, kListening)) {
        host_ = m[1];
        port_ = std::atoi(m[2].str().c_str());
        return;
      }
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_fd_ >= 0) close(stdout_fd_);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  bool started() const { return port_ > 0; }
  int port() const { return port_; }
  const std::string& host() const { return host_; }  // as printed
  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Sends `sig` and waits up to `timeout` for the exit: its exit code, -1 when it did not
  // exit in time (then it is killed), 128 + signal when a signal ended it.
  int Stop(int sig = SIGTERM, std::chrono::seconds timeout = std::chrono::seconds(20)) {
    if (pid_ <= 0 || reaped_) return -1;
    kill(pid_, sig);
    return Wait(timeout);
  }
  // Waits for it to exit on its own (a refused command line).
  int Wait(std::chrono::seconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      usleep(20000);
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  bool reaped_ = false;
  int port_ = 0;
  std::string host_;
  std::string output_;
};

}  // namespace causeway::testing
