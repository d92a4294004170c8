// The kernel analysis end to end on CTF traces: the real LTTng traces of tests/data, and
// small traces written with our CTF writer in LTTng's and in perf's layouts.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "analysis/kernel_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "graph/critical_path.h"
#include "support/kernel_scenario.h"
#include "support/lttng_kernel_trace.h"
#include "support/perf_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using ctf::FieldKind;
using graph::WorkerId;

// Checks the invariants every critical path must keep; returns the number of segments
// spent on other threads.
size_t CheckTiling(const graph::ExecutionGraph& g, const graph::CriticalPath& p) {
  const std::string who = "worker " + std::to_string(p.worker);
  size_t foreign = 0;
  if (p.end > p.begin) {
    EXPECT_FALSE(p.segments.empty()) << who;
  }
  int64_t at = p.begin;
  for (const auto& s : p.segments) {
    EXPECT_EQ(s.start, at) << who << ": gap or overlap";
    EXPECT_LT(s.start, s.end) << who << ": empty segment";
    EXPECT_LT(s.worker, g.num_workers()) << who;
    if (s.worker >= g.num_workers()) return foreign;
    // A segment of another thread lies inside that thread's life.
    EXPECT_GE(s.start, g.worker(s.worker).start()) << who;
    EXPECT_LE(s.end, g.WorkerEnd(s.worker)) << who;
    foreign += s.worker != p.worker;
    at = s.end;
  }
  EXPECT_EQ(at, p.end) << who << ": the path does not reach the end of the range";
  for (const auto& l : p.links) {
    EXPECT_LT(l.from, g.num_workers()) << who;
    EXPECT_LT(l.to, g.num_workers()) << who;
    EXPECT_LE(l.from_ts, l.to_ts) << who;
  }
  return foreign;
}

void CheckEveryThreadTiles(const std::string& trace, size_t* threads, size_t* resolved) {
  auto a = analysis::AnalyzeKernel({trace});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  graph::CriticalPathFinder finder(g);
  graph::CriticalPath p;
  *threads = 0;
  *resolved = 0;
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    finder.Compute(w, INT64_MIN, INT64_MAX, &p);
    EXPECT_EQ(p.begin, g.worker(w).start());
    EXPECT_EQ(p.end, g.WorkerEnd(w));
    ++*threads;
    *resolved += CheckTiling(g, p) > 0;
    if (::testing::Test::HasFailure()) return;  // one broken path is enough to read
  }
}

TEST(KernelGraphTraceTest, ManyThreadsEveryPathTilesItsThreadsLife) {
  size_t threads = 0, resolved = 0;
  CheckEveryThreadTiles(std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/many-threads", &threads,
                        &resolved);
  // The trace forks 8000 short threads; many wait on another thread.
  EXPECT_GT(threads, 8000u);
  EXPECT_GT(resolved, 300u);  // 391 in this trace
}

TEST(KernelGraphTraceTest, OlderLttngLayoutEveryPathTiles) {
  // bug446190: LTTng 2.x names before the 2.7 renames (softirq_entry, hrtimer_expire_entry).
  size_t threads = 0, resolved = 0;
  CheckEveryThreadTiles(std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/bug446190", &threads,
                        &resolved);
  EXPECT_GT(threads, 50u);
  EXPECT_GT(resolved, 0u);
}

