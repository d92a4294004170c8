// CTF that the real LTTng 2.13 writes on this machine, read like babeltrace2 reads it.
//
// A small LTTng-UST application (tests/lttng_ust) emits an event with every field kind of
// LTTng-UST's provider macros (integers of every width and signedness, hex and network
// byte order, float and double with NaN and infinities, strings with every byte value,
// text and integer arrays and sequences, an enum with ranges and unnamed values) from
// several threads, under a session of LTTng's own session daemon with two context fields.
// Every event must print as babeltrace2 prints it. Two more sessions overflow small buffers:
// in discard mode the tracer counts the events it dropped, in overwrite mode whole packets
// go missing; both must be counted as babeltrace2 counts them, around the same events.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/read_as_text.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

namespace fs = std::filesystem;

#ifdef CAUSEWAY_UST_WRITER
constexpr const char* kWriter = CAUSEWAY_UST_WRITER;
#else
constexpr const char* kWriter = nullptr;
#endif

bool ProcessAlive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// One LTTng session around a run of the writer. LTTng's session daemon is machine-wide:
// the tests of this file take turns (a lock file); one already running is used and left
// running, else one is started here (user-space tracing only) and stopped at the end,
// along with the consumer daemons it started.
class LttngUstInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kWriter) GTEST_FAIL() << "causeway_ust_writer was not built: liblttng-ust-dev is missing";
    for (const char* program : {"lttng", "lttng-sessiond", "babeltrace2"})
      ASSERT_TRUE(HaveProgram(program)) << program << " is missing: run scripts/setup.sh";
    lock_fd_ = open("/tmp/causeway-test-lttng.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(lock_fd_, 0) << "cannot open /tmp/causeway-test-lttng.lock: " << std::strerror(errno);
    ASSERT_EQ(flock(lock_fd_, LOCK_EX), 0) << std::strerror(errno);
    // A live one only: a session daemon that exited may linger as a zombie.
    if (RunCommand("pgrep -x -r R,S,D lttng-sessiond >/dev/null").exit_code != 0) {
      shm_before_ = WaitShmFiles();  // the session daemon makes them too
      const std::string pidfile = tmp_.path() + "/sessiond.pid";
      ASSERT_EQ(RunCommand("lttng-sessiond --daemonize --no-kernel --pidfile='" + pidfile + "'")
                    .exit_code,
                0)
          << "lttng-sessiond did not start";
      std::ifstream in(pidfile);
      in >> sessiond_pid_;
      ASSERT_TRUE(ProcessAlive(sessiond_pid_)) << "no lttng-sessiond behind " << pidfile;
    }
    session_ = "causeway-test-" + std::to_string(getpid());
  }

  void TearDown() override {
    if (created_) RunCommand("lttng --no-sessiond destroy '" + session_ + "' >/dev/null 2>&1");
    if (sessiond_pid_ > 0) {
      // SIGTERM: the session daemon stops its consumer daemons and removes its sockets.
      kill(sessiond_pid_, SIGTERM);
      for (int i = 0; i < 100 && ProcessAlive(sessiond_pid_); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_FALSE(ProcessAlive(sessiond_pid_))
          << "lttng-sessiond " << sessiond_pid_ << " did not stop";
      for (int i = 0; i < 100; ++i) {
        if (RunCommand("pgrep -x -r R,S,D lttng-consumerd >/dev/null").exit_code != 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      EXPECT_NE(RunCommand("pgrep -x -r R,S,D lttng-consumerd >/dev/null").exit_code, 0)
          << "an lttng-consumerd outlived the session daemon";
      // LTTng-UST applications leave the shared-memory files they wait on for a session
      // daemon (/dev/shm/lttng-ust-wait-*); those that appeared while ours ran go with it.
      for (const std::string& f : WaitShmFiles())
        if (!shm_before_.count(f)) fs::remove(f);
    }
    if (lock_fd_ >= 0) close(lock_fd_);
  }

  // Records the writer runs `runs` ("MODE COUNT THREADS" each, run at the same time, one
  // process each) into a session whose channel takes `channel_options` and the contexts
  // `contexts` (lttng add-context -t ...), with the events `events` enabled. Returns the
  // session's output directory (LTTng's layout below it: ust/uid/UID/64-bit for per-user
  // buffers, ust/pid/NAME-PID-DATE for per-process ones), "" on failure; sets emitted_ (the
  // events the runs emitted) and num_traces_ (the trace directories below it).
  // With `after_each_run` set (lttng's arguments: "snapshot record -s SESSION", "rotate
  // SESSION"), the runs go one after the other, each followed by that command. A run
  // written "@N MODE COUNT THREADS" runs on CPU N only (taskset).
  std::string Record(const std::string& channel_options, const std::vector<std::string>& contexts,
                     const std::vector<std::string>& runs, const std::string& events = "cwtest:*",
                     const std::string& create_options = "",
                     const std::string& after_each_run = "") {
    const std::string out = tmp_.path() + "/lttng";
    // --no-sessiond: the client would otherwise spawn a session daemon of its own, which
    // nothing here would stop.
    auto lttng = [&](const std::string& args) {
      CommandResult r = RunCommand("lttng --no-sessiond " + args + " >/dev/null 2>&1");
      EXPECT_EQ(r.exit_code, 0) << "lttng " << args;
      return r.exit_code == 0;
    };
    if (!lttng("create '" + session_ + "' " + create_options + " --output '" + out + "'"))
      return "";
    created_ = true;
    if (!lttng("enable-channel -u -s '" + session_ + "' cw " + channel_options)) return "";
    if (!lttng("enable-event -u -s '" + session_ + "' -c cw " + events)) return "";
    for (const auto& c : contexts)
      if (!lttng("add-context -u -s '" + session_ + "' -c cw -t " + c)) return "";
    if (!lttng("start '" + session_ + "'")) return "";
    // The application waits for the session daemon's registration (which enables the
    // session's events in it) before main(), up to this many ms: generous under sanitizers.
    std::vector<CommandResult> results(runs.size());
    auto run = [&](size_t i) {
      std::string args = runs[i], pin;
      if (!args.empty() && args[0] == '@') {
        pin = "taskset -c " + args.substr(1, args.find(' ') - 1) + " ";
        args = args.substr(args.find(' ') + 1);
      }
      results[i] = RunCommand("LTTNG_UST_REGISTER_TIMEOUT=20000 " + pin + "'" +
                              std::string(kWriter) + "' " + args);
    };
    if (after_each_run.empty()) {
      std::vector<std::thread> threads;
      for (size_t i = 0; i < runs.size(); ++i) threads.emplace_back(run, i);
      for (auto& t : threads) t.join();
    } else {
      for (size_t i = 0; i < runs.size(); ++i) {
        run(i);
        if (!lttng(after_each_run)) return "";
      }
    }
    emitted_ = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(results[i].exit_code, 0) << "causeway_ust_writer " << runs[i] << " failed";
      std::smatch m;
      EXPECT_TRUE(std::regex_search(results[i].out, m, std::regex("emitted (\\d+)")))
          << results[i].out;
      if (!m.empty()) emitted_ += std::stoull(m[1]);
    }
    if (!lttng("stop '" + session_ + "'")) return "";
    if (!lttng("destroy '" + session_ + "'")) return "";
    created_ = false;
    num_traces_ = 0;
    for (const auto& entry : fs::recursive_directory_iterator(out))
      num_traces_ += entry.path().filename() == "metadata";
    if (num_traces_ == 0) {
      ADD_FAILURE() << "no metadata below " << out;
      return "";
    }
    return out;
  }

  // babeltrace2's events (its text sink, as ReadAsText prints ours) and its warnings.
  struct Babeltrace {
    std::vector<std::string> lines;
    std::string warnings;
  };
  Babeltrace RunBabeltrace(const std::string& dir) {
    const std::string err = tmp_.path() + "/bt.err";
    CommandResult r = RunCommand("babeltrace2 --clock-seconds --no-delta '" + dir + "'", err);
    EXPECT_EQ(r.exit_code, 0) << "babeltrace2 failed on " << dir;
    std::ifstream in(err);
    return {SplitLines(r.out), std::string(std::istreambuf_iterator<char>(in), {})};
  }

  // The sum of N over babeltrace2's warnings "Tracer discarded N <what>".
  static uint64_t SumDiscarded(const std::string& warnings, const std::string& what) {
    uint64_t sum = 0;
    const std::regex re("Tracer discarded (\\d+) " + what);
    for (std::sregex_iterator it(warnings.begin(), warnings.end(), re), end; it != end; ++it)
      sum += std::stoull((*it)[1]);
    return sum;
  }

  // How many times `text` occurs in `s`.
  static int CountMatches(const std::string& s, const std::string& text) {
    int n = 0;
    for (size_t at = s.find(text); at != std::string::npos; at = s.find(text, at + text.size()))
      ++n;
    return n;
  }

  static std::set<std::string> WaitShmFiles() {
    std::set<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/dev/shm", ec))
      if (entry.path().filename().string().rfind("lttng-ust-wait-", 0) == 0)
        files.insert(entry.path().string());
    return files;
  }

  TempDir tmp_;
  std::set<std::string> shm_before_;  // WaitShmFiles() before the session daemon started
  std::string session_;
  bool created_ = false;
  pid_t sessiond_pid_ = -1;
  int lock_fd_ = -1;
  uint64_t emitted_ = 0;
  int num_traces_ = 0;
};

TEST_F(LttngUstInteropTest, EveryFieldKindPrintsAsBabeltracePrintsIt) {
  const std::string dir =
      Record("--subbuf-size 1M --num-subbuf 4", {"vtid", "procname"}, {"every-kind 330 3"});
  ASSERT_FALSE(dir.empty());
  ASSERT_EQ(emitted_, 1980u);  // every_kind and tick, 330 of each per thread
  const Babeltrace bt = RunBabeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.lines.size(), emitted_);
  ASSERT_EQ(ours.lines.size(), bt.lines.size());
  EXPECT_EQ(ours.discarded_records, 0u);
  // Identical but where babeltrace2 2.0.4 repeats a stale value for an empty string: the
  // writer's texts include "" once in 10 events.
  EXPECT_GT(CountStaleEmptyStrings(bt.lines, ours.lines), 0);
  // What the comparison covered: babeltrace2's escapes of every byte below 0x80, bytes
  // above as they are, NaN and infinities, network byte order, unnamed enum values.
  const std::string all = [&] {
    std::string s;
    for (const auto& l : ours.lines) s += l + "\n";
    return s;
  }();
  for (const char* expected :
       {R"(\x01\x02\x03\x04\x05\x06\a\b\t\n\v\f\r\x0e)", R"(\x1a\e\x1c)",
        R"( !\"#$%&\'()*+,-./0123456789:;<=>\?@)", R"([\\]^_`)", R"(|}~\x7f")", "\"\x80\x81\x82",
        "f64 = nan", "f32 = inf", "f64 = -inf", "f64 = 3e-310", "net16 = 257,",
        "( <unknown> : container = 7 )", "( \"BIG\" : container = 1000000 )",
        "( \"DEAD\" : container = -1 )", "( \"RUNNING\", \"LOW\" : container = 0 )",
        R"(( "it\'s \"6\"" : container = 6 ))", "i64 = -9223372036854775808,",
        "u64 = 18446744073709551615,", "procname = \"causeway_ust_wr\""})
    EXPECT_NE(all.find(expected), std::string::npos) << "no event printed " << expected;
}

