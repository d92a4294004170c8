// The index (src/index, analysis/index_analysis.h, `causeway index`): a store built from a
// hand-made trace answers known queries; on a committed demo recording every thread's state
// in the store is the graph's; the command builds once, then finds it up to date, and
// builds again when a trace file is touched or the store is damaged.
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/index_analysis.h"
#include "analysis/kernel_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "index/index_paths.h"
#include "kernel/syscall_names.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using kernel::LttngEvent;
using nlohmann::json;

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time
constexpr uint32_t kSda = 8u << 20;           // dev_t 8:0 as the kernel keeps it

// The value of `path` at scenario time t, as text ("null" when the store has no such path).
std::string At(const state::StateStore& s, const std::string& path, int64_t t) {
  const auto a = s.Find(path);
  if (!a) return "no attribute " + path;
  return s.Format(s.At(*a, kBase + t).value);
}

// Thread 1 writes, then fsyncs: its request is queued at 10 (bio, then request), issued at
// 500, completed in an interrupt at 600; thread 2 runs on CPU 1 all along. A softirq on
// CPU 0 at 700.
void WriteTrace(const std::string& dir) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter k(**w, /*syscalls=*/true);
  ASSERT_TRUE(k.status().ok()) << k.status().ToString();
  auto rq = [&](LttngEvent e, int64_t t, int tid) {
    k.Begin(0, e, kBase + t).U32(kSda).U64(2048).U32(8).U32(4096).S32(tid).U32(1).Chars16("app");
  };
  k.SchedSwitch(0, kBase, "swapper", 0, 0, "app", 1);
  k.SchedSwitch(1, kBase, "swapper", 0, 0, "db", 2);
  k.Begin(0, LttngEvent::kSyscallEntry, kBase + 5).S64(1);  // write
  k.Begin(0, LttngEvent::kSyscallExit, kBase + 8).S64(1).S64(4096);
  k.Begin(0, LttngEvent::kSyscallEntry, kBase + 9).S64(74);  // fsync
  k.Begin(0, LttngEvent::kBlockBioQueue, kBase + 10)
      .U32(kSda)
      .U64(2048)
      .U32(8)
      .U32(1)
      .S32(1)
      .Chars16("app")
      .U8(0);
  rq(LttngEvent::kBlockRqInsert, 12, 1);
  k.SchedSwitch(0, kBase + 20, "app", 1, 2, "swapper", 0);
  rq(LttngEvent::kBlockRqIssue, 500, 0);
  k.Begin(0, LttngEvent::kIrqHandlerEntry, kBase + 600).S32(14).String("ahci");
  k.Begin(0, LttngEvent::kBlockRqComplete, kBase + 600).U32(kSda).U64(2048).U32(8).S32(0).U32(1);
  k.SchedWaking(0, kBase + 601, "app", 1, 0);
  k.Begin(0, LttngEvent::kIrqHandlerExit, kBase + 602).S32(14).S32(1);
  k.SchedSwitch(0, kBase + 610, "swapper", 0, 0, "app", 1);
  k.Begin(0, LttngEvent::kSyscallExit, kBase + 615).S64(74).S64(0);
  k.Softirq(0, kBase + 700, true, 1);
  k.Softirq(0, kBase + 710, false, 1);
  k.SchedSwitch(1, kBase + 1000, "db", 2, 1, "swapper", 0);
  k.SchedSwitch(0, kBase + 1000, "app", 1, 1, "swapper", 0);
  ASSERT_TRUE((*w)->Close().ok());
}

