#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace causeway::demo {
namespace {

std::string Join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "stopped";
}

// Looks a tool up in PATH and then in the sbin folders a non-login root shell may lack.
std::string FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return "";
}

// Builds the child's environment: ours, with `extra` NAME=VALUE entries replacing or added.
std::vector<std::string> MergedEnv(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& x : extra) {
      const size_t eq = x.find('=');
      if (entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1)) replaced = true;
    }
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Writes a message to stderr from a forked child (only async-signal-safe calls there).
void ChildFail(const char* what) {
  const char* err = strerror(errno);  // not strictly safe, but the child exits right after
  (void)!write(2, "causeway-demo: child setup failed: ", 35);
  (void)!write(2, what, strlen(what));
  (void)!write(2, ": ", 2);
  (void)!write(2, err, strlen(err));
  (void)!write(2, "\n", 1);
  _exit(127);
}

}  // namespace

StatusOr<std::string> RunTool(const std::vector<std::string>& argv) {
  const std::string program = FindProgram(argv.at(0));
  if (program.empty())
    return NotFound(fmt::format("{} not found (install iproute2: scripts/setup.sh)", argv[0]));
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return IoError(fmt::format("pipe: {}", strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);  // the orchestrator blocks signals; tools must not
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> args = argv;
  args[0] = program;
  std::vector<char*> cargs = CStrings(args);
  pid_t pid;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    return IoError(fmt::format("cannot run {}: {}", Join(argv), strerror(rc)));
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return IoError(fmt::format("`{}` {}: {}", Join(argv), DescribeStatus(status), text));
  }
  return text;
}

std::string ProbeTool(const std::vector<std::string>& argv) {
  auto r = RunTool(argv);
  return r.ok() ? *r : "";
}

StatusOr<Child> Spawn(const SpawnOptions& o) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return IoError(fmt::format("pipe: {}", strerror(errno)));
  // Everything the child needs is prepared here: after fork it may only make system calls.
  std::vector<std::string> args = o.argv;
  std::vector<char*> cargs = CStrings(args);
  std::vector<std::string> env = MergedEnv(o.env);
  std::vector<char*> cenv = CStrings(env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(ready[0]);
    close(ready[1]);
    return IoError(fmt::format("cannot start the {}: fork: {}", o.name, strerror(errno)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) ChildFail("prctl");
    if (getppid() != parent) _exit(1);  // the orchestrator died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (o.netns_fd >= 0 && setns(o.netns_fd, CLONE_NEWNET) != 0) ChildFail("setns");
    if (!o.cgroup_procs.empty()) {
      const int fd = open(o.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
      // "0" means the writing process itself, in cgroup v1 and v2 alike.
      if (fd < 0 || write(fd, "0", 1) != 1) ChildFail(o.cgroup_procs.c_str());
      close(fd);
    }
    // dup2 clears close-on-exec on fd 3, unless the pipe already is fd 3.
    if (ready[1] == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(ready[1], 3) < 0) ChildFail("dup2");
    execve(cargs[0], cargs.data(), cenv.data());
    ChildFail(cargs[0]);
  }
  close(ready[1]);
  return Child{o.name, pid, ready[0]};
}

StatusOr<int> WaitForPort(Child& child, std::chrono::milliseconds timeout,
                          const std::atomic<bool>& stop) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (true) {
    if (stop) return Status(StatusCode::kInternal, "interrupted");
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return IoError(
          fmt::format("the {} did not report its port within {} ms", child.name, timeout.count()));
    pollfd p{child.ready_fd, POLLIN, 0};
    // Short polls so that a stop request is seen quickly.
    const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
    if (rc < 0 && errno != EINTR) return IoError(fmt::format("poll: {}", strerror(errno)));
    if (rc <= 0) continue;
    char buf[64];
    const ssize_t n = read(child.ready_fd, buf, sizeof buf);
    if (n > 0) {
      line.append(buf, static_cast<size_t>(n));
      if (line.find('\n') == std::string::npos) continue;
      close(child.ready_fd);
      child.ready_fd = -1;
      int port = 0;
      for (char c : line) {
        if (c == '\n') break;
        if (c < '0' || c > '9' || port > 65535) return Internal("bad port line: " + line);
        port = port * 10 + (c - '0');
      }
      return port;
    }
    // End of file: the child closed the pipe without a port, i.e. it exited.
    int status = 0;
    std::string how = "closed its ready pipe";
    for (int i = 0; i < 50; ++i) {
      if (waitpid(child.pid, &status, WNOHANG) == child.pid) {
        how = DescribeStatus(status);
        child.pid = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return IoError(
        fmt::format("the {} {} before it was ready (its message is above)", child.name, how));
  }
}

std::string StopChild(Child& child, std::chrono::milliseconds grace) {
  if (child.ready_fd >= 0) {
    close(child.ready_fd);
    child.ready_fd = -1;
  }
  if (child.pid <= 0) return "not running";
  kill(child.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (true) {
    const pid_t r = waitpid(child.pid, &status, WNOHANG);
    if (r == child.pid || (r < 0 && errno == ECHILD)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(child.pid, SIGKILL);
      while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  child.pid = -1;
  return DescribeStatus(status);
}

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

void BlockStopSignals() {
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StopSignalWatcher::StopSignalWatcher() : thread_([this] { Watch(); }) {}

StopSignalWatcher::~StopSignalWatcher() {
  done_ = true;
  pthread_kill(thread_.native_handle(), SIGTERM);  // wakes sigwait; done_ makes it leave
  thread_.join();
}

void StopSignalWatcher::Watch() {
  const sigset_t set = StopSignals();
  while (true) {
    int sig = 0;
    sigwait(&set, &sig);
    if (done_) return;
    if (!stop_.exchange(true)) {
      signal_ = sig;
      fmt::print(stderr, "causeway-demo: {}, stopping\n", strsignal(sig));
    }
  }
}

std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace causeway::demo
