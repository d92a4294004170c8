// `causeway threads` and `causeway critpath` on a real LTTng kernel trace: output shapes,
// the numbers they report agree with each other, and errors are clear.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_util.h"

namespace causeway::testing {
namespace {

TEST(CliKernelCommandsTest, ThreadsJsonListsEveryThreadWithItsStates) {
  std::string err;
  const CommandResult r =
      RunCli("threads '" + TestTrace("lttng/many-threads") + "' --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["hosts"], nlohmann::json::array({"wilbrod"}));
  ASSERT_GT(j["threads"].size(), 8000u);
  EXPECT_EQ(j["counters"]["switches"], 28325);  // every sched_switch of the trace
  EXPECT_EQ(j["counters"]["forks"], 8003);
  // A thread's states add up to its life.
  for (const auto& t : j["threads"]) {
    int64_t sum = 0;
    for (const auto& [state, ns] : t["by_state"].items()) sum += ns.get<int64_t>();
    ASSERT_EQ(sum, t["end_ns"].get<int64_t>() - t["start_ns"].get<int64_t>()) << t.dump();
  }
}

TEST(CliKernelCommandsTest, CritpathJsonTilesTheRangeAndSummarizes) {
  // genKernelTraces (tid 2673) forks the 8000 threads and waits for them.
  std::string err;
  const CommandResult r =
      RunCli("critpath '" + TestTrace("lttng/many-threads") + "' --tid 2673 --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["thread"]["tid"], 2673);
  EXPECT_EQ(j["thread"]["name"], "genKernelTraces");
  int64_t at = j["begin_ns"];
  std::set<int> tids;
  for (const auto& s : j["segments"]) {
    ASSERT_EQ(s["start_ns"].get<int64_t>(), at);
    at = s["end_ns"];
    tids.insert(s["tid"].get<int>());
  }
  EXPECT_EQ(at, j["end_ns"].get<int64_t>());
  EXPECT_GT(tids.size(), 1u) << "its waits resolve to other threads";
  EXPECT_EQ(j["summary"]["total_ns"], j["duration_ns"]);
  EXPECT_FALSE(j["links"].empty());
  int64_t by_state = 0;
  for (const auto& [state, ns] : j["summary"]["by_state"].items()) by_state += ns.get<int64_t>();
  EXPECT_EQ(by_state, j["duration_ns"].get<int64_t>());
}

TEST(CliKernelCommandsTest, ThreadsCriticalGivesEachThreadsCriticalPathTimes) {
  // --critical puts the critical path's time by state beside each thread's own; for
  // genKernelTraces it equals what `critpath` walks over its whole life.
  std::string err;
  const std::string trace = TestTrace("lttng/many-threads");
  const CommandResult r = RunCli("threads '" + trace + "' --critical --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GT(j["threads"].size(), 8000u);
  nlohmann::json main_thread;
  for (const auto& t : j["threads"]) {
    int64_t own = 0, critical = 0;
    for (const auto& [state, ns] : t["by_state"].items()) own += ns.get<int64_t>();
    for (const auto& [state, ns] : t["critical_path_by_state"].items())
      critical += ns.get<int64_t>();
    ASSERT_EQ(own, t["end_ns"].get<int64_t>() - t["start_ns"].get<int64_t>()) << t.dump();
    ASSERT_EQ(critical, own) << t.dump();
    if (t["tid"] == 2673) main_thread = t;
  }
  ASSERT_FALSE(main_thread.is_null());
  // Its own life is mostly BLOCKED (waiting for its children); its critical path is not.
  EXPECT_GT(main_thread["by_state"].value("BLOCKED", 0), 0);
  const CommandResult c = RunCli("critpath '" + trace + "' --tid 2673 --format json", &err);
  ASSERT_EQ(c.exit_code, 0) << err;
  const auto p = nlohmann::json::parse(c.out);
  EXPECT_EQ(main_thread["critical_path_by_state"], p["summary"]["by_state"]);

  const CommandResult text = RunCli("threads '" + trace + "' --critical --limit 3", &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("along each thread's critical path"), std::string::npos) << text.out;
}

TEST(CliKernelCommandsTest, CritpathTextHasThePathAndBothSummaries) {
  std::string err;
  const std::string trace = TestTrace("lttng/many-threads");
  const CommandResult r =
      RunCli("critpath '" + trace + "' --tid 2673 --begin 1457113582.90 --end 1457113582.95", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(r.out.find("Critical path of tid 2673 (genKernelTraces) on host wilbrod"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("From 1457113582.900000000 to 1457113582.950000000 (50.000 ms)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Summary by state"), std::string::npos);
  EXPECT_NE(r.out.find("Summary by thread"), std::string::npos);
}

TEST(CliKernelCommandsTest, ErrorsNameTheProblem) {
  const std::string kernel = TestTrace("lttng/many-threads");
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  } cases[] = {
      {"critpath '" + kernel + "' --tid 999999", 1, "tid 999999 does not run in the traces"},
      {"critpath '" + kernel + "' --tid 2673 --host nowhere", 1, "no host 'nowhere'"},
      {"critpath '" + kernel + "' --tid 2673 --begin 5 --end 4", 2, "--begin is after --end"},
      {"critpath '" + kernel + "'", 2, "--tid is required"},
      {"critpath '" + kernel + "' --tid 2673 --format xml", 2, "--format"},
      {"threads '" + kernel + "' --sort size", 2, "--sort"},
      {"threads '" + TestTrace("lttng/memory") + "'", 1, "No scheduling events"},
      {"threads /nonexistent/trace", 1, "/nonexistent/trace"},
      {"critpath '" + kernel + "' --tid 2673 --begin 12:00", 2, "invalid time '12:00'"},
      {"critpath '" + kernel + "' --tid many", 2, "--tid"},
      {"threads '" + kernel + "' --limit -1", 2, "--limit"},
  };
  for (const auto& c : cases) {
    std::string err;
    const CommandResult r = RunCli(c.args, &err);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << c.args << "\n" << err;
  }
}

TEST(CliKernelCommandsTest, CorruptKernelTraceIsAClearErrorNamingFileAndOffset) {
  // many-threads with the magic of the first packet of channel0_0 overwritten.
  TempDir tmp;
  const std::string copy = tmp.path() + "/trace";
  ASSERT_EQ(RunCommand("cp -R '" + TestTrace("lttng/many-threads") + "' '" + copy + "'").exit_code,
            0);
  const std::string stream = copy + "/channel0_0";
  const CommandResult size = RunCommand("stat -c %s '" + stream + "'");
  ASSERT_EQ(size.exit_code, 0);
  const CommandResult patch = RunCommand("printf '\\336\\255\\276\\357' | dd of='" + stream +
                                         "' bs=1 seek=0 conv=notrunc 2>/dev/null");
  ASSERT_EQ(patch.exit_code, 0);
  for (const char* cmd : {"threads", "critpath"}) {
    std::string err;
    const CommandResult r =
        RunCli(std::string(cmd) + " '" + copy + "'" + (cmd[0] == 'c' ? " --tid 2673" : ""), &err);
    EXPECT_EQ(r.exit_code, 1) << cmd << "\n" << err;
    EXPECT_NE(err.find("channel0_0"), std::string::npos) << err;
    EXPECT_NE(err.find("offset="), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace causeway::testing
