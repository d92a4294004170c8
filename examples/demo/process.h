// Child processes of the demo: the tools that set faults up (ip, tc) and the services.
#pragma once

#include <sys/types.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace causeway::demo {

// Runs a program (searched in PATH, and in /usr/sbin and /sbin, where iproute2 lives) and
// waits for it. An exit code other than 0 is an error naming the command and quoting what it
// printed.
StatusOr<std::string> RunTool(const std::vector<std::string>& argv);

// The whole command's output, or "" if it failed: for probes whose failure means "no".
std::string ProbeTool(const std::vector<std::string>& argv);

struct SpawnOptions {
  std::string name;               // for messages: "route service"
  std::vector<std::string> argv;  // argv[0] is the program path
  std::vector<std::string> env;   // NAME=VALUE added to (or replacing in) the environment
  int netns_fd = -1;              // join this network namespace before exec
  std::string cgroup_procs;       // write the child's pid here before exec (joins the cgroup)
};

// A service process started with a pipe on fd 3 through which it reports its port.
struct Child {
  std::string name;
  pid_t pid = -1;
  int ready_fd = -1;  // read end of the ready pipe
};

// Starts the child in its own process group (so a terminal's Ctrl-C reaches only the
// orchestrator, which stops the children in order) with PR_SET_PDEATHSIG = SIGTERM (so it
// dies with the orchestrator, even a SIGKILLed one) and the signal mask emptied.
// Must be called from the thread that lives as long as the children (the main thread):
// the death signal follows the thread that forked.
StatusOr<Child> Spawn(const SpawnOptions& options);

// Reads the port the child writes on its ready pipe. Fails if the child exits first, if
// `timeout` passes, or if `stop` becomes true.
StatusOr<int> WaitForPort(Child& child, std::chrono::milliseconds timeout,
                          const std::atomic<bool>& stop);

// SIGTERM, then SIGKILL after `grace`; reaps the child. Returns its exit description for
// messages ("exited with 0", "killed by signal 9"). Idempotent.
std::string StopChild(Child& child, std::chrono::milliseconds grace);

// SIGINT, SIGTERM and SIGHUP: the signals that ask the demo to stop.
sigset_t StopSignals();

// Blocks the stop signals in the calling thread, and so in every thread it starts later, so
// that one thread can take them with sigwait. main() calls it first.
void BlockStopSignals();

// Takes the stop signals for the whole process and turns the first into a stop request that
// each stage checks (instead of dying half-way with resources still up).
class StopSignalWatcher {
 public:
  StopSignalWatcher();
  ~StopSignalWatcher();
  const std::atomic<bool>& stop() const { return stop_; }
  int signal() const { return signal_; }  // the first stop signal, 0 if none came

 private:
  void Watch();
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  std::thread thread_;
};

// The path of the running executable (/proc/self/exe), to start the services with.
std::string SelfExe();

}  // namespace causeway::demo
