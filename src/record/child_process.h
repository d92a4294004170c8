// The command `causeway record -- COMMAND` runs: started after the probes are attached, with
// the recording's environment (CAUSEWAY_TRACE_DIR, CAUSEWAY_CLOCK_OFFSET_NS, ...).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace causeway::record {

class ChildProcess {
 public:
  // Starts `argv` (searched in PATH) with `env` added to the recorder's environment. Fails
  // with the exec error (for example "No such file or directory") if it cannot run. The
  // command gets SIGKILL if the recorder dies first (PR_SET_PDEATHSIG, tied to the calling
  // thread: start it from the thread that lives as long as the recording).
  static StatusOr<ChildProcess> Start(const std::vector<std::string>& argv,
                                      const std::vector<std::pair<std::string, std::string>>& env);

  // Exit status if it has ended (exit code, or 128 + signal number), without waiting.
  std::optional<int> Poll();
  // Sends `sig`; a process that has ended is left alone.
  void Signal(int sig);
  // Waits at most `timeout_ms`, then kills it (SIGKILL) and waits.
  int WaitOrKill(int timeout_ms);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace causeway::record
