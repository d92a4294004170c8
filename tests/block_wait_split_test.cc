// Waits ended by a block completion, split into the time before the awaited request was
// queued, its time queued (or throttled) in the block layer and its time on the device, on
// traces written with our CTF writer: the recorder's LTTng layout and perf's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/kernel_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "graph/thread_times.h"
#include "support/kernel_scenario.h"  // PathString
#include "support/lttng_kernel_trace.h"
#include "support/perf_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using ctf::FieldKind;
using graph::State;
using graph::WorkerId;
using kernel::LttngEvent;

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time
constexpr uint32_t kSda = 8u << 20;           // dev_t 8:0 as the kernel keeps it
constexpr uint32_t kLoop = 7u << 20;          // 7:0

WorkerId Thread(const graph::ExecutionGraph& g, int tid) {
  for (WorkerId w = 0; w < g.num_workers(); ++w)
    if (g.worker(w).tid == tid) return w;
  return graph::kNoWorker;
}

class BlockTrace {
 public:
  explicit BlockTrace(ctf::CtfWriter& w) : k_(w) {}
  const Status& status() const { return k_.status(); }
  void Switch(uint32_t cpu, int64_t t, int prev, int64_t state, int next) {
    k_.SchedSwitch(cpu, kBase + t, prev ? "t" : "swapper", prev, state, next ? "t" : "swapper",
                   next);
  }
  void Waking(uint32_t cpu, int64_t t, int tid) { k_.SchedWaking(cpu, kBase + t, "t", tid, cpu); }
  void BioQueue(uint32_t cpu, int64_t t, uint32_t dev, uint64_t sector, int tid, bool throttled) {
    k_.Begin(cpu, LttngEvent::kBlockBioQueue, kBase + t)
        .U32(dev)
        .U64(sector)
        .U32(8)
        .U32(1)
        .S32(tid)
        .Chars16("t")
        .U8(throttled);
  }
  void Rq(uint32_t cpu, LttngEvent e, int64_t t, uint32_t dev, uint64_t sector, int tid) {
    k_.Begin(cpu, e, kBase + t).U32(dev).U64(sector).U32(8).U32(4096).S32(tid).U32(1).Chars16("t");
  }
  void Complete(uint32_t cpu, int64_t t, uint32_t dev, uint64_t sector) {
    k_.Begin(cpu, LttngEvent::kBlockRqComplete, kBase + t)
        .U32(dev)
        .U64(sector)
        .U32(8)
        .S32(0)
        .U32(1);
  }
  // The disk's interrupt at t completes (dev, sector) and wakes `tid`, which runs at t + 10.
  void CompleteInIrqAndRun(uint32_t cpu, int64_t t, uint32_t dev, uint64_t sector, int tid) {
    k_.Begin(cpu, LttngEvent::kIrqHandlerEntry, kBase + t).S32(14).String("ahci");
    Complete(cpu, t, dev, sector);
    Waking(cpu, t + 1, tid);
    k_.Begin(cpu, LttngEvent::kIrqHandlerExit, kBase + t + 2).S32(14).S32(1);
    Switch(cpu, t + 10, 0, 0, tid);
  }

 private:
  testing::LttngKernelWriter k_;
};

