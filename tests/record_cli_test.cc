// `causeway record` and `causeway snapshot` tried as a new user would: wrong flags, no
// permission, a full disk, an unusable output directory, a recorder killed with SIGKILL,
// and flight-recorder snapshots. Each must give a clear message and leave the machine clean.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/recording.h"
#include "support/test_util.h"

extern char** environ;

namespace causeway {
namespace {

namespace fs = std::filesystem;
using testing::RunCli;
using testing::RunCommand;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The CLI started in the background, stdout and stderr to files; killed if still running
// when the test ends.
class Background {
 public:
  Background(const std::vector<std::string>& args, const std::string& out_prefix)
      : out_(out_prefix + ".out"), err_(out_prefix + ".err") {
    std::vector<std::string> all = {CAUSEWAY_CLI};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
  }
  pid_t pid() const { return pid_; }
  // Exit status (128 + signal when killed); -1 if it did not end within `timeout_s`.
  int Wait(double timeout_s = 30) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (pid_ > 0) {
      int ws = 0;
      if (::waitpid(pid_, &ws, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  std::string out() const { return ReadFile(out_); }
  std::string err() const { return ReadFile(err_); }

 private:
  std::string out_, err_;
  pid_t pid_ = -1;
};

bool WaitFor(const std::string& path, double timeout_s = 20) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The BPF programs a process holds, from its file descriptors' fdinfo (bpf links).
std::set<int> ProgramsOf(pid_t pid) {
  std::set<int> ids;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fdinfo", ec)) {
    std::ifstream in(fd.path());
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("prog_id:", 0) == 0) ids.insert(std::stoi(line.substr(8)));
  }
  return ids;
}

bool ProgramExists(int id) {
  return RunCommand("bpftool prog show id " + std::to_string(id) + " >/dev/null 2>&1").exit_code ==
         0;
}

#if !CAUSEWAY_RECORDER_BUILT
TEST(RecordCliTest, WithoutTheRecorderRecordAndSnapshotSaySo) {
  for (const char* args :
       {"record -o /tmp/x --duration 1 -- true", "snapshot /tmp/x", "record --help"}) {
    std::string err;
    auto r = RunCli(args, &err);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(err.find("built without the recorder"), std::string::npos) << args << ": " << err;
  }
}
#endif

TEST(RecordCliTest, UsageErrorsExplainThemselves) {
  SKIP_UNLESS_RECORDER_BUILT();
  std::string err;
  auto r = RunCli("record --duration 1", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("--output is required"), std::string::npos) << err;
  r = RunCli("record -o /tmp/x --bogus", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("--bogus"), std::string::npos) << err;
  r = RunCli("record -o /tmp/x --buffer-size lots", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("'lots' is not a size"), std::string::npos) << err;
  r = RunCli("record -o /tmp/x --trigger-latency 50ms", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("--trigger-latency needs --snapshot"), std::string::npos) << err;
  r = RunCli("record -o /tmp/x --snapshot --trigger-latency 5parsecs", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("unknown unit 'parsecs'"), std::string::npos) << err;
  // A command that does not exist is found out before anything is recorded or written.
  TempDir tmp;
  r = RunCli("record -o " + tmp.path() + "/rec -- no-such-program-xyz", &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("Cannot run no-such-program-xyz: not found in PATH"), std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/rec"));
  auto help = RunCli("record --help", &err);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--snapshot"), std::string::npos);
  EXPECT_NE(help.out.find("Examples"), std::string::npos);
}

TEST(RecordCliTest, WithoutRootSaysSoAndWritesNothing) {
  SKIP_UNLESS_RECORDER_BUILT();
  if (geteuid() != 0) GTEST_SKIP() << "Skipped: needs root to switch to an unprivileged user";
  if (!testing::HaveProgram("setpriv")) GTEST_SKIP() << "Skipped: setpriv (util-linux) missing";
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);  // the unprivileged user may create in it
  const std::string out = tmp.path() + "/rec";
  auto r = RunCommand("setpriv --reuid=65534 --regid=65534 --clear-groups " +
                          std::string(CAUSEWAY_CLI) + " record -o " + out + " --duration 1",
                      tmp.path() + "/err");
  EXPECT_EQ(r.exit_code, 1);
  const std::string err = ReadFile(tmp.path() + "/err");
  EXPECT_NE(err.find("needs root"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out)) << "nothing may be written when recording cannot start";
}

TEST(RecordCliTest, UnusableOutputDirectory) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  std::ofstream(tmp.path() + "/file") << "x";
  std::string err;
  auto r = RunCli("record -o " + tmp.path() + "/file/rec --duration 1", &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("Cannot create output directory"), std::string::npos) << err;
  EXPECT_NE(err.find("Not a directory"), std::string::npos) << err;
  // A directory with files in it is refused, never mixed with a new recording.
  fs::create_directories(tmp.path() + "/full");
  std::ofstream(tmp.path() + "/full/old") << "x";
  r = RunCli("record -o " + tmp.path() + "/full --duration 1", &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("is not empty"), std::string::npos) << err;
}

TEST(RecordCliTest, FullDiskStopsWithTheFileAndTheError) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!testing::HaveProgram("unshare")) GTEST_SKIP() << "Skipped: unshare (util-linux) missing";
  TempDir tmp;
  // A 300 KB tmpfs in a private mount namespace: full after the first packets, and gone
  // with the namespace when the command ends.
  const std::string mnt = tmp.path() + "/tiny";
  fs::create_directories(mnt);
  auto r = RunCommand(
      "unshare -m sh -c 'mount -t tmpfs -o size=300k tmpfs " + mnt + " && " + CAUSEWAY_CLI +
          " record -o " + mnt + "/rec --buffer-size 1M --duration 30 -- " +
          "sh -c \"i=0; while [ \\$i -lt 3000 ]; do i=\\$((i+1)); /bin/true; done\"'",
      tmp.path() + "/err");
  const std::string err = ReadFile(tmp.path() + "/err");
  EXPECT_EQ(r.exit_code, 1) << err;
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
  EXPECT_NE(err.find("file=" + mnt + "/rec/kernel/channel0_"), std::string::npos) << err;
  EXPECT_EQ(RunCommand("grep -c ' " + mnt + " ' /proc/mounts").out, "0\n");
}