TEST(IndexTest, StoreOfAHandMadeTraceAnswersKnownQueries) {
  if (kernel::SyscallNames().empty()) GTEST_SKIP() << "no syscall names on this architecture";
  testing::TempDir tmp;
  const std::string trace = tmp.path() + "/rec";
  WriteTrace(trace + "/kernel");
  analysis::IndexSource source;
  source.traces = {trace};
  auto where = analysis::LocateIndex(source.traces);
  ASSERT_TRUE(where.ok()) << where.status().ToString();
  auto build = analysis::BuildIndex(source, *where);
  ASSERT_TRUE(build.ok()) << build.status().ToString();
  EXPECT_FALSE(build->with_spans);
  EXPECT_EQ(build->threads, 2u);
  EXPECT_GT(build->intervals, 10u);

  analysis::ValidIndex valid = analysis::OpenValidIndex(source);
  ASSERT_TRUE(valid.store) << valid.reason;
  const state::StateStore& s = *valid.store;
  EXPECT_EQ(s.num_intervals(), build->intervals);

  const std::string t1 = "hosts/h/threads/1/";
  EXPECT_EQ(At(s, t1 + "state", 5), "RUNNING");
  EXPECT_EQ(At(s, t1 + "state", 300), "BLOCK_QUEUE(disk 8:0)");
  EXPECT_EQ(At(s, t1 + "state", 550), "BLOCK_DEVICE(disk 8:0)");
  EXPECT_EQ(At(s, t1 + "state", 605), "PREEMPTED");
  EXPECT_EQ(At(s, t1 + "state", 999), "RUNNING");
  EXPECT_EQ(At(s, t1 + "name", 300), "app");
  EXPECT_EQ(At(s, t1 + "syscall", 6), "write");
  EXPECT_EQ(At(s, t1 + "syscall", 8), "null");
  EXPECT_EQ(At(s, t1 + "syscall", 300), "fsync") << "in the call while blocked in it";
  EXPECT_EQ(At(s, t1 + "syscall", 615), "null");
  EXPECT_EQ(At(s, "hosts/h/threads/2/state", 500), "RUNNING");

  EXPECT_EQ(At(s, "hosts/h/cpus/0/thread", 5), "1");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/thread", 300), "0") << "idle";
  EXPECT_EQ(At(s, "hosts/h/cpus/0/thread", 650), "1");
  EXPECT_EQ(At(s, "hosts/h/cpus/1/thread", 500), "2");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/irq", 599), "null");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/irq", 601), "irq/14 ahci");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/irq", 602), "null");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/irq", 705), "softirq TIMER");
  EXPECT_EQ(At(s, "hosts/h/cpus/0/irq", 710), "null");

  const std::string disk = "hosts/h/disks/8:0/";
  EXPECT_EQ(At(s, disk + "queued", 11), "1");
  EXPECT_EQ(At(s, disk + "queued", 13), "1") << "the bio and its request are one request";
  EXPECT_EQ(At(s, disk + "on_device", 13), "0");
  EXPECT_EQ(At(s, disk + "queued", 500), "0");
  EXPECT_EQ(At(s, disk + "on_device", 500), "1");
  EXPECT_EQ(At(s, disk + "on_device", 600), "0");

  std::vector<std::string> threads;
  for (std::string_view c : s.Children("hosts/h/threads")) threads.emplace_back(c);
  EXPECT_EQ(threads, (std::vector<std::string>{"1", "2"}));
}