// The same trace as JSON lines: each line valid JSON (nlohmann's parser rejects text that
// is not UTF-8), texts decoded to what the application wrote, bytes that are not UTF-8
// replaced by U+FFFD, and numbers JSON has no literal for (NaN, infinities) as null.
TEST_F(LttngUstInteropTest, EveryFieldKindAsJsonLinesIsValidJson) {
  const std::string dir = Record("--subbuf-size 1M --num-subbuf 4", {"vtid"}, {"every-kind 60 1"});
  ASSERT_FALSE(dir.empty());
  std::string err;
  const CommandResult r = RunCli("events '" + dir + "' --format jsonl", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  std::string low_bytes, replaced_high_bytes;
  for (int b = 1; b < 128; ++b) low_bytes.push_back(static_cast<char>(b));
  for (int b = 128; b < 256; ++b) replaced_high_bytes += "\xEF\xBF\xBD";
  std::set<std::string> texts;
  uint64_t events = 0, nulls = 0;
  for (const std::string& line : SplitLines(r.out)) {
    const auto e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(e.is_discarded()) << "not JSON: " << line;
    ++events;
    if (e["name"] != "cwtest:every_kind") continue;
    texts.insert(e["fields"]["str"].get<std::string>());
    nulls += e["fields"]["f64"].is_null();
  }
  EXPECT_EQ(events, emitted_);
  EXPECT_EQ(nulls, 15u);  // k % 11 in {6, 7, 8} (NaN, inf, -inf) for 15 of k = 0..59
  for (const std::string& expected : {std::string("tab\there \"quoted\" back\\slash"),
                                      std::string("\xc3\xbcnic\xc3\xb6"
                                                  "de"),
                                      low_bytes, replaced_high_bytes, std::string("")})
    EXPECT_EQ(texts.count(expected), 1u) << "no event's str decoded to " << expected;
}

// Per-process buffers: one trace per process (its env naming the process), several traces
// merged in one read. Every event LTTng-UST has is enabled: its state dump (libraries,
// build ids), tracef and tracelog; and five contexts, the instruction pointer among them.
TEST_F(LttngUstInteropTest, PerProcessTracesOfSeveralProcessesMergeAsBabeltraceMergesThem) {
  const std::string dir = Record("--buffers-pid --subbuf-size 1M --num-subbuf 4",
                                 {"ip", "pthread_id", "vpid", "vtid", "procname"},
                                 {"every-kind 40 2", "burst 300 2"}, "-a");
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(num_traces_, 2);
  const Babeltrace bt = RunBabeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(ours.lines.size(), bt.lines.size());
  EXPECT_GT(ours.lines.size(), emitted_);        // the state dumps, tracef and tracelog besides
  CountStaleEmptyStrings(bt.lines, ours.lines);  // fails on any other difference
  auto count = [&](const std::string& needle) {
    return std::count_if(ours.lines.begin(), ours.lines.end(),
                         [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  // babeltrace2 names each line's trace host:procname:(vpid) from the trace's env.
  EXPECT_EQ(count(":causeway_ust_wr:("), static_cast<long>(ours.lines.size()));
  EXPECT_EQ(count(" lttng_ust_tracef:event: "), 8);  // every tenth of 40 events, 2 threads
  EXPECT_EQ(count(" lttng_ust_tracelog:"), 8);
  EXPECT_GT(count(" lttng_ust_statedump:bin_info: "), 0);
}

// Snapshot mode: each `lttng snapshot record` writes what the ring buffers hold then as a
// trace of its own, which starts in the middle of the stream (its first packet's sequence
// number is not 0: nothing is missing before it).
TEST_F(LttngUstInteropTest, SnapshotsReadAsBabeltraceReadsThem) {
  const std::string dir =
      Record("--subbuf-size 4096 --num-subbuf 4", {"vtid"}, {"burst 20000 2", "every-kind 50 1"},
             "cwtest:*", "--snapshot", "snapshot record -s '" + session_ + "'");
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(num_traces_, 2);
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string snapshot = entry.path().string();
    SCOPED_TRACE(snapshot);
    const Babeltrace bt = RunBabeltrace(snapshot);
    const ReadResult ours = ReadAsText({snapshot});
    ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
    ASSERT_EQ(ours.lines.size(), bt.lines.size());
    EXPECT_GT(ours.lines.size(), 0u);
    EXPECT_LT(ours.lines.size(), emitted_);        // the buffers hold the last events only
    CountStaleEmptyStrings(bt.lines, ours.lines);  // fails on any other difference
    // What the tracer discarded, as babeltrace2 counts it. A stream whose first packet
    // reports discarded events (the tracer's running count: it discarded them before the
    // snapshot, or while it was taken) gets babeltrace2's warning that the tracer "may have
    // discarded events", with no count; we count them apart (discarded_before_first_packet).
    uint64_t discarded = 0, early = 0, lost = 0;
    int streams_with_early = 0;
    for (const auto& s : ours.streams) {
      discarded += s.discarded_events;
      early += s.discarded_before_first_packet;
      streams_with_early += s.discarded_before_first_packet > 0;
      lost += s.lost_packets;
    }
    EXPECT_EQ(lost, SumDiscarded(bt.warnings, "packets?")) << bt.warnings;
    EXPECT_EQ(discarded - early, SumDiscarded(bt.warnings, "events?")) << bt.warnings;
    EXPECT_EQ(streams_with_early, CountMatches(bt.warnings, "may have discarded events"))
        << bt.warnings;
  }
}

// Rotation: `lttng rotate` closes a trace chunk (archives/FROM-TO-N, a trace each) and goes
// on in the next; the chunks read as one merged sequence. Of the two lowest CPUs this
// process may run on, a < b, the first run is on b and the second on a, so that a's stream
// has no event in the first chunk: LTTng closes it with a packet of none, and its events
// begin in the second chunk (the inline merge lost them until 95dfd02; unpinned, this test
// failed about one run in six, when the second run landed on a CPU the first had not used).
TEST_F(LttngUstInteropTest, RotatedChunksReadAsOneSequence) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;  // the two lowest this process may run on
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.size() < 2) GTEST_SKIP() << "Skipped: this process may run on one CPU only";
  if (!HaveProgram("taskset")) GTEST_SKIP() << "Skipped: taskset (util-linux) is missing";
  const std::string dir = Record("--subbuf-size 64K --num-subbuf 4", {},
                                 {"@" + std::to_string(cpus[1]) + " burst 2000 2",
                                  "@" + std::to_string(cpus[0]) + " burst 1000 1"},
                                 "cwtest:*", "", "rotate '" + session_ + "'");
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(num_traces_, 3);  // one per rotation, and the one destroy closes (empty)
  ASSERT_EQ(emitted_, 5000u);
  const Babeltrace bt = RunBabeltrace(dir);
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const ReadResult ours = ReadAsText({dir}, static_cast<int>(threads));
    ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
    EXPECT_EQ(ours.lines.size(), emitted_);
    EXPECT_EQ(ours.lines, bt.lines);
    // The first chunk's stream of CPU a: a packet, of no event.
    int idle = 0;
    for (const auto& s : ours.streams)
      idle += s.path.find("-0/ust/") != std::string::npos && s.cpu == cpus[0] && s.events == 0 &&
              s.packets > 0;
    EXPECT_EQ(idle, 1);
  }
}

