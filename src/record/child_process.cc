#include "record/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace causeway::record {

namespace {

int Decode(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 1;
}

}  // namespace

StatusOr<ChildProcess> ChildProcess::Start(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return InvalidArgument("No command to run");
  // Reports the exec error back: the write end closes on a successful exec.
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    return IoError(fmt::format("Cannot create a pipe: {}", std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return IoError(fmt::format("Cannot fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    // A recorder killed with SIGKILL cannot stop its command: the kernel does. (Cleared by
    // exec of a set-user-ID program such as sudo; then the command outlives it.)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the recorder died before the prctl
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGUSR1, SIGCHLD, SIGPIPE}) ::signal(sig, SIG_DFL);
    ::execvp(args[0], args.data());
    const int e = errno;
    (void)!::write(pipefd[1], &e, sizeof(e));
    ::_exit(127);
  }
  ::close(pipefd[1]);
  int err = 0;
  ssize_t n;
  do {
    n = ::read(pipefd[0], &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  ::close(pipefd[0]);
  if (n == sizeof(err)) {
    int ws = 0;
    ::waitpid(pid, &ws, 0);
    return InvalidArgument(fmt::format("Cannot run {}: {}", argv[0], std::strerror(err)));
  }
  ChildProcess c;
  c.pid_ = pid;
  return c;
}

std::optional<int> ChildProcess::Poll() {
  if (status_ || pid_ <= 0) return status_;
  int ws = 0;
  pid_t r = ::waitpid(pid_, &ws, WNOHANG);
  if (r == pid_) status_ = Decode(ws);
  return status_;
}

void ChildProcess::Signal(int sig) {
  if (!Poll() && pid_ > 0) ::kill(pid_, sig);
}

int ChildProcess::WaitOrKill(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!Poll() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!Poll()) {
    ::kill(pid_, SIGKILL);
    int ws = 0;
    if (::waitpid(pid_, &ws, 0) == pid_) status_ = Decode(ws);
  }
  return status_.value_or(1);
}

}  // namespace causeway::record