TEST(RecordCliTest, KilledRecorderLeavesNoProbesAndAReadableTrace) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  std::set<int> progs;
  {
    Background rec({"record", "-o", out, "--buffer-size", "64K", "--duration", "60"},
                   tmp.path() + "/rec");
    ASSERT_TRUE(WaitFor(out + "/kernel/metadata")) << rec.err();
    // Let a few packets fill (64 KB ring, 256 KB packets: a busy second or two).
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    progs = ProgramsOf(rec.pid());
    ASSERT_GE(progs.size(), 10u) << "the recorder should hold its probes through bpf links";
    for (int id : progs) EXPECT_TRUE(ProgramExists(id));
    ::kill(rec.pid(), SIGKILL);
    EXPECT_EQ(rec.Wait(), 128 + SIGKILL);
  }
  // The kernel detaches everything when the process dies (freeing is deferred a little).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::set<int> left = progs;
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    for (auto it = left.begin(); it != left.end();)
      it = ProgramExists(*it) ? std::next(it) : left.erase(it);
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int id : left) ADD_FAILURE() << "BPF program " << id << " still loaded 10 s after the kill";
  // What was flushed is readable (metadata was written first); a new run records normally.
  std::string err;
  auto stats = RunCli("stats " + out, &err);
  EXPECT_EQ(stats.exit_code, 0) << err;
  auto again = RunCli("record -o " + tmp.path() + "/rec2 --duration 0.5 --format json", &err);
  ASSERT_EQ(again.exit_code, 0) << err;
  EXPECT_GT(nlohmann::json::parse(again.out)["events"].get<int64_t>(), 0);
}

// The summary names DIR/ust only when a program wrote its user-space traces there.
TEST(RecordCliTest, UserSpaceTracesAreNamedOnlyWhenWritten) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  std::string err;
  auto none = RunCli("record -o " + tmp.path() + "/none --duration 0.3", &err);
  ASSERT_EQ(none.exit_code, 0) << err;
  EXPECT_NE(none.out.find("Kernel trace: "), std::string::npos) << none.out;
  EXPECT_EQ(none.out.find("User-space traces"), std::string::npos) << none.out;
  // A program that writes a user-space trace (as causeway-client does) while recorded.
  const std::string dir = tmp.path() + "/some";
  auto some = RunCli("record -o " + dir + " -- sh -c 'mkdir -p " + dir + "/ust/app && touch " +
                         dir + "/ust/app/metadata'",
                     &err);
  ASSERT_EQ(some.exit_code, 0) << err;
  EXPECT_NE(some.out.find("User-space traces (causeway-client): " + dir + "/ust\n"),
            std::string::npos)
      << some.out;
}

TEST(RecordCliTest, SnapshotsOnRequestAndOnSignal) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  Background rec({"record", "-o", out, "--snapshot", "--snapshot-size", "4M", "--duration", "60",
                  "--format", "json"},
                 tmp.path() + "/rec");
  ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(fs::exists(out + "/kernel")) << "snapshot mode writes nothing until triggered";

  std::string err;
  auto snap = RunCli("snapshot " + out, &err);
  ASSERT_EQ(snap.exit_code, 0) << err;
  EXPECT_EQ(snap.out, out + "/snapshot-1/kernel\n");
  auto stats = RunCli("stats " + out + "/snapshot-1/kernel --format json", &err);
  ASSERT_EQ(stats.exit_code, 0) << err;
  EXPECT_NE(stats.out.find("sched_switch"), std::string::npos);
  EXPECT_NE(stats.out.find("lttng_statedump_process_state"), std::string::npos);
  EXPECT_EQ(RunCommand("babeltrace2 " + out + "/snapshot-1/kernel >/dev/null").exit_code, 0);

  ::kill(rec.pid(), SIGUSR1);
  EXPECT_TRUE(WaitFor(out + "/snapshot-2/kernel/metadata")) << rec.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  ::kill(rec.pid(), SIGTERM);
  ASSERT_EQ(rec.Wait(), 0) << rec.err();
  auto sum = nlohmann::json::parse(rec.out());
  EXPECT_EQ(sum["snapshots"].size(), 2u);
  EXPECT_EQ(sum["stop_reason"], "signal 15");
  EXPECT_FALSE(fs::exists(out + "/control.sock"));

  auto none = RunCli("snapshot " + out, &err);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(err.find("No recorder is listening"), std::string::npos) << err;
}

TEST(RecordCliTest, SnapshotOfARecordingToDiskIsRefused) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  Background rec({"record", "-o", out, "--duration", "60"}, tmp.path() + "/rec");
  ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
  std::string err;
  auto snap = RunCli("snapshot " + out, &err);
  EXPECT_EQ(snap.exit_code, 1);
  EXPECT_NE(err.find("start it with --snapshot"), std::string::npos) << err;
  ::kill(rec.pid(), SIGINT);
  EXPECT_EQ(rec.Wait(), 0) << rec.err();
  EXPECT_EQ(RunCommand("babeltrace2 " + out + "/kernel >/dev/null").exit_code, 0);
}

}  // namespace
}  // namespace causeway
