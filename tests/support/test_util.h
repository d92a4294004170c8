// Helpers shared by the end-to-end tests.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "ctf/reader/event_reader.h"

namespace causeway::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
};

// Runs `command` through /bin/sh; stderr goes to `stderr_path` when given, else /dev/null.
CommandResult RunCommand(const std::string& command, const std::string& stderr_path = "");

std::vector<std::string> SplitLines(const std::string& text);

// For a forked child before exec: `signal` reaches it when the test process (`parent`)
// dies. A test that aborts (a sanitizer report, a crash) never runs the destructors that
// stop its children, and a surviving child would hold ctest's output pipe until the
// timeout. Exits the child at once when the parent is already gone.
void EndWithParent(pid_t parent, int signal);

// Runs the causeway CLI with `args` (shell syntax); its stderr goes to *err.
CommandResult RunCli(const std::string& args, std::string* err);

// True when the tests (and so the causeway CLI, built with the same preset) use
// AddressSanitizer, which reserves terabytes of address space for its shadow memory.
constexpr bool kAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

// A shell prefix that caps the memory of the command after it at `kb` KiB: `ulimit -v`,
// or under AddressSanitizer (where `ulimit -v` makes every program fail at start) its own
// RSS limit, which kills the process past it. Either way a runaway read cannot take the
// machine's memory.
inline std::string MemoryCapPrefix(long kb) {
  if (kAddressSanitizer)
    return "export ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=" +
           std::to_string(kb / 1024) + "\"; ";
  return "ulimit -v " + std::to_string(kb) + "; ";
}

// A fresh empty directory under $TMPDIR, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Unpacks tests/data/recordings/demo-`name`.tar.zst into `tmp` (a test failure when it
// cannot): the recording's directory, tmp/`name`.
std::string UnpackDemoRecording(const TempDir& tmp, const std::string& name);

// Held around a `perf record` run. perf mounts tracefs to find its tracepoints and leaves it
// mounted when it exits: on destruction, tracefs is unmounted again when it was not mounted
// before, so that the machine's tracing state is as the test found it. The tests running
// perf take turns (a lock file), so that one does not unmount what another's perf uses.
class PerfTracefsGuard {
 public:
  PerfTracefsGuard();
  ~PerfTracefsGuard();
  PerfTracefsGuard(const PerfTracefsGuard&) = delete;
  PerfTracefsGuard& operator=(const PerfTracefsGuard&) = delete;

 private:
  int lock_fd_ = -1;
  bool was_mounted_ = false;
};

// The "key=value" lines a causeway_workload run wrote to its INFO_FILE.
std::map<std::string, std::string> ReadInfo(const std::string& path);

std::string TestTrace(const std::string& name);  // tests/data/traces/<name>

// The trace at `src` rewritten by babeltrace2's sink.ctf.fs below `out`: its streams have
// a plain event header (64-bit id and timestamp) and text arrays become strings. Returns
// the trace directory it made; on failure, "" after a test failure naming the cause.
std::string RewriteWithBabeltrace(const std::string& src, const std::string& out);
bool HaveProgram(const std::string& name);

// babeltrace2 2.0.4 prints a stale value for a string field whose new value is empty. Checks
// that every line where `bt` and `ours` differ is such a case (ours `x = ""`, babeltrace's
// `x = "v"` with v a value an earlier event of the same name carried, the rest identical),
// failing the test otherwise, and returns how many lines differ.
int CountStaleEmptyStrings(const std::vector<std::string>& bt,
                           const std::vector<std::string>& ours);

}  // namespace causeway::testing
