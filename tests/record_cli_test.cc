// `causeway record` and `causeway snapshot` tried as a new user would: wrong flags, no
// permission, a full disk, an unusable output directory, a recorder killed with SIGKILL,
// and flight-recorder snapshots. Each must give a clear message and leave the machine clean.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
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

TEST(RecordCliTest, FullDiskCutsBackToWholePacketsAndGoesOn) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!testing::HaveProgram("unshare")) GTEST_SKIP() << "Skipped: unshare (util-linux) missing";
  if (!testing::HaveProgram("babeltrace2")) GTEST_SKIP() << "Skipped: babeltrace2 missing";
  TempDir tmp;
  // A 600 KB tmpfs in a private mount namespace: full after the first packets, and gone
  // with the namespace when the command ends. The trace is read inside it (where the
  // tmpfs is), each reader's exit code and output kept outside. System calls and page cache
  // events are left out: with them the first packets that fit may hold no event of tid 1,
  // which critpath is asked about.
  const std::string mnt = tmp.path() + "/tiny";
  const std::string t = tmp.path() + "/";
  fs::create_directories(mnt);
  const std::string rec = mnt + "/rec";
  const std::string cli = CAUSEWAY_CLI;
  const std::string script =
      "mount -t tmpfs -o size=600k tmpfs " + mnt + " || exit 99; " + cli + " record -o " + rec +
      " --buffer-size 1M --no-syscalls --no-page-cache --duration 30 -- sh -c \"i=0; while [ \\$i "
      "-lt 3000 ]; do "
      "i=\\$((i+1)); /bin/true; done\" >" +
      t + "rec.out 2>" + t + "rec.err; echo $? >" + t + "rec.rc; " + cli + " stats " + rec +
      " --format json >" + t + "stats.out 2>" + t + "stats.err; echo $? >" + t + "stats.rc; " +
      cli + " threads " + rec + " >" + t + "threads.out 2>" + t + "threads.err; echo $? >" + t +
      "threads.rc; " + cli + " critpath " + rec + " --tid 1 >/dev/null 2>" + t +
      "critpath.err; echo $? >" + t + "critpath.rc; babeltrace2 " + rec + "/kernel >/dev/null 2>" +
      t + "bt.err; echo $? >" + t + "bt.rc";
  auto r =
      RunCommand("unshare -m --propagation private sh -c '" + script + "'", tmp.path() + "/err");
  ASSERT_EQ(r.exit_code, 0) << ReadFile(tmp.path() + "/err");
  const std::string err = ReadFile(t + "rec.err");
  const std::string out = ReadFile(t + "rec.out");
  EXPECT_EQ(ReadFile(t + "rec.rc"), "1\n") << "events were lost: " << err;
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
  EXPECT_NE(err.find("file=" + rec + "/kernel/channel0_"), std::string::npos) << err;
  EXPECT_NE(err.find("recording goes on"), std::string::npos) << err;
  EXPECT_NE(out.find("lost to write errors"), std::string::npos) << out;
  EXPECT_NE(out.find("(command exited)"), std::string::npos) << "it went on to the end: " << out;
  // Every reader reads what fitted.
  EXPECT_EQ(ReadFile(t + "stats.rc"), "0\n") << ReadFile(t + "stats.err");
  EXPECT_GT(nlohmann::json::parse(ReadFile(t + "stats.out"))["events"].get<int64_t>(), 0);
  EXPECT_EQ(ReadFile(t + "threads.rc"), "0\n") << ReadFile(t + "threads.err");
  EXPECT_EQ(ReadFile(t + "critpath.rc"), "0\n") << ReadFile(t + "critpath.err");
  EXPECT_EQ(ReadFile(t + "bt.rc"), "0\n") << ReadFile(t + "bt.err");
  EXPECT_EQ(RunCommand("grep -c ' " + mnt + " ' /proc/mounts").out, "0\n");
}

