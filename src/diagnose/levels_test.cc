// A request's levels on a hand-made graph and path, with and without a hand-made store; the
// top-down walk against a baseline; and the whole diagnosis on a kernel scenario.
#include "diagnose/levels.h"

#include <gtest/gtest.h>

#include "diagnose/diagnosis.h"
#include "support/kernel_scenario.h"
#include "support/request_pieces.h"
#include "support/test_util.h"

namespace causeway::diagnose {
namespace {

using graph::State;

// tid 10 (pid 10) of host h0: RUNNING 0-10, BLOCKED(futex) 10-20, BLOCK_QUEUE 20-25 and
// BLOCK_DEVICE 25-60 on disk 8:0 sda, RUNNING 60-70, NETWORK 70-80; its path is its own.
struct OneThread {
  graph::ExecutionGraph g;
  graph::WorkerId w;
  std::vector<requests::Piece> path;
  OneThread() {
    const uint32_t h = g.AddHost("h0");
    w = g.AddWorker(h, 10, 0, State::kRunning);
    g.mutable_worker(w).pid = 10;
    const graph::StringId disk = g.Intern("disk 8:0 sda");
    g.SetState(w, 10, State::kBlocked, g.Intern("futex"));
    g.SetState(w, 20, State::kBlockQueue, disk);
    g.SetState(w, 25, State::kBlockDevice, disk);
    g.SetState(w, 60, State::kRunning);
    g.SetState(w, 70, State::kNetwork, g.Intern("irq 19 eth0"));
    g.set_end(80);
    for (auto [s, a, b] : {std::tuple{State::kRunning, 0, 10},
                           {State::kBlocked, 10, 20},
                           {State::kBlockQueue, 20, 25},
                           {State::kBlockDevice, 25, 60},
                           {State::kRunning, 60, 70},
                           {State::kNetwork, 70, 80}})
      path.push_back({w, s, requests::Cause::kOther, a, b});
  }
};

// The thread's syscalls: futex 10-20, fsync 20-62; its process read 10 pages of file 77
// while the request ran, 4 of them missing from the cache.
std::unique_ptr<state::StateStore> WriteStore(const std::string& path) {
  auto writer = state::StateWriter::Create(path);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return nullptr;
  state::StateWriter& w = **writer;
  const state::AttributeId call = w.Attribute("hosts/h0/threads/10/syscall");
  w.Set(call, 10, state::StateValue::String(w.Intern("futex")));
  w.Set(call, 20, state::StateValue::String(w.Intern("fsync")));
  w.Set(call, 62, state::StateValue::Null());
  const state::AttributeId read = w.Attribute("hosts/h0/processes/10/files/77/pages_read");
  const state::AttributeId missed = w.Attribute("hosts/h0/processes/10/files/77/cache_misses");
  w.Set(read, 0, state::StateValue::Int(3));  // before the request
  w.Set(missed, 0, state::StateValue::Int(1));
  w.Set(read, 30, state::StateValue::Int(13));
  w.Set(missed, 30, state::StateValue::Int(5));
  w.Set(read, 90, state::StateValue::Int(50));  // after it
  EXPECT_TRUE(w.Finish(100).ok());
  auto store = state::StateStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

std::vector<Amount> A(std::initializer_list<Amount> v) { return v; }

TEST(LevelsTest, WithoutAStoreKernelAndBelowOnly) {
  OneThread t;
  const StoreLevels none(t.g, nullptr);
  const RequestLevels l = ComputeLevels(t.g, t.path, 80, {}, none);
  EXPECT_FALSE(l.syscalls_recorded);
  EXPECT_TRUE(l.syscalls.empty());
  EXPECT_EQ(l.states, A({{"BLOCK_DEVICE", 35},
                         {"RUNNING", 20},
                         {"BLOCKED(futex)", 10},
                         {"NETWORK", 10},
                         {"BLOCK_QUEUE", 5}}));
  EXPECT_EQ(l.below, A({{"block device", 35}, {"network", 10}, {"block queue", 5}}));
  EXPECT_EQ(l.devices, A({{"disk 8:0 sda", 40}}));
  EXPECT_FALSE(l.page_cache.recorded);
}

TEST(LevelsTest, SyscallsCutTheKernelStatesAndPageCacheCountsTheReads) {
  OneThread t;
  testing::TempDir tmp;
  const auto store = WriteStore(tmp.path() + "/store");
  ASSERT_NE(store, nullptr);
  const StoreLevels levels(t.g, store.get());
  EXPECT_TRUE(levels.syscalls_recorded());
  EXPECT_TRUE(levels.page_cache_recorded());
  const RequestLevels l = ComputeLevels(t.g, t.path, 80, {}, levels);
  ASSERT_TRUE(l.syscalls_recorded);
  ASSERT_EQ(l.syscalls.size(), 3u);
  EXPECT_EQ(l.syscalls[0].name, "fsync");
  EXPECT_EQ(l.syscalls[0].ns, 42);
  EXPECT_EQ(l.syscalls[0].by_state, A({{"BLOCK_DEVICE", 35}, {"BLOCK_QUEUE", 5}, {"RUNNING", 2}}));
  EXPECT_EQ(l.syscalls[1].name, kNotInSyscall);
  EXPECT_EQ(l.syscalls[1].ns, 28);
  EXPECT_EQ(l.syscalls[1].by_state, A({{"RUNNING", 18}, {"NETWORK", 10}}));
  EXPECT_EQ(l.syscalls[2].name, "futex");
  EXPECT_EQ(l.syscalls[2].by_state, A({{"BLOCKED(futex)", 10}}));
  // Both levels tile the latency.
  int64_t by_call = 0, by_state = 0;
  for (const SyscallTime& c : l.syscalls) by_call += c.ns;
  for (const Amount& a : l.states) by_state += a.ns;
  EXPECT_EQ(by_call, 80);
  EXPECT_EQ(by_state, 80);
  EXPECT_TRUE(l.page_cache.recorded);
  EXPECT_EQ(l.page_cache.pages_read, 10);
  EXPECT_EQ(l.page_cache.cache_misses, 4);
  const auto c = Categories(l);
  EXPECT_EQ(c.at("syscall/fsync"), 42);
  EXPECT_EQ(c.at("syscall_state/fsync/BLOCK_DEVICE"), 35);
  EXPECT_EQ(c.at("state/BLOCKED(futex)"), 10);
  EXPECT_EQ(c.at("below/block queue"), 5);
  EXPECT_EQ(c.at("page_cache/cache_misses"), 4);
}

// Thread 10 fsyncs from 20 to 62; its critical path leaves it for the kworker (tid 30, a
// kernel thread: no system calls in the store) that does the I/O from 25 to 60. The
// kworker's device time is time in the caller's fsync, not "not in a syscall".
TEST(LevelsTest, KernelThreadsTimeIsInTheCallOfTheThreadItWorksFor) {
  graph::ExecutionGraph g;
  const uint32_t h = g.AddHost("h0");
  const graph::WorkerId app = g.AddWorker(h, 10, 0, State::kRunning);
  g.mutable_worker(app).pid = 10;
  const graph::WorkerId kworker = g.AddWorker(h, 30, 0, State::kBlocked);
  g.mutable_worker(kworker).pid = 30;
  const graph::StringId disk = g.Intern("disk 8:0 sda");
  g.SetState(app, 20, State::kBlocked);
  g.SetState(app, 60, State::kRunning);
  g.SetState(kworker, 20, State::kRunning);
  g.SetState(kworker, 25, State::kBlockDevice, disk);
  g.SetState(kworker, 60, State::kBlocked);
  g.set_end(80);
  const std::vector<requests::Piece> path = {
      {app, State::kRunning, requests::Cause::kOther, 0, 20},
      {kworker, State::kRunning, requests::Cause::kOther, 20, 25},
      {kworker, State::kBlockDevice, requests::Cause::kOther, 25, 60},
      {app, State::kRunning, requests::Cause::kOther, 60, 80}};
  testing::TempDir tmp;
  const auto store = WriteStore(tmp.path() + "/store");
  ASSERT_NE(store, nullptr);
  const StoreLevels levels(g, store.get());
  EXPECT_TRUE(levels.MakesCalls(app));
  EXPECT_FALSE(levels.MakesCalls(kworker));
  const RequestLevels l = ComputeLevels(g, path, 80, {}, levels);
  ASSERT_EQ(l.syscalls.size(), 3u);
  EXPECT_EQ(l.syscalls[0].name, "fsync");
  EXPECT_EQ(l.syscalls[0].ns, 42);
  EXPECT_EQ(l.syscalls[0].by_state, A({{"BLOCK_DEVICE", 35}, {"RUNNING", 7}}));
  EXPECT_EQ(l.syscalls[1].name, kNotInSyscall);
  EXPECT_EQ(l.syscalls[1].ns, 28);  // app's own running, 0-10 and 62-80
  EXPECT_EQ(l.syscalls[2].name, "futex");
  EXPECT_EQ(l.syscalls[2].ns, 10);
}

TEST(LevelsTest, OnePieceOverEdgesOfDifferentQualifiersIsSplitByThem) {
  graph::ExecutionGraph g;
  const graph::WorkerId w = g.AddWorker(g.AddHost("h0"), 11, 0, State::kBlocked, g.Intern("futex"));
  g.SetState(w, 5, State::kBlocked, g.Intern("pipe_read"));
  g.SetState(w, 9, State::kRunning);
  g.set_end(12);
  const std::vector<requests::Piece> path = {
      {w, State::kBlocked, requests::Cause::kBlocked, 0, 9},
      {w, State::kRunning, requests::Cause::kRunning, 9, 12}};
  const RequestLevels l = ComputeLevels(g, path, 12, {}, StoreLevels(g, nullptr));
  EXPECT_EQ(l.states, A({{"BLOCKED(futex)", 5}, {"BLOCKED(pipe_read)", 4}, {"RUNNING", 3}}));
}

TEST(LevelsTest, WalkFollowsWhatIsMostAboveNormalDownTheLevels) {
  OneThread t;
  testing::TempDir tmp;
  const auto store = WriteStore(tmp.path() + "/store");
  ASSERT_NE(store, nullptr);
  Finding f;
  f.levels = ComputeLevels(t.g, t.path, 80, {}, StoreLevels(t.g, store.get()));
  OperationBaseline normal;
  normal.mean_ns = {{"syscall/fsync", 2},
                    {"syscall/not in a syscall", 25},
                    {"syscall_state/fsync/BLOCK_DEVICE", 1},
                    {"syscall_state/fsync/RUNNING", 1},
                    {"below/block device", 1}};
  const std::vector<Step> steps = Walk(f, &normal);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].level, 2);
  EXPECT_EQ(steps[0].name, "fsync");
  EXPECT_EQ(steps[0].ns, 42);
  EXPECT_EQ(steps[0].normal_ns, 2);
  EXPECT_EQ(steps[1].name, "BLOCK_DEVICE");
  EXPECT_EQ(steps[1].normal_ns, 1);
  EXPECT_EQ(steps[2].level, 4);
  EXPECT_EQ(steps[2].name, "block device");
  // Without system calls the walk starts at the kernel states.
  f.levels = ComputeLevels(t.g, t.path, 80, {}, StoreLevels(t.g, nullptr));
  const std::vector<Step> kernel_only = Walk(f, &normal);
  ASSERT_EQ(kernel_only.size(), 2u);
  EXPECT_EQ(kernel_only[0].level, 3);
  EXPECT_EQ(kernel_only[0].name, "BLOCK_DEVICE");
  EXPECT_EQ(kernel_only[1].name, "block device");
}

// Thread 1 serves five 10 ns requests, then one that waits 71 ns for the disk: that one is
// flagged against the others, and its disk time is set beside their none.
TEST(DiagnosisTest, SlowRequestOfAnOperationIsFlaggedAndExplained) {
  testing::KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    110 cpu0 switch 1 D -> 0
    180 cpu0 irq_entry 14 ahci
    180 cpu0 block_complete 8388608
    181 cpu0 waking 1
    182 cpu0 irq_exit 14
    183 cpu0 switch 0 -> 1
    end 300
  )");
  static spans::SpanNames names;
  std::vector<spans::Span> v;
  for (uint64_t i = 0; i < 6; ++i) {
    spans::Span s;
    s.trace = {0, i + 1};
    s.span_id = i + 1;
    s.tid = 1;
    s.start_ns = static_cast<int64_t>(20 * i);
    s.end_ns = i < 5 ? s.start_ns + 10 : 200;
    if (i == 5) s.start_ns = 100;
    s.service = names.Intern("svc");
    s.operation = names.Intern("GET /x");
    v.push_back(s);
  }
  const spans::SpanSet set = testing::Set(std::move(v));
  auto a = requests::AnalyzeRequests(k.graph(), set);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const RecordingView view{&k.graph(), &set, &*a, nullptr};
  const Diagnosis d = Diagnose(view, nullptr, -1);
  ASSERT_EQ(d.operations.size(), 1u);
  EXPECT_EQ(d.operations[0].requests, 6);
  EXPECT_EQ(d.operations[0].abnormal, 1);
  ASSERT_EQ(d.baselines.operations.size(), 1u);
  const OperationBaseline& b = d.baselines.operations[0];
  EXPECT_EQ(b.latency.count, 5);
  EXPECT_EQ(b.latency.median, 10);
  EXPECT_EQ(b.Mean("state/RUNNING"), 10);
  EXPECT_EQ(b.Mean("state/BLOCK_DEVICE"), 0);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(a->requests[f.request].trace.low, 6u);
  EXPECT_EQ(f.judgement.verdict, Verdict::kAbnormal);
  EXPECT_DOUBLE_EQ(f.judgement.ratio_to_median, 10.0);
  EXPECT_FALSE(f.levels.syscalls_recorded);
  ASSERT_FALSE(f.levels.states.empty());
  EXPECT_EQ(f.levels.states[0].name, "BLOCK_DEVICE");
  EXPECT_EQ(f.levels.states[0].ns, 71);  // to the wake-up
  // `request ID` makes its own operation's baseline alone.
  const OperationKey other{"svc", "GET /y"};
  EXPECT_TRUE(MakeBaselines(view, /*own=*/true, &other).operations.empty());
  EXPECT_EQ(MakeBaselines(view, /*own=*/true, &f.operation).operations.size(), 1u);
  const std::vector<Step> steps = Walk(f, &b);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].name, "BLOCK_DEVICE");
  EXPECT_EQ(steps[1].name, "block device");
  EXPECT_EQ(steps[1].ns, 71);
  EXPECT_EQ(steps[1].normal_ns, 0);
}

}  // namespace
}  // namespace causeway::diagnose
