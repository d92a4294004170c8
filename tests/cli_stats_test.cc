// `causeway stats` decodes each stream on its own, on several threads, without merging
// (EventReader::ScanUnordered). What it reports must not depend on that: the same output
// on 1 and 2 threads, and the counts, names and time range of the merged read that
// `causeway events` prints.
#include <fnmatch.h>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

class CliStatsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CliStatsTest, SameOnOneAndTwoThreadsAndAsTheMergedRead) {
  const std::string trace = TestTrace(GetParam());
  std::string err;
  const CommandResult one = RunCli("stats '" + trace + "' --format json --threads 1", &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  const CommandResult two = RunCli("stats '" + trace + "' --format json --threads 2", &err);
  ASSERT_EQ(two.exit_code, 0) << err;
  EXPECT_EQ(one.out, two.out);
  const CommandResult text_one = RunCli("stats '" + trace + "' --threads 1", &err);
  const CommandResult text_two = RunCli("stats '" + trace + "' --threads 2", &err);
  ASSERT_EQ(text_one.exit_code, 0) << err;
  EXPECT_EQ(text_one.out, text_two.out);

  // The merged read, event by event.
  const CommandResult events = RunCli("events '" + trace + "' --format jsonl", &err);
  ASSERT_EQ(events.exit_code, 0) << err;
  std::map<std::string, uint64_t> by_name;
  uint64_t count = 0, first = 0, last = 0;
  std::istringstream lines(events.out);
  for (std::string line; std::getline(lines, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e.contains("discarded")) continue;  // a discarded-events record, not an event
    const uint64_t ts = e["timestamp"].get<uint64_t>();
    if (!count++) first = ts;
    last = ts;
    ++by_name[e["name"].get<std::string>()];
  }
  ASSERT_GT(count, 0u);

  const auto stats = nlohmann::json::parse(two.out);
  EXPECT_EQ(stats["events"].get<uint64_t>(), count);
  EXPECT_EQ(stats["begin_ns"].get<uint64_t>(), first);
  EXPECT_EQ(stats["end_ns"].get<uint64_t>(), last);
  std::map<std::string, uint64_t> stats_by_name;
  for (const auto& n : stats["by_name"])
    stats_by_name[n["name"].get<std::string>()] = n["count"].get<uint64_t>();
  EXPECT_EQ(stats_by_name, by_name);
  uint64_t stream_events = 0;
  for (const auto& s : stats["streams"]) stream_events += s["events"].get<uint64_t>();
  EXPECT_EQ(stream_events, count);
}

// Several streams each (4, 4 and 2), one with events the tracer discarded (hello-lost).
INSTANTIATE_TEST_SUITE_P(BundledTraces, CliStatsTest,
                         ::testing::Values("lttng/bug446190", "lttng/hello-lost", "perf-sched"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == '/' || c == '-') c = '_';
                           return name;
                         });

// `events --name` takes several globs, comma separated and repeated (as babeltrace2's and
// perf script's filters): an event is printed when its name matches any of them.
TEST(CliStatsTest, EventsNameTakesSeveralGlobs) {
  const std::string trace = TestTrace("lttng/bug446190");
  std::string err;
  const CommandResult stats = RunCli("stats '" + trace + "' --format json", &err);
  ASSERT_EQ(stats.exit_code, 0) << err;
  const std::vector<std::string> globs = {"sched_switch", "irq_*", "*wakeup*"};
  uint64_t expected = 0;
  std::set<std::string> names;
  const auto by_name = nlohmann::json::parse(stats.out)["by_name"];
  for (const auto& n : by_name) {
    const std::string name = n["name"].get<std::string>();
    for (const std::string& g : globs)
      if (fnmatch(g.c_str(), name.c_str(), 0) == 0) {
        expected += n["count"].get<uint64_t>();
        names.insert(name);
        break;
      }
  }
  ASSERT_GE(names.size(), 3u);  // the globs pick several classes of this trace
  const CommandResult events = RunCli(
      "events '" + trace + "' --format jsonl --name 'sched_switch,irq_*' --name '*wakeup*'", &err);
  ASSERT_EQ(events.exit_code, 0) << err;
  uint64_t count = 0;
  std::set<std::string> seen;
  std::istringstream lines(events.out);
  for (std::string line; std::getline(lines, line);) {
    seen.insert(nlohmann::json::parse(line)["name"].get<std::string>());
    ++count;
  }
  EXPECT_EQ(count, expected);
  EXPECT_EQ(seen, names);
}

// An empty item in the glob list is a usage error that says so; a glob that names no event
// class of the traces is warned about, since printing nothing would look like no activity.
TEST(CliStatsTest, EventsNameRefusesEmptyGlobsAndWarnsOfUnmatchedOnes) {
  const std::string trace = TestTrace("lttng/bug446190");
  std::string err;
  const CommandResult empty =
      RunCli("events '" + trace + "' --limit 1 --name 'sched_switch,'", &err);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(err.find("--name 'sched_switch,': an empty glob in the list"), std::string::npos)
      << err;
  EXPECT_TRUE(empty.out.empty());

  const CommandResult typo =
      RunCli("events '" + trace + "' --limit 1 --name '[' --name sched_switch", &err);
  EXPECT_EQ(typo.exit_code, 0) << err;
  EXPECT_NE(err.find("warning: --name '[' matches no event of these traces"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("'sched_switch' matches no event"), std::string::npos) << err;
  EXPECT_NE(typo.out.find("sched_switch"), std::string::npos);
}

TEST(CliStatsTest, ThreadsMustBeAtLeastOne) {
  std::string err;
  const CommandResult r = RunCli("stats '" + TestTrace("lttng/memory") + "' --threads 0", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("--threads"), std::string::npos) << err;
}

// A recorder killed before its first packet reached the disk leaves metadata and empty
// stream files: `Events: 0` alone reads like a quiet machine, so stats warns.
TEST(CliStatsTest, EmptyTraceIsReadWithAWarning) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/kernel";
  {
    auto w = ctf::CtfWriter::Create(dir, ctf::TraceOptions{});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->AddEventClass("sched_switch", {{"x", ctf::FieldKind::kU32}}).ok());
    ASSERT_TRUE((*w)->WriteMetadata().ok());
  }
  for (const char* format : {"text", "json"}) {
    std::string err;
    const CommandResult r = RunCli("stats '" + dir + "' --format " + format, &err);
    EXPECT_EQ(r.exit_code, 0) << err;
    EXPECT_NE(err.find("warning: the trace holds no events"), std::string::npos)
        << format << ": " << err;
  }
}

}  // namespace
}  // namespace causeway::testing