// Killed with SIGKILL two seconds in, before any packet filled: the partial packets the
// recorder puts on disk every second hold the events, and the command does not outlive it.
TEST(RecordCliTest, KilledEarlyRecorderLeavesItsEventsAndNoCommand) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  pid_t child = -1;
  {
    Background rec({"record", "-o", out, "--duration", "60", "--", "sleep", "60"},
                   tmp.path() + "/rec");
    ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    const std::string children = ReadFile("/proc/" + std::to_string(rec.pid()) + "/task/" +
                                          std::to_string(rec.pid()) + "/children");
    ASSERT_FALSE(children.empty()) << "the command runs";
    child = std::stoi(children);
    ::kill(rec.pid(), SIGKILL);
    EXPECT_EQ(rec.Wait(), 128 + SIGKILL);
  }
  // The kernel kills the orphaned command (PR_SET_PDEATHSIG); init reaps it when it can.
  auto running = [](pid_t pid) {
    const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (running(child) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(running(child)) << "sleep " << child << " outlived the recorder";
  std::string err;
  auto stats = RunCli("stats " + out + " --format json", &err);
  ASSERT_EQ(stats.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(stats.out);
  EXPECT_GT(j["events"].get<int64_t>(), 100) << "the statedump at least";
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  EXPECT_EQ(RunCommand("babeltrace2 " + out + "/kernel >/dev/null").exit_code, 0);
}

// Ctrl-C on `record -- sleep 5`: the command gets SIGINT too (the terminal sends it to
// both; here only the recorder gets it and passes it on), is reaped, the socket goes, and
// the recorder exits 128 + SIGINT, as a shell reports an interrupted command.
TEST(RecordCliTest, InterruptedCommandGetsTheSignalAndTheExitCodeSaysSo) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  Background rec({"record", "-o", out, "--format", "json", "--", "sleep", "5"},
                 tmp.path() + "/rec");
  ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(rec.pid(), SIGINT);
  EXPECT_EQ(rec.Wait(10), 128 + SIGINT) << rec.err();
  const auto sum = nlohmann::json::parse(rec.out());
  EXPECT_EQ(sum["command_exit"], 128 + SIGINT) << "sleep got SIGINT, not SIGTERM";
  EXPECT_EQ(sum["stop_reason"], "signal 2");
  EXPECT_FALSE(fs::exists(out + "/control.sock"));
  // Without a command, a signal is how a recording ends: exit 0 (SnapshotsOnRequest...).
}

// umask 000, as a careless shell may have: the recording stays its user's (0700 folders,
// 0600 files, a 0600 control socket); --mode widens it on purpose.
TEST(RecordCliTest, RecordingIsPrivateWhateverTheUmask) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  auto mode_of = [](const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  };
  const std::string out = tmp.path() + "/rec";
  const mode_t old_umask = ::umask(0);
  Background rec({"record", "-o", out, "--snapshot", "--snapshot-size", "1M", "--duration", "60"},
                 tmp.path() + "/rec");
  ::umask(old_umask);
  ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
  EXPECT_EQ(mode_of(out + "/control.sock"), 0600u);
  EXPECT_EQ(mode_of(out), 0700u);
  std::string err;
  ASSERT_EQ(RunCli("snapshot " + out, &err).exit_code, 0) << err;
  ::kill(rec.pid(), SIGTERM);
  ASSERT_EQ(rec.Wait(), 0) << rec.err();
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(mode_of(e.path()), e.is_directory() ? 0700u : 0600u) << e.path();

  auto wide = RunCli("record -o " + tmp.path() + "/wide --mode 0755 --duration 0.3", &err);
  ASSERT_EQ(wide.exit_code, 0) << err;
  EXPECT_EQ(mode_of(tmp.path() + "/wide"), 0755u);
  EXPECT_EQ(mode_of(tmp.path() + "/wide/kernel"), 0755u);
  EXPECT_EQ(mode_of(tmp.path() + "/wide/kernel/metadata"), 0644u);
  auto bad = RunCli("record -o " + tmp.path() + "/bad --mode 0055 --duration 0.3", &err);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(err.find("--mode '0055'"), std::string::npos) << err;
}