TEST_F(LttngUstInteropTest, EventsTheTracerDiscardedAreCountedAsBabeltraceCountsThem) {
  // Two 4 KiB sub-buffers per CPU, in discard mode: a burst overflows them.
  const std::string dir = Record("--subbuf-size 4096 --num-subbuf 2", {}, {"burst 100000 2"});
  ASSERT_FALSE(dir.empty());
  ASSERT_EQ(emitted_, 200000u);
  const Babeltrace bt = RunBabeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  EXPECT_EQ(ours.lines, bt.lines);
  uint64_t discarded = 0, missing = 0;
  for (const auto& s : ours.streams) {
    discarded += s.discarded_events;
    missing += s.lost_packets;
  }
  EXPECT_GT(discarded, 0u) << "the burst did not overflow the buffers";
  EXPECT_EQ(discarded, SumDiscarded(bt.warnings, "events?"));
  EXPECT_EQ(missing, 0u);
  // Every event the writer emitted is either read or counted as discarded.
  EXPECT_EQ(ours.lines.size() + discarded, emitted_);
}

// Rotation in discard mode: each chunk is a trace of its own, whose first packets report the
// tracer's running count. Read as one recording, as babeltrace2 reads chunks that share a
// UUID, each discarded event is counted once.
TEST_F(LttngUstInteropTest, EventsDiscardedAcrossRotatedChunksAreCountedOnce) {
  const std::string dir =
      Record("--subbuf-size 4096 --num-subbuf 2", {}, {"burst 30000 2", "burst 30000 2"},
             "cwtest:*", "", "rotate '" + session_ + "'");
  ASSERT_FALSE(dir.empty());
  EXPECT_GE(num_traces_, 2);
  ASSERT_EQ(emitted_, 120000u);
  const Babeltrace bt = RunBabeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  EXPECT_EQ(ours.lines, bt.lines);
  uint64_t discarded = 0, early = 0, missing = 0;
  for (const auto& s : ours.streams) {
    discarded += s.discarded_events;
    early += s.discarded_before_first_packet;
    missing += s.lost_packets;
  }
  EXPECT_GT(discarded, 0u) << "the bursts did not overflow the buffers";
  EXPECT_EQ(early, 0u);  // every chunk's first packets go on from the chunk before
  EXPECT_EQ(missing, SumDiscarded(bt.warnings, "packets?")) << bt.warnings;
  EXPECT_EQ(ours.lines.size() + discarded, emitted_);
  // babeltrace2 2.0.4 printed, in one run of five here, a count that had wrapped below zero
  // at a chunk boundary ("Tracer discarded 18446744073709524109 events"), made up for by a
  // larger one later: its counts still sum to the total modulo 2^64, as SumDiscarded's
  // uint64 sum is taken.
  EXPECT_EQ(discarded, SumDiscarded(bt.warnings, "events?")) << bt.warnings;
}

TEST_F(LttngUstInteropTest, PacketsOverwrittenInFlightRecorderModeAreCountedAsMissing) {
  // Overwrite (flight recorder) mode: the oldest packets give way, and the packet sequence
  // numbers of those that reach the disk jump over them.
  const std::string dir =
      Record("--overwrite --subbuf-size 4096 --num-subbuf 4", {}, {"burst 100000 2"});
  ASSERT_FALSE(dir.empty());
  const Babeltrace bt = RunBabeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  EXPECT_EQ(ours.lines, bt.lines);
  EXPECT_GT(ours.lines.size(), 0u);
  uint64_t missing = 0;
  for (const auto& s : ours.streams) missing += s.lost_packets;
  EXPECT_GT(missing, 0u) << "no packet was overwritten";
  EXPECT_EQ(missing, SumDiscarded(bt.warnings, "packets?"));
}

}  // namespace
}  // namespace causeway::testing