TEST(KernelGraphTraceTest, UserSpaceTraceAloneIsAClearError) {
  auto a = analysis::AnalyzeKernel({std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/memory"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().ToString().find("No scheduling events"), std::string::npos)
      << a.status().ToString();
  // The trace left unread is still named.
  EXPECT_NE(a.status().ToString().find("lttng/memory"), std::string::npos) << a.status().ToString();
}

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time

// A recording holds the user-space traces beside the kernel's (causeway record, LTTng
// sessions). They are left unread: none of their events is a kernel one, and their lost
// events (a full user-space ring buffer) say nothing about the thread then on that CPU.
TEST(KernelGraphTraceTest, UserSpaceTracesBesideTheKernelAreNotRead) {
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";
    auto w = ctf::CtfWriter::Create(tmp.path() + "/kernel", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    testing::LttngKernelWriter kernel(**w);
    ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
    kernel.SchedSwitch(0, kBase, "swapper", 0, 0, "app", 1);
    kernel.SchedSwitch(0, kBase + 100, "app", 1, 1, "swapper", 0);
    const Status closed = (*w)->Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";  // the same host: its lost events would land on the kernel's CPU 0
    opts.domain = "ust";
    opts.tracer_name = "lttng-ust";
    opts.event_context_procname_vtid = true;
    auto w = ctf::CtfWriter::Create(tmp.path() + "/ust/app-1", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick = *(*w)->AddEventClass("app:tick", {{"n", FieldKind::kU32}});
    const ctf::UstContext ctx{"app", 1};
    (*w)->Begin(0, tick, kBase + 10, ctx).U32(1);
    ASSERT_TRUE((*w)->SetDiscarded(0, 5).ok());
    (*w)->Begin(0, tick, kBase + 50, ctx).U32(2);
    const Status closed = (*w)->Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ((*a)->trace_dirs.size(), 1u);
  EXPECT_EQ(std::filesystem::path((*a)->trace_dirs[0]).filename(), "kernel");
  ASSERT_EQ((*a)->unused_trace_dirs.size(), 1u);
  EXPECT_EQ(std::filesystem::path((*a)->unused_trace_dirs[0]).filename(), "app-1");
  EXPECT_EQ((*a)->counters.lost_records, 0u);
  EXPECT_EQ((*a)->events_read, 2u);
  const graph::ExecutionGraph& g = (*a)->graph;
  WorkerId app = graph::kNoWorker;
  for (WorkerId x = 0; x < g.num_workers(); ++x)
    if (g.worker(x).tid == 1) app = x;
  ASSERT_NE(app, graph::kNoWorker);
  EXPECT_EQ(testing::PathString(g, app, INT64_MIN, INT64_MAX, kBase), "1@0-100 RUNNING");
}

// The network scenario of the DSL test, as LTTng 2.8 kernel events written with our writer.
TEST(KernelGraphTraceTest, LttngLayoutNetworkWakeUpAcrossTwoHosts) {
  testing::TempDir tmp;
  auto write_host = [&](const std::string& host, auto&& body) {
    ctf::TraceOptions opts;
    opts.hostname = host;
    auto w = ctf::CtfWriter::Create(tmp.path() + "/" + host, opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ctf::CtfWriter& cw = **w;
    using kernel::LttngEvent;
    const uint32_t sw = *kernel::DeclareLttngEvent(cw, LttngEvent::kSchedSwitch);
    const uint32_t waking = *kernel::DeclareLttngEvent(cw, LttngEvent::kSchedWaking);
    const uint32_t si_entry = *kernel::DeclareLttngEvent(cw, LttngEvent::kSoftirqEntry);
    const uint32_t si_exit = *kernel::DeclareLttngEvent(cw, LttngEvent::kSoftirqExit);
    // LTTng 2.8's network addon: TCP segments as inet_sock_local_out / _in.
    const std::vector<ctf::FieldSpec> tcp = {
        {"skbaddr", FieldKind::kHex64}, {"saddr", FieldKind::kU32}, {"daddr", FieldKind::kU32},
        {"sport", FieldKind::kU16},     {"dport", FieldKind::kU16}, {"seq", FieldKind::kU32},
        {"ack_seq", FieldKind::kU32},   {"flags", FieldKind::kU8}};
    const uint32_t out = *cw.AddEventClass("inet_sock_local_out", tcp);
    const uint32_t in = *cw.AddEventClass("inet_sock_local_in", tcp);
    auto sched_switch = [&](int cpu, int64_t t, int prev, int64_t state, int next) {
      cw.Begin(cpu, sw, kBase + t)
          .Chars16(prev ? "p" : "swapper")
          .S32(prev)
          .S32(20)
          .S64(state)
          .Chars16(next ? "n" : "swapper")
          .S32(next)
          .S32(20);
    };
    auto wake = [&](int cpu, int64_t t, int tid) {
      cw.Begin(cpu, waking, kBase + t).Chars16("t").S32(tid).S32(20).S32(cpu);
    };
    auto segment = [&](uint32_t cls, int cpu, int64_t t, uint32_t seq, uint32_t ack, uint8_t fl) {
      cw.Begin(cpu, cls, kBase + t)
          .Hex64(0xffff8800)
          .U32(1)
          .U32(2)
          .U16(3)
          .U16(4)
          .U32(seq)
          .U32(ack)
          .U8(fl);
    };
    body(
        sched_switch, wake,
        [&](int cpu, int64_t t, uint32_t vec, bool entry) {
          cw.Begin(cpu, entry ? si_entry : si_exit, kBase + t).U32(vec);
        },
        [&](int cpu, int64_t t, uint32_t s, uint32_t a, uint8_t f) {
          segment(out, cpu, t, s, a, f);
        },
        [&](int cpu, int64_t t, uint32_t s, uint32_t a, uint8_t f) {
          segment(in, cpu, t, s, a, f);
        });
    ASSERT_TRUE(cw.Close().ok());
  };
  write_host("client", [](auto sched_switch, auto, auto, auto send, auto) {
    sched_switch(0, 0, 0, 0, 1);
    send(0, 30, 100, 1, 0x18);
    sched_switch(0, 90, 1, 1, 0);
  });
  write_host("server", [](auto sched_switch, auto wake, auto softirq, auto, auto recv) {
    sched_switch(0, 0, 0, 0, 7);
    sched_switch(0, 5, 7, 1, 0);
    softirq(0, 32, 3, true);
    recv(0, 32, 100, 1, 0x18);
    wake(0, 33, 7);
    softirq(0, 33, 3, false);
    sched_switch(0, 35, 0, 0, 7);
    sched_switch(0, 100, 7, 1, 0);
  });
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  ASSERT_EQ(g.hosts().size(), 2u);
  WorkerId server = graph::kNoWorker;
  for (WorkerId w = 0; w < g.num_workers(); ++w)
    if (g.worker(w).tid == 7) server = w;
  ASSERT_NE(server, graph::kNoWorker);
  EXPECT_EQ(
      testing::PathString(g, server, INT64_MIN, INT64_MAX, kBase),
      "server/7@0-5 RUNNING | client/1@5-30 RUNNING | server/7@30-33 NETWORK(softirq NET_RX) | "
      "server/7@33-35 PREEMPTED | server/7@35-100 RUNNING");
  EXPECT_EQ((*a)->counters.packets_matched, 1u);
}

// Writes one host's kernel trace in the recorder's layout; `body` writes the events.
template <typename Body>
void WriteRecorderTrace(const std::string& dir, Body&& body) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter kernel(**w);
  ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
  body(kernel);
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

WorkerId WorkerOfTid(const graph::ExecutionGraph& g, int32_t tid) {
  for (WorkerId x = 0; x < g.num_workers(); ++x)
    if (g.worker(x).tid == tid) return x;
  return graph::kNoWorker;
}

// A wifi driver's threaded IRQ handler receives the client's segment in its own context
// (netif_receive_skb outside any softirq) and wakes the server: the server's path goes to
// the client, not through the IRQ thread's own history.
TEST(KernelGraphTraceTest, SegmentReceivedInAThreadedIrqHandlerLinksToItsSender) {
  testing::TempDir tmp;
  WriteRecorderTrace(tmp.path() + "/kernel", [](testing::LttngKernelWriter& k) {
    using kernel::LttngEvent;
    testing::TcpSegment seg;
    seg.seq = 1000;
    seg.ack_seq = 7;
    seg.flags = 0x18;
    seg.payload_len = 100;
    k.SchedSwitch(0, kBase, "swapper", 0, 0, "client", 1);
    k.SchedSwitch(1, kBase, "swapper", 0, 0, "server", 2);
    k.SchedSwitch(1, kBase + 5, "server", 2, 1, "swapper", 0);  // waits in recv()
    k.Tcp(0, kBase + 30, /*sent=*/true, seg);
    k.Begin(1, LttngEvent::kIrqHandlerEntry, kBase + 31).S32(42).String("iwlwifi");
    k.SchedWaking(1, kBase + 31, "irq/42-iwlwifi", 50, 1);
    k.Begin(1, LttngEvent::kIrqHandlerExit, kBase + 32).S32(42).S32(2);
    k.SchedSwitch(1, kBase + 33, "swapper", 0, 0, "irq/42-iwlwifi", 50);
    k.Tcp(1, kBase + 34, /*sent=*/false, seg);
    k.SchedWaking(1, kBase + 35, "server", 2, 1);
    k.SchedSwitch(1, kBase + 36, "irq/42-iwlwifi", 50, 1, "server", 2);
    k.SchedSwitch(1, kBase + 100, "server", 2, 1, "swapper", 0);
    k.SchedSwitch(0, kBase + 100, "client", 1, 1, "swapper", 0);
  });
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  const WorkerId server = WorkerOfTid(g, 2);
  ASSERT_NE(server, graph::kNoWorker);
  EXPECT_EQ(testing::PathString(g, server, INT64_MIN, INT64_MAX, kBase),
            "2@0-5 RUNNING | 1@5-30 RUNNING | 2@30-35 NETWORK(received by irq/42-iwlwifi) | "
            "2@35-36 PREEMPTED | 2@36-100 RUNNING");
  EXPECT_EQ((*a)->counters.packets_matched, 1u);
}

// On some kernels a thread's switch-outs are never recorded (tokio's workers on the
// machine of issue 56): the thread the next switch names as prev woke the backend, not the
// thread the model last saw switched in on that CPU.
TEST(KernelGraphTraceTest, MissingSwitchOutCreditsTheWakeUpToTheNextSwitchsPrev) {
  testing::TempDir tmp;
  WriteRecorderTrace(tmp.path() + "/kernel", [](testing::LttngKernelWriter& k) {
    using kernel::LttngEvent;
    k.SchedSwitch(0, kBase, "swapper", 0, 0, "tokio-rt-worker", 10);
    k.SchedSwitch(1, kBase, "swapper", 0, 0, "postgres", 3);
    k.SchedSwitch(1, kBase + 5, "postgres", 3, 1, "swapper", 0);  // the backend waits
    // tokio runs on cpu 1 and sleeps there: its switch-out from cpu 0 was not recorded,
    // nor the switch-in of 20 that replaced it.
    k.SchedSwitch(1, kBase + 10, "swapper", 0, 0, "tokio-rt-worker", 10);
    k.SchedSwitch(1, kBase + 12, "tokio-rt-worker", 10, 1, "swapper", 0);
    k.SchedWaking(0, kBase + 40, "postgres", 3, 1);  // by 20, in fact
    k.SchedSwitch(0, kBase + 45, "postgres", 20, 1, "swapper", 0);
    k.SchedSwitch(1, kBase + 47, "swapper", 0, 0, "postgres", 3);
    k.SchedSwitch(1, kBase + 100, "postgres", 3, 1, "swapper", 0);
  });
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  const WorkerId backend = WorkerOfTid(g, 3);
  ASSERT_NE(backend, graph::kNoWorker);
  // 20 was never seen before its switch-out: what it did until the wake-up is unknown.
  EXPECT_EQ(testing::PathString(g, backend, INT64_MIN, INT64_MAX, kBase),
            "3@0-5 RUNNING | 20@5-40 UNKNOWN(before first event) | 3@40-47 PREEMPTED | "
            "3@47-100 RUNNING");
  const WorkerId tokio = WorkerOfTid(g, 10);
  ASSERT_NE(tokio, graph::kNoWorker);
  EXPECT_EQ(testing::PathString(g, tokio, INT64_MIN, INT64_MAX, kBase),
            "10@0-12 RUNNING | 10@12-100 BLOCKED(until end of trace)");
  EXPECT_EQ((*a)->counters.wakers_corrected, 1u);
}

// perf's `perf data convert --to-ctf` layout: "sched:" names, pid-named fields, the current
// task in perf_tid and the interrupt context in common_flags.
TEST(KernelGraphTraceTest, PerfLayoutLockHandOffAndHardIrqWakeUp) {
  testing::TempDir tmp;
  ctf::TraceOptions opts;
  opts.hostname = "perfhost";
  opts.tracer_name = "perf";
  auto w = ctf::CtfWriter::Create(tmp.path() + "/ctf", opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::PerfKernelWriter perf(**w);
  auto sched_switch = [&](int cpu, int64_t t, int prev, int64_t state, int next) {
    perf.SchedSwitch(cpu, kBase + t, prev, state, next);
  };
  auto wake = [&](int cpu, int64_t t, int current, uint32_t flags, int tid) {
    perf.SchedWaking(cpu, kBase + t, current, flags, tid);
  };
  sched_switch(0, 0, 0, 0, 1);
  sched_switch(1, 0, 0, 0, 2);
  sched_switch(0, 10, 1, 1, 0);  // 1 blocks on a lock 2 holds
  wake(1, 50, 2, 0, 1);          // 2 releases it
  sched_switch(0, 55, 0, 0, 1);
  sched_switch(0, 60, 1, 1, 0);  // 1 sleeps...
  wake(0, 80, 0, 0x08, 1);       // ...until a hard IRQ (perf: common_flags has HARDIRQ)
  sched_switch(0, 82, 0, 0, 1);
  sched_switch(1, 100, 2, 1, 0);
  ASSERT_TRUE((*w)->Close().ok());

  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  WorkerId t1 = graph::kNoWorker;
  for (WorkerId x = 0; x < g.num_workers(); ++x)
    if (g.worker(x).tid == 1) t1 = x;
  ASSERT_NE(t1, graph::kNoWorker);
  EXPECT_EQ(testing::PathString(g, t1, INT64_MIN, INT64_MAX, kBase),
            "1@0-10 RUNNING | 2@10-50 RUNNING | 1@50-55 PREEMPTED | 1@55-60 RUNNING | "
            "1@60-80 INTERRUPTED(hardirq: timer or device (irq events not recorded)) | "
            "1@80-82 PREEMPTED | 1@82-100 RUNNING");
}

}  // namespace
}  // namespace causeway
