// CTF written by another writer: a live system-wide perf recording converted with
// `perf data convert --to-ctf` is read event for event like babeltrace2 reads it.
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/read_as_text.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

TEST(CtfPerfInteropTest, LivePerfRecordingConvertedToCtfMatchesBabeltrace) {
  if (geteuid() != 0)
    GTEST_SKIP() << "system-wide perf recording needs root; skipped (not counted as passed)";
  ASSERT_TRUE(HaveProgram("perf")) << "perf is missing: run scripts/setup.sh";
  ASSERT_TRUE(HaveProgram("babeltrace2")) << "babeltrace2 is missing: run scripts/setup.sh";
  TempDir tmp;
  const std::string data = tmp.path() + "/perf.data", ctf = tmp.path() + "/ctf";
  // sched events and syscall entry/exit for a short workload; perf restores the machine's
  // tracing state when it exits, but for the tracefs mount (the guard's).
  PerfTracefsGuard tracefs;
  CommandResult rec = RunCommand(
      "perf record -q -a -e sched:sched_switch -e sched:sched_waking "
      "-e raw_syscalls:sys_enter -o '" +
      data + "' -- sh -c 'ls /usr/bin >/dev/null; sleep 0.2'");
  ASSERT_EQ(rec.exit_code, 0) << "perf record failed";
  CommandResult conv = RunCommand("perf data convert -i '" + data + "' --to-ctf '" + ctf + "'");
  ASSERT_EQ(conv.exit_code, 0) << "perf data convert --to-ctf failed";

  CommandResult bt = RunCommand("babeltrace2 --clock-seconds --no-delta '" + ctf + "'");
  ASSERT_EQ(bt.exit_code, 0);
  const auto bt_lines = SplitLines(bt.out);
  const ReadResult ours = ReadAsText({ctf});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_GT(bt_lines.size(), 20u);
  ASSERT_EQ(ours.lines.size(), bt_lines.size());
  CountStaleEmptyStrings(bt_lines,
                         ours.lines);  // fails on any difference but babeltrace2's known bug
  bool saw_switch = false;
  for (const auto& l : ours.lines)
    saw_switch = saw_switch || l.find("sched:sched_switch: ") != std::string::npos;
  EXPECT_TRUE(saw_switch);
}

}  // namespace
}  // namespace causeway::testing
