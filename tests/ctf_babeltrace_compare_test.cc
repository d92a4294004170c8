// Every event of the real test traces, decoded by our reader, equals what babeltrace2 (the
// reference CTF reader) prints: name, timestamp to the nanosecond and every field value.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>

#include "support/read_as_text.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Babeltrace(const std::string& dir, int* exit_code = nullptr) {
  CommandResult r = RunCommand("babeltrace2 --clock-seconds --no-delta '" + dir + "'");
  if (exit_code) *exit_code = r.exit_code;
  return SplitLines(r.out);
}

class BabeltraceCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveProgram("babeltrace2")) GTEST_FAIL() << "babeltrace2 is missing: run scripts/setup.sh";
  }
};

TEST_F(BabeltraceCompareTest, ManyThreadsKernelTraceMatchesEveryEvent) {
  const std::string dir = TestTrace("lttng/many-threads");
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.size(), 240644u);
  ASSERT_EQ(ours.lines.size(), bt.size());
  EXPECT_EQ(CountStaleEmptyStrings(bt, ours.lines), 1);
  EXPECT_EQ(ours.discarded_records, 0u);
}

TEST_F(BabeltraceCompareTest, OldLayoutKernelTraceMatchesEveryEvent) {
  const std::string dir = TestTrace("lttng/bug446190");
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(ours.lines.size(), bt.size());
  EXPECT_GT(bt.size(), 30000u);
  EXPECT_EQ(CountStaleEmptyStrings(bt, ours.lines), 3);
}

TEST_F(BabeltraceCompareTest, UstTraceWithEventContextMatchesExactly) {
  const std::string dir = TestTrace("lttng/memory");
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.size(), 328056u);
  EXPECT_EQ(ours.lines, bt);
}

TEST_F(BabeltraceCompareTest, PerfConvertedTraceMatchesExactly) {
  const std::string dir = TestTrace("perf-sched");
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_GT(bt.size(), 10u);
  EXPECT_EQ(ours.lines, bt);
}

// CTF that babeltrace2 itself wrote (sink.ctf.fs: plain 64-bit id and timestamp headers,
// text arrays as strings, the packet context's CPU named `_cpu_id`, which babeltrace2
// prints as `{ cpu_id = N }`), from the kernel trace above.
TEST_F(BabeltraceCompareTest, TraceWrittenByBabeltraceMatchesEveryEvent) {
  TempDir tmp;
  const std::string dir = RewriteWithBabeltrace(TestTrace("lttng/many-threads"), tmp.path());
  ASSERT_FALSE(dir.empty());
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.size(), 240644u);
  ASSERT_EQ(ours.lines.size(), bt.size());
  EXPECT_EQ(ours.lines, bt);
}

// babeltrace2 stops partway through hello-lost (its muxer rejects the overlapping packets);
// we read it to the end. What babeltrace2 prints before stopping must be our prefix, and
// each stream read alone (no muxer) must match ours event for event, with the discarded
// counts babeltrace2 warns about equal to ours.
TEST_F(BabeltraceCompareTest, HelloLostReadsPastWhereBabeltraceStops) {
  const std::string dir = TestTrace("lttng/hello-lost");
  int bt_exit = 0;
  const auto bt = Babeltrace(dir, &bt_exit);
  EXPECT_NE(bt_exit, 0) << "babeltrace2 2.0.4 is expected to fail on this trace";
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_GT(bt.size(), 10u);
  ASSERT_GT(ours.lines.size(), bt.size() * 100);
  for (size_t i = 0; i < bt.size(); ++i) ASSERT_EQ(ours.lines[i], bt[i]) << "line " << i;

  uint64_t total_events = 0;
  for (const auto& stream : ours.streams) {
    TempDir tmp, errdir;
    fs::copy_file(dir + "/metadata", tmp.path() + "/metadata");
    const std::string name = fs::path(stream.path).filename().string();
    fs::copy_file(stream.path, tmp.path() + "/" + name);
    const std::string err = errdir.path() + "/bt.err";
    CommandResult r =
        RunCommand("babeltrace2 run --component=src:src.ctf.fs --params='inputs=[\"" + tmp.path() +
                       "\"]' --component=sink:sink.text.pretty "
                       "--params='clock-seconds=true,no-delta=true' --connect=src:sink",
                   err);
    ASSERT_EQ(r.exit_code, 0) << name;
    const auto bt_stream = SplitLines(r.out);
    const ReadResult alone = ReadAsText({tmp.path()});
    ASSERT_TRUE(alone.status.ok()) << alone.status.ToString();
    ASSERT_EQ(alone.lines.size(), bt_stream.size()) << name;
    ASSERT_EQ(alone.streams.size(), 1u);
    // Lines differ only where we clamped a timestamp that went back, to the previous one.
    uint64_t clamped = 0;
    for (size_t i = 0; i < bt_stream.size(); ++i) {
      if (alone.lines[i] == bt_stream[i]) continue;
      const size_t a = alone.lines[i].find(']'), b = bt_stream[i].find(']');
      ASSERT_EQ(alone.lines[i].substr(a), bt_stream[i].substr(b)) << name << " line " << i;
      ASSERT_GT(i, 0u);
      EXPECT_EQ(alone.lines[i].substr(0, a),
                alone.lines[i - 1].substr(0, alone.lines[i - 1].find(']')));
      EXPECT_LT(bt_stream[i].substr(0, b), alone.lines[i].substr(0, a));
      ++clamped;
    }
    EXPECT_EQ(clamped, alone.streams[0].clamped_events) << name;
    // babeltrace2 warns "Tracer discarded N events between ..." once per gap.
    const std::string warnings = RunCommand("cat '" + err + "'").out;
    uint64_t bt_discarded = 0;
    const std::regex warn(R"(Tracer discarded (\d+) events)");
    for (auto it = std::sregex_iterator(warnings.begin(), warnings.end(), warn);
         it != std::sregex_iterator(); ++it)
      bt_discarded += std::stoull((*it)[1].str());
    EXPECT_EQ(alone.streams[0].discarded_events, bt_discarded) << name;
    total_events += alone.lines.size();
  }
  EXPECT_EQ(total_events, ours.lines.size());
  uint64_t discarded = 0;
  for (const auto& s : ours.streams) discarded += s.discarded_events;
  EXPECT_GT(discarded, 0u);
}

}  // namespace
}  // namespace causeway::testing