// Another local user (nobody) tries to make root write elsewhere: through a directory of
// theirs (refused), or by planting a link in an open directory of root's (which the
// recorder closes to 0700 before anything is written).
TEST(RecordCliTest, AnotherUserCannotRedirectTheRecording) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);
  const std::string elsewhere = tmp.path() + "/elsewhere";
  fs::create_directories(elsewhere);
  fs::permissions(elsewhere, fs::perms::all);
  const std::string theirs = tmp.path() + "/theirs";
  fs::create_directories(theirs);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  std::string err;
  auto refused = RunCli("record -o " + theirs + " --duration 0.3", &err);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(err.find("belongs to another user (uid 65534)"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(theirs));

  const std::string open = tmp.path() + "/open";
  fs::create_directories(open);
  fs::permissions(open, fs::perms::all);  // root's, but anyone may create in it
  Background rec({"record", "-o", open, "--snapshot", "--snapshot-size", "1M", "--duration", "60"},
                 tmp.path() + "/rec");
  ASSERT_TRUE(WaitFor(open + "/control.sock")) << rec.err();
  // nobody plants snapshot-1 -> elsewhere.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
    ::_exit(::symlink(elsewhere.c_str(), (open + "/snapshot-1").c_str()) == 0 ? 0 : errno);
  }
  int ws = 0;
  ASSERT_EQ(::waitpid(pid, &ws, 0), pid);
  ASSERT_TRUE(WIFEXITED(ws));
  EXPECT_EQ(WEXITSTATUS(ws), EACCES) << "nobody could plant a link in the recording";
  auto snap = RunCli("snapshot " + open, &err);
  EXPECT_EQ(snap.exit_code, 0) << err;
  EXPECT_EQ(snap.out, open + "/snapshot-1/kernel\n");
  EXPECT_FALSE(fs::is_symlink(open + "/snapshot-1"));
  EXPECT_TRUE(fs::is_empty(elsewhere));
  ::kill(rec.pid(), SIGTERM);
  EXPECT_EQ(rec.Wait(), 0) << rec.err();
}

// A snapshot folder that exists (made by hand, or a link) is skipped: the snapshot takes
// the next number, the recorder says so and goes on with its ring.
TEST(RecordCliTest, TakenSnapshotFolderTakesTheNextNumber) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string out = tmp.path() + "/rec";
  const std::string elsewhere = tmp.path() + "/elsewhere";
  fs::create_directories(elsewhere);
  Background rec({"record", "-o", out, "--snapshot", "--snapshot-size", "1M", "--duration", "60",
                  "--format", "json"},
                 tmp.path() + "/rec");
  ASSERT_TRUE(WaitFor(out + "/control.sock")) << rec.err();
  fs::create_directories(out + "/snapshot-1");
  fs::create_directory_symlink(elsewhere, out + "/snapshot-2");
  std::string err;
  auto snap = RunCli("snapshot " + out, &err);
  ASSERT_EQ(snap.exit_code, 0) << err;
  EXPECT_EQ(snap.out, out + "/snapshot-3/kernel\n");
  auto again = RunCli("snapshot " + out, &err);
  ASSERT_EQ(again.exit_code, 0) << err << rec.err();
  EXPECT_EQ(again.out, out + "/snapshot-4/kernel\n");
  EXPECT_TRUE(fs::is_empty(elsewhere));
  EXPECT_TRUE(fs::is_empty(out + "/snapshot-1"));
  ::kill(rec.pid(), SIGTERM);
  ASSERT_EQ(rec.Wait(), 0) << rec.err();
  EXPECT_NE(rec.err().find(out + "/snapshot-1 exists already"), std::string::npos) << rec.err();
  EXPECT_NE(rec.err().find(out + "/snapshot-2 exists already"), std::string::npos) << rec.err();
  EXPECT_EQ(nlohmann::json::parse(rec.out())["snapshots"].size(), 2u);
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