// Four waits, one per way a request reaches its completion:
//   tid 1 queues its write (bio, then request), sleeps, the device takes it later;
//   tid 2 sleeps on a write the blkio throttle held: a worker (tid 60) queues it later;
//   tid 3 (an idle worker) waits before anybody queues the request that wakes it;
//   tid 4 waits on a loop device whose worker (tid 70) completes it in task context.
TEST(BlockWaitSplitTest, WaitsSplitIntoBeforeQueuedQueuedAndOnTheDevice) {
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";
    auto w = ctf::CtfWriter::Create(tmp.path() + "/kernel", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    BlockTrace t(**w);
    ASSERT_TRUE(t.status().ok()) << t.status().ToString();
    t.Switch(0, 0, 0, 0, 1);
    t.Switch(1, 0, 0, 0, 2);
    t.Switch(2, 0, 0, 0, 3);
    t.Switch(3, 0, 0, 0, 4);
    t.Switch(2, 5, 3, 1, 0);  // 3 idles
    t.BioQueue(0, 10, kSda, 2048, 1, false);
    t.Rq(0, LttngEvent::kBlockRqInsert, 12, kSda, 2048, 1);
    t.Switch(0, 20, 1, 2, 0);  // 1 waits for its write
    t.Switch(1, 30, 2, 2, 0);  // 2 waits: its write sits in the throttle, unseen
    t.BioQueue(3, 39, kLoop, 64, 4, false);
    t.Switch(3, 40, 4, 2, 0);  // 4 waits for its loop write
    t.Rq(0, LttngEvent::kBlockRqIssue, 500, kSda, 2048, 0);
    t.CompleteInIrqAndRun(0, 600, kSda, 2048, 1);
    // The throttle lets tid 2's bio go at 1000, from its worker (tid 60).
    t.Switch(1, 1000, 0, 0, 60);
    t.BioQueue(1, 1000, kSda, 4096, 60, true);
    t.Rq(1, LttngEvent::kBlockRqInsert, 1001, kSda, 4096, 60);
    t.Rq(1, LttngEvent::kBlockRqIssue, 1100, kSda, 4096, 60);
    t.Switch(1, 1101, 60, 1, 0);
    t.CompleteInIrqAndRun(1, 1300, kSda, 4096, 2);
    // Somebody else's request wakes the idle worker 3.
    t.Rq(2, LttngEvent::kBlockRqInsert, 2000, kSda, 8192, 0);
    t.Rq(2, LttngEvent::kBlockRqIssue, 2100, kSda, 8192, 0);
    t.CompleteInIrqAndRun(2, 2200, kSda, 8192, 3);
    // The loop device: queued at 39, its worker 70 issues it, reads the backing file and
    // completes it in task context, then wakes 4.
    t.Switch(3, 3000, 0, 0, 70);
    t.Rq(3, LttngEvent::kBlockRqIssue, 3000, kLoop, 64, 70);
    t.Complete(3, 3500, kLoop, 64);
    t.Waking(3, 3501, 4);
    t.Switch(3, 3510, 70, 1, 4);
    t.Switch(0, 4000, 1, 1, 0);
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  EXPECT_EQ(testing::PathString(g, Thread(g, 1), INT64_MIN, INT64_MAX, kBase),
            "1@0-20 RUNNING | 1@20-500 BLOCK_QUEUE(disk 8:0) | 1@500-601 BLOCK_DEVICE(disk 8:0) | "
            "1@601-610 PREEMPTED | 1@610-4000 RUNNING");
  EXPECT_EQ(testing::PathString(g, Thread(g, 2), INT64_MIN, INT64_MAX, kBase),
            "2@0-30 RUNNING | 2@30-1000 BLOCK_QUEUE(blkio throttle, disk 8:0) | "
            "2@1000-1100 BLOCK_QUEUE(disk 8:0) | 2@1100-1301 BLOCK_DEVICE(disk 8:0) | "
            "2@1301-1310 PREEMPTED | 2@1310-4000 RUNNING");
  EXPECT_EQ(testing::PathString(g, Thread(g, 3), INT64_MIN, INT64_MAX, kBase),
            "3@0-5 RUNNING | 3@5-2000 BLOCKED(before its I/O was queued) | "
            "3@2000-2100 BLOCK_QUEUE(disk 8:0) | 3@2100-2201 BLOCK_DEVICE(disk 8:0) | "
            "3@2201-2210 PREEMPTED | 3@2210-4000 RUNNING");
  // No link to the loop worker: its work is the device's time.
  EXPECT_EQ(
      testing::PathString(g, Thread(g, 4), INT64_MIN, INT64_MAX, kBase),
      "4@0-40 RUNNING | 4@40-3000 BLOCK_QUEUE(disk 7:0) | 4@3000-3501 BLOCK_DEVICE(disk 7:0) | "
      "4@3501-3510 PREEMPTED | 4@3510-4000 RUNNING");
  EXPECT_EQ((*a)->counters.block.matched, 4u);
  EXPECT_EQ((*a)->counters.block.unmatched, 0u);
  EXPECT_EQ((*a)->counters.block_waits_split, 4u);

  // Each thread's own times say the same (`causeway threads`).
  const std::vector<graph::ThreadTimes> rows = graph::ComputeThreadTimes(g);
  for (const graph::ThreadTimes& r : rows) {
    if (g.worker(r.worker).tid != 2) continue;
    EXPECT_EQ(r.by_state[static_cast<int>(State::kBlockQueue)], 970 + 100);
    EXPECT_EQ(r.by_state[static_cast<int>(State::kBlockDevice)], 201);
  }

  // The CLI: threads sorted by queue time, as JSON, and the critical path's summary.
  std::string err;
  const testing::CommandResult threads =
      testing::RunCli("threads '" + tmp.path() + "' --sort block_queue --format json", &err);
  ASSERT_EQ(threads.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(threads.out);
  ASSERT_FALSE(j["threads"].empty()) << threads.out;
  EXPECT_EQ(j["threads"][0]["tid"], 4);  // 2960 ns queued, then 2's 1070
  EXPECT_EQ(j["threads"][0]["by_state"]["BLOCK_QUEUE"], 2960);
  EXPECT_EQ(j["threads"][1]["tid"], 2);
  EXPECT_EQ(j["counters"]["block_waits_split"], 4);
  EXPECT_EQ(j["counters"]["block_requests_matched"], 4);
  const testing::CommandResult path =
      testing::RunCli("critpath '" + tmp.path() + "' --tid 2", &err);
  ASSERT_EQ(path.exit_code, 0) << err;
  EXPECT_NE(path.out.find("BLOCK_QUEUE  "), std::string::npos) << path.out;
  EXPECT_NE(path.out.find("blkio throttle, disk 8:0"), std::string::npos) << path.out;
}

// perf's layout: "block:" names, no irq events (the completion's common_flags say hardirq),
// the issuing task in perf_tid.
TEST(BlockWaitSplitTest, PerfLayoutBlockEventsSplitTheWait) {
  testing::TempDir tmp;
  ctf::TraceOptions opts;
  opts.hostname = "perfhost";
  opts.tracer_name = "perf";
  auto w = ctf::CtfWriter::Create(tmp.path() + "/ctf", opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::PerfKernelWriter perf(**w);
  const std::vector<ctf::FieldSpec> rq = {
      {"dev", FieldKind::kU32},   {"sector", FieldKind::kU64},  {"nr_sector", FieldKind::kU32},
      {"bytes", FieldKind::kU32}, {"rwbs", FieldKind::kString}, {"comm", FieldKind::kString}};
  const uint32_t insert = perf.AddClass("block:block_rq_insert", rq);
  const uint32_t issue = perf.AddClass("block:block_rq_issue", rq);
  const uint32_t complete =
      perf.AddClass("block:block_rq_complete", {{"dev", FieldKind::kU32},
                                                {"sector", FieldKind::kU64},
                                                {"nr_sector", FieldKind::kU32},
                                                {"error", FieldKind::kS32},
                                                {"rwbs", FieldKind::kString}});
  auto sched_switch = [&](int64_t t, int prev, int64_t state, int next) {
    perf.SchedSwitch(0, kBase + t, prev, state, next);
  };
  auto block = [&](uint32_t cls, int64_t t, int current, uint32_t flags) {
    auto b = perf.Begin(0, cls, kBase + t, current, flags);
    b.U32(kSda).U64(512).U32(8);
    if (cls == complete)
      b.S32(0).String("W");
    else
      b.U32(4096).String("W").String("t");
  };
  sched_switch(0, 0, 0, 1);
  block(insert, 5, 1, 0);
  sched_switch(10, 1, 2, 0);
  block(issue, 40, 0, 0);
  block(complete, 90, 0, 0x08);
  perf.SchedWaking(0, kBase + 91, 0, 0x08, 1);
  sched_switch(95, 0, 0, 1);
  sched_switch(100, 1, 1, 0);
  ASSERT_TRUE((*w)->Close().ok());

  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  EXPECT_EQ(testing::PathString(g, Thread(g, 1), INT64_MIN, INT64_MAX, kBase),
            "1@0-10 RUNNING | 1@10-40 BLOCK_QUEUE(disk 8:0) | 1@40-91 BLOCK_DEVICE(disk 8:0) | "
            "1@91-95 PREEMPTED | 1@95-100 RUNNING");
}

}  // namespace
}  // namespace causeway