TEST(IndexTest, EveryThreadsStateInTheStoreIsTheGraphsOnARecordedDemo) {
  testing::TempDir tmp;
  analysis::IndexSource source;
  source.traces = {testing::UnpackDemoRecording(tmp, "disk")};
  auto where = analysis::LocateIndex(source.traces, tmp.path() + "/cache");
  ASSERT_TRUE(where.ok()) << where.status().ToString();
  auto build = analysis::BuildIndex(source, *where);
  ASSERT_TRUE(build.ok()) << build.status().ToString();
  EXPECT_TRUE(build->with_spans);
  EXPECT_GT(build->requests, 0u);
  auto opened = state::StateStore::Open(where->store_path);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const state::StateStore& s = **opened;

  auto kernel = analysis::AnalyzeKernel(source.traces);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  const graph::ExecutionGraph& g = (*kernel)->graph;
  // A tid reused after an exit: the store holds each thread's time; where two threads of one
  // tid overlap (a thread whose exit the trace lost), the earlier one's.
  std::map<std::pair<uint32_t, int32_t>, std::vector<graph::WorkerId>> by_tid;
  for (graph::WorkerId w = 0; w < g.num_workers(); ++w)
    by_tid[{g.worker(w).host, g.worker(w).tid}].push_back(w);
  auto shared = [&](graph::WorkerId w, int64_t t) {
    for (graph::WorkerId o : by_tid[{g.worker(w).host, g.worker(w).tid}])
      if (o != w && g.worker(o).start() <= t && t < g.WorkerEnd(o)) return true;
    return false;
  };
  std::mt19937_64 random(58);
  uint64_t checked = 0;
  for (graph::WorkerId w = 0; w < g.num_workers(); ++w) {
    const graph::Worker& k = g.worker(w);
    const auto attribute = s.Find(index::ThreadAttribute(g.hosts()[k.host], k.tid, "state"));
    ASSERT_TRUE(attribute) << "tid " << k.tid;
    for (int i = 0; i < 20; ++i) {
      const size_t v = random() % k.size();
      const int64_t end = g.EdgeEnd(w, v);
      if (end <= k.ts[v] || k.state(v) == graph::State::kNone) continue;
      const int64_t t = k.ts[v] + static_cast<int64_t>(random() % (end - k.ts[v]));
      if (shared(w, t)) continue;
      const state::StateInterval at = s.At(*attribute, t);
      EXPECT_EQ(s.Format(at.value), index::ThreadStateLabel(k.state(v), g.str(k.qualifier(v))))
          << "tid " << k.tid << " at " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);

  // Requests: each has a cause along its whole path and a thread on it; threads name them.
  const std::vector<std::string_view> requests = s.Children("requests");
  EXPECT_EQ(requests.size(), build->requests);
  ASSERT_FALSE(requests.empty());
  const auto cause = s.Find("requests/" + std::string(requests.front()) + "/cause");
  ASSERT_TRUE(cause);
  uint64_t thread_request_attributes = 0;
  for (std::string_view host : s.Children("hosts"))
    for (std::string_view tid : s.Children("hosts/" + std::string(host) + "/threads"))
      thread_request_attributes +=
          s.Find("hosts/" + std::string(host) + "/threads/" + std::string(tid) + "/request")
              .has_value();
  EXPECT_GT(thread_request_attributes, 0u);
}

json IndexCli(const std::string& args) {
  std::string err;
  const auto r = testing::RunCli("index " + args + " --format json", &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << err;
  return j;
}

TEST(IndexTest, CommandBuildsOnceThenRebuildsWhenTheTraceChangesOrTheStoreIsDamaged) {
  testing::TempDir tmp;
  const std::string trace = tmp.path() + "/rec";
  WriteTrace(trace + "/kernel");
  const std::string store = trace + "/.causeway/state.cws";

  json j = IndexCli("'" + trace + "'");
  EXPECT_EQ(j["status"], "built");
  EXPECT_EQ(j["path"], store);
  EXPECT_GT(j["intervals"].get<uint64_t>(), 10u);
  EXPECT_GT(j["trace_bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(fs::exists(store));

  j = IndexCli("'" + trace + "'");
  EXPECT_EQ(j["status"], "up_to_date");

  // A trace file touched: another modification time, a stale index.
  std::string stream;
  for (const auto& e : fs::directory_iterator(trace + "/kernel"))
    if (e.path().filename() != "metadata") stream = e.path().string();
  ASSERT_FALSE(stream.empty());
  struct timespec times[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, stream.c_str(), times, 0), 0);
  j = IndexCli("'" + trace + "'");
  EXPECT_EQ(j["status"], "rebuilt");
  EXPECT_NE(j["reason"].get<std::string>().find("stale"), std::string::npos) << j;
  EXPECT_EQ(IndexCli("'" + trace + "'")["status"], "up_to_date");

  // A damaged store: refused by the store (its reason printed as a note), then rebuilt.
  {
    std::fstream f(store, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good());
    f.seekp(static_cast<std::streamoff>(fs::file_size(store) / 2));
    f.put('\x5a').put('\xa5').put('\x5a');
  }
  std::string err;
  const auto r = testing::RunCli("index '" + trace + "'", &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(err.find("note: "), std::string::npos) << err;
  EXPECT_NE(r.out.find("Index rebuilt"), std::string::npos) << r.out;
  EXPECT_EQ(IndexCli("'" + trace + "'")["status"], "up_to_date");

  // The graph file removed (the store still valid): the index is not up to date.
  ASSERT_TRUE(fs::remove(trace + "/.causeway/graph.cwg"));
  j = IndexCli("'" + trace + "'");
  EXPECT_EQ(j["status"], "rebuilt");
  EXPECT_NE(j["reason"].get<std::string>().find("graph.cwg"), std::string::npos) << j;
  EXPECT_TRUE(fs::exists(trace + "/.causeway/graph.cwg"));
  EXPECT_EQ(IndexCli("'" + trace + "'")["status"], "up_to_date");

  // --force builds whatever the state; --cache puts the index elsewhere.
  EXPECT_EQ(IndexCli("'" + trace + "' --force")["status"], "rebuilt");
  j = IndexCli("'" + trace + "' --cache '" + tmp.path() + "/cache'");
  EXPECT_EQ(j["status"], "built");
  EXPECT_EQ(j["path"].get<std::string>().rfind(tmp.path() + "/cache/rec-", 0), 0u) << j;
}

}  // namespace
}  // namespace causeway
