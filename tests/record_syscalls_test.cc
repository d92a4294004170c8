// `causeway record --syscalls` on this machine, for real: the recorder leaves its own system
// calls out, the trace names every call, and the recorder sleeps while it waits.
// Needs root and a kernel with BTF; elsewhere the test skips with the reason.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/read_all.h"
#include "support/recording.h"
#include "support/test_util.h"

extern char** environ;

namespace causeway {
namespace {

namespace fs = std::filesystem;
using testing::RunCommand;
using testing::TempDir;

// User + system CPU time of process `pid` so far, from /proc/PID/stat; < 0 when gone.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(text.substr(paren + 2));
  std::string field;
  long long utime = 0, stime = 0;
  // After ")": state(3) ... utime is field 14, stime 15 (proc(5)).
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CLOCK_REALTIME in ns: the recorder's event times are the monotonic clock shifted to it.
uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

TEST(RecordSyscallsTest, RecorderLeavesOutItsOwnCallsNamesThemAndSleeps) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  const std::string out = tmp.path() + "/out";
  // The recorder is started here, not through a shell, so that its pid and its CPU time
  // are its own.
  std::vector<std::string> args = {CAUSEWAY_CLI, "record", "-o", dir,     "--syscalls",
                                   "--format",   "json",   "--", "sleep", "3"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t recorder = -1;
  ASSERT_EQ(posix_spawn(&recorder, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  // The recorder's CPU while it waits for `sleep`: from when its control socket is up (the
  // probes are attached, the statedump written) for 1.5 s. Its start (loading the BPF
  // programs) is not waiting and is left out.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(dir + "/control.sock") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double cpu0 = CpuSeconds(recorder);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t real0 = RealtimeNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const double cpu1 = CpuSeconds(recorder);
  const uint64_t real1 = RealtimeNs();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(recorder, &status, 0, &usage), recorder);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "causeway record failed: " << RunCommand("cat '" + out + "'").out;
  const double total = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  std::printf("recorder CPU: %.3f s while waiting %.2f s (%.1f%% of one CPU), %.3f s in all\n",
              cpu1 - cpu0, waited, 100 * (cpu1 - cpu0) / waited, total);
  ASSERT_GE(cpu0, 0);
  ASSERT_GE(cpu1, 0);

  // Draining in a loop took a third of a CPU or more with little to record; sleeping between
  // drains takes a few ms per second. On a busy machine the recorder also has real work
  // (every other process' calls are recorded), so the bound is 10% of a CPU plus 2 µs per
  // event recorded in the window (writing one takes a fraction of that).
  const testing::ReadAllResult read = testing::ReadAllExpectOk(dir + "/kernel");
  uint64_t in_window = 0;
  for (const testing::ReadEvent& e : read.events) in_window += e.ts >= real0 && e.ts < real1;
  const double budget = 0.10 * waited + 2e-6 * static_cast<double>(in_window);
  std::printf("%llu events recorded in the window: CPU budget %.3f s\n",
              static_cast<unsigned long long>(in_window), budget);
  EXPECT_GT(in_window, 0u) << "no event between the window's times: a clock mismatch?";
  EXPECT_LT(cpu1 - cpu0, budget) << "the recorder does not sleep while it waits";

  // Every syscall event belongs to the thread its CPU runs (the last sched_switch's next);
  // none to the recorder's threads (the statedump and forks name them).
  std::set<int64_t> recorder_tids = {recorder};
  for (const testing::ReadEvent& e : read.events) {
    if (e.name == "lttng_statedump_process_state" && e.num.at("pid") == recorder)
      recorder_tids.insert(e.num.at("tid"));
    if (e.name == "sched_process_fork" && e.num.at("child_pid") == recorder)
      recorder_tids.insert(e.num.at("child_tid"));
  }
  std::map<uint32_t, int64_t> current;
  size_t syscalls = 0, attributed = 0, own = 0, execve = 0;
  for (const testing::ReadEvent& e : read.events) {
    if (e.name == "sched_switch") current[e.cpu] = e.num.at("next_tid");
    if (e.name != "syscall_entry" && e.name != "syscall_exit") continue;
    ++syscalls;
    // The analyses read the id as the integer it is, enumeration or not.
    if (e.name == "syscall_entry" && e.num.at("id") == 59) ++execve;
    auto it = current.find(e.cpu);
    if (it == current.end()) continue;
    ++attributed;
    if (recorder_tids.count(it->second)) ++own;
  }
  std::printf("%zu syscall events, %zu on a known thread, %zu of the recorder\n", syscalls,
              attributed, own);
  EXPECT_GT(attributed, 0u);
  EXPECT_EQ(own, 0u) << "the recorder recorded its own system calls";
  EXPECT_GT(execve, 0u) << "the command's execve (59) is missing";

  // Names, in our events and in babeltrace2.
  std::string err;
  auto ours = testing::RunCli("events " + dir + " --name syscall_entry", &err);
  ASSERT_EQ(ours.exit_code, 0) << err;
  EXPECT_NE(ours.out.find(R"(id = ( "execve" : container = 59 ))"), std::string::npos);
  EXPECT_NE(ours.out.find(R"(id = ( "clock_nanosleep" : container = 230 ))"), std::string::npos);
  if (!testing::HaveProgram("babeltrace2")) {
    ADD_FAILURE() << "babeltrace2 is not installed (scripts/setup.sh installs it)";
    return;
  }
  auto bt =
      RunCommand("babeltrace2 " + dir + "/kernel | grep -c '( \"execve\" : container = 59 )'");
  EXPECT_GT(std::atoi(bt.out.c_str()), 0) << "babeltrace2 does not show the syscall's name";
}

}  // namespace
}  // namespace causeway
