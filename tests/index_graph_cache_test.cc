// The kernel analysis cached in the index (analysis/kernel_analysis_file.h): written and
// read back whole (every worker's timeline, links, CPU timelines, counters, streams, HTTP
// messages, clocks), and used by the commands in place of the trace with the same stdout;
// a touched trace makes it stale, a damaged or forged file is refused, and the trace is
// read either way, with a note on stderr.
#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/index_location.h"
#include "analysis/kernel_analysis.h"
#include "analysis/kernel_analysis_file.h"
#include "base/checksum.h"
#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::RunCli;
using testing::RunCommand;
using testing::TempDir;

constexpr int64_t kBase = 1'000'000'000'000;

// Two CPUs, a fork, wake-ups across CPUs, a preemption and an exit-less end.
void WriteScenario(const std::string& dir) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter k(**w);
  ASSERT_TRUE(k.status().ok()) << k.status().ToString();
  k.SchedSwitch(1, kBase, "swapper/1", 0, 0, "waker", 40);
  k.SchedSwitch(0, kBase, "swapper/0", 0, 0, "app", 10);
  k.SchedSwitch(0, kBase + 100, "app", 10, 0, "hog", 20);
  k.SchedSwitch(0, kBase + 600, "hog", 20, 1, "other", 30);
  k.SchedSwitch(0, kBase + 700, "other", 30, 0, "app", 10);
  k.SchedSwitch(0, kBase + 1000, "app", 10, 1, "other", 30);
  k.SchedWaking(1, kBase + 1100, "app", 10, 0);
  k.SchedSwitch(0, kBase + 1300, "other", 30, 1, "app", 10);
  k.SchedSwitch(0, kBase + 2000, "app", 10, 1, "swapper/0", 0);
  k.SchedWaking(1, kBase + 2200, "app", 10, 0);
  k.SchedSwitch(0, kBase + 2500, "swapper/0", 0, 0, "app", 10);
  k.SchedSwitch(0, kBase + 3000, "app", 10, 1, "swapper/0", 0);
  k.SchedSwitch(1, kBase + 3000, "waker", 40, 1, "swapper/1", 0);
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

void ExpectSameGraph(const graph::ExecutionGraph& a, const graph::ExecutionGraph& b) {
  EXPECT_EQ(a.hosts(), b.hosts());
  ASSERT_EQ(a.num_qualifiers(), b.num_qualifiers());
  for (graph::StringId q = 0; q < a.num_qualifiers(); ++q) EXPECT_EQ(a.str(q), b.str(q));
  EXPECT_EQ(a.unnamed_qualifiers(), b.unnamed_qualifiers());
  EXPECT_EQ(a.end(), b.end());
  EXPECT_EQ(a.memory_bytes(), b.memory_bytes());
  ASSERT_EQ(a.num_workers(), b.num_workers());
  for (graph::WorkerId w = 0; w < a.num_workers(); ++w) {
    const graph::Worker &x = a.worker(w), &y = b.worker(w);
    EXPECT_EQ(x.host, y.host);
    EXPECT_EQ(x.tid, y.tid);
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.ts, y.ts) << "worker " << w;
    EXPECT_EQ(x.edge, y.edge) << "worker " << w;
    ASSERT_EQ(x.in.size(), y.in.size()) << "worker " << w;
    for (size_t i = 0; i < x.in.size(); ++i) {
      EXPECT_EQ(x.in[i].vertex, y.in[i].vertex);
      EXPECT_EQ(x.in[i].from_worker, y.in[i].from_worker);
      EXPECT_EQ(x.in[i].from_vertex_kind, y.in[i].from_vertex_kind);
    }
    EXPECT_EQ(a.open_state(w), b.open_state(w));
  }
  const graph::CpuTimelines &c = a.cpu_timelines(), &d = b.cpu_timelines();
  ASSERT_EQ(c.num_hosts(), d.num_hosts());
  for (uint32_t h = 0; h < c.num_hosts(); ++h) {
    ASSERT_EQ(c.num_cpus(h), d.num_cpus(h));
    for (int32_t cpu = 0; cpu < static_cast<int32_t>(c.num_cpus(h)); ++cpu) {
      EXPECT_EQ(c.cpu(h, cpu).ts, d.cpu(h, cpu).ts);
      EXPECT_EQ(c.cpu(h, cpu).task, d.cpu(h, cpu).task);
    }
  }
}

void ExpectSameAnalysis(const analysis::KernelAnalysis& a, const analysis::KernelAnalysis& b) {
  ExpectSameGraph(a.graph, b.graph);
  EXPECT_EQ(std::memcmp(&a.counters, &b.counters, sizeof(a.counters)), 0);
  EXPECT_EQ(a.paths, b.paths);
  EXPECT_EQ(a.trace_dirs, b.trace_dirs);
  EXPECT_EQ(a.unused_trace_dirs, b.unused_trace_dirs);
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t i = 0; i < a.streams.size(); ++i) {
    const ctf::StreamStats &s = a.streams[i], &t = b.streams[i];
    EXPECT_EQ(s.path, t.path);
    EXPECT_EQ(s.cpu, t.cpu);
    EXPECT_EQ(s.events, t.events);
    EXPECT_EQ(s.discarded_events, t.discarded_events);
    EXPECT_EQ(s.first_ts, t.first_ts);
    EXPECT_EQ(s.last_ts, t.last_ts);
  }
  EXPECT_EQ(a.events_read, b.events_read);
  EXPECT_EQ(a.bytes, b.bytes);
  ASSERT_EQ(a.http_messages.size(), b.http_messages.size());
  for (size_t i = 0; i < a.http_messages.size(); ++i) {
    const kernel::HttpMessage &m = a.http_messages[i], &n = b.http_messages[i];
    EXPECT_EQ(m.ts, n.ts);
    EXPECT_EQ(m.tid, n.tid);
    EXPECT_EQ(m.first_line, n.first_line);
    EXPECT_EQ(m.traceparent, n.traceparent);
    EXPECT_EQ(m.laddr, n.laddr);
    EXPECT_EQ(m.rport, n.rport);
  }
  EXPECT_EQ(a.clocks.applied, b.clocks.applied);
  EXPECT_EQ(a.clocks.Note(), b.clocks.Note());
  EXPECT_EQ(a.begin, b.begin);
  EXPECT_EQ(a.end, b.end);
}

// What `causeway index` writes for the graph: the analysis at LocateIndex's graph path under
// KernelSourceKey with the default clock options.
std::string BuildGraphIndex(const std::string& trace, const std::string& cache = "") {
  auto a = analysis::AnalyzeKernel({trace});
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  auto where = analysis::LocateIndex({trace}, cache);
  EXPECT_TRUE(where.ok()) << where.status().ToString();
  std::filesystem::create_directories(where->dir);
  const Status written = analysis::WriteKernelAnalysisFile(**a, where->graph_path,
                                                           analysis::KernelSourceKey({trace}, {}));
  EXPECT_TRUE(written.ok()) << written.ToString();
  return where->graph_path;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(IndexGraphCacheTest, ScenarioAndRecordingRoundTripWhole) {
  TempDir tmp;
  WriteScenario(tmp.path() + "/scenario/kernel");
  const std::string demo = testing::UnpackDemoRecording(tmp, "net");
  for (const std::string& trace : {tmp.path() + "/scenario", demo}) {
    SCOPED_TRACE(trace);
    auto a = analysis::AnalyzeKernel({trace});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_GT((*a)->graph.num_links(), 0u);
    const std::string file = tmp.path() + "/graph.cwg";
    ASSERT_TRUE(analysis::WriteKernelAnalysisFile(**a, file, "key").ok());
    EXPECT_FALSE(std::filesystem::exists(file + ".partial"));
    auto b = analysis::ReadKernelAnalysisFile(file, "key");
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_NE(*b, nullptr);
    ExpectSameAnalysis(**a, **b);
    // Another key: stale, not an error.
    auto stale = analysis::ReadKernelAnalysisFile(file, "other key");
    ASSERT_TRUE(stale.ok()) << stale.status().ToString();
    EXPECT_EQ(*stale, nullptr);
  }
  EXPECT_EQ(analysis::ReadKernelAnalysisFile(tmp.path() + "/none", "key").status().code(),
            StatusCode::kNotFound);
}

// The header's offsets (kernel_analysis_file.cc's FileHeader): version at 8, checksum at 40.
constexpr size_t kVersionAt = 8, kChecksumAt = 40, kHeaderSize = 56;

TEST(IndexGraphCacheTest, CutDamagedForeignAndForgedFilesAreRefused) {
  TempDir tmp;
  WriteScenario(tmp.path() + "/scenario/kernel");
  auto a = analysis::AnalyzeKernel({tmp.path() + "/scenario"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::string file = tmp.path() + "/graph.cwg";
  ASSERT_TRUE(analysis::WriteKernelAnalysisFile(**a, file, "k").ok());
  const std::string whole = ReadBytes(file);
  auto refused = [&](const std::string& bytes, const std::string& reason) {
    WriteBytes(file, bytes);
    auto r = analysis::ReadKernelAnalysisFile(file, "k");
    ASSERT_FALSE(r.ok()) << reason;
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    const std::string message = r.status().ToString();
    EXPECT_NE(message.find(file), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
  };
  refused(whole.substr(0, whole.size() - 3), "cut short");
  refused(whole.substr(0, 20), "cut short");
  std::string flipped = whole;
  flipped[whole.size() / 2] ^= 0x10;
  refused(flipped, "damaged (checksum mismatch)");
  std::string other_version = whole;
  other_version[kVersionAt] = 99;
  refused(other_version, "format version 99");
  refused("PK\x03\x04" + whole.substr(4), "not a Causeway graph file");

  // Forged: bytes changed and the checksum recomputed, so that only the parser's checks
  // stand between the file and the analyses. Never a crash, an endless loop or a huge
  // allocation (ASan's checks and the test's time), whatever is changed.
  std::mt19937_64 random(58);
  const size_t body = kHeaderSize + 1;  // after the key "k"
  for (int i = 0; i < 400; ++i) {
    std::string forged = whole;
    const int changes = 1 + static_cast<int>(random() % 4);
    for (int c = 0; c < changes; ++c) {
      const size_t at = body + random() % (whole.size() - body);
      forged[at] = static_cast<char>(random() % 3 == 0 ? 0xff : random());
    }
    const uint64_t sum = Checksum64::Of(forged.data() + kHeaderSize, forged.size() - kHeaderSize);
    std::memcpy(forged.data() + kChecksumAt, &sum, sizeof(sum));
    WriteBytes(file, forged);
    auto r = analysis::ReadKernelAnalysisFile(file, "k");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
    }
  }
}

TEST(IndexGraphCacheTest, CommandsPrintTheSameWithTheIndexAndWithout) {
  TempDir tmp;
  const std::string dir = testing::UnpackDemoRecording(tmp, "lock");
  const std::string graph = BuildGraphIndex(dir);
  std::string err;
  const auto threads = RunCli("threads " + dir + " --format json", &err);
  ASSERT_EQ(threads.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(threads.out);
  const std::string tid = std::to_string(j["threads"][0]["tid"].get<int>());
  for (const std::string& command :
       {"requests " + dir + " --format json --limit -1", "requests " + dir, "threads " + dir,
        "threads " + dir + " --format json", "threads " + dir + " --critical",
        "critpath " + dir + " --tid " + tid,
        "request " + dir + " " +
            nlohmann::json::parse(
                RunCli("requests " + dir + " --format json", &err).out)["requests"][0]["trace_id"]
                .get<std::string>()}) {
    SCOPED_TRACE(command);
    std::string with_err, without_err;
    const auto with = RunCli(command, &with_err);
    const auto without = RunCli(command + " --no-index", &without_err);
    ASSERT_EQ(with.exit_code, 0) << with_err;
    ASSERT_EQ(without.exit_code, 0) << without_err;
    EXPECT_TRUE(with.out == without.out) << "differs from the trace's";
    EXPECT_NE(with_err.find("using the index built"), std::string::npos) << with_err;
    EXPECT_EQ(without_err.find("index"), std::string::npos) << without_err;
  }
  // The same recording named another way: the paths it prints are this run's.
  const auto relative = RunCli("threads " + dir + "/../lock --format json", &err);
  ASSERT_EQ(relative.exit_code, 0) << err;
  EXPECT_NE(err.find("using the index built"), std::string::npos) << err;
  const auto relative_without =
      RunCli("threads " + dir + "/../lock --format json --no-index", &err);
  EXPECT_TRUE(relative.out == relative_without.out) << "differs from the trace's";

  // Another clock option: another key, so the trace is read.
  RunCli("threads " + dir + " --no-sync", &err);
  EXPECT_NE(err.find("index stale"), std::string::npos) << err;
  (void)graph;
}

TEST(IndexGraphCacheTest, TouchedTraceIsStaleAndDamagedIndexIsRefused) {
  TempDir tmp;
  WriteScenario(tmp.path() + "/scenario/kernel");
  const std::string trace = tmp.path() + "/scenario";
  const std::string cache = tmp.path() + "/cache";
  const std::string graph = BuildGraphIndex(trace, cache);
  std::string err;
  const auto reference = RunCli("threads " + trace + " --no-index", &err);
  ASSERT_EQ(reference.exit_code, 0) << err;
  // Beside the trace there is none: silent, the trace is read.
  auto r = RunCli("threads " + trace, &err);
  EXPECT_EQ(r.out, reference.out);
  EXPECT_EQ(err.find("index"), std::string::npos) << err;
  r = RunCli("threads " + trace + " --cache " + cache, &err);
  EXPECT_EQ(r.out, reference.out);
  EXPECT_NE(err.find("using the index built"), std::string::npos) << err;

  // A trace file touched: stale, naming it.
  const std::string metadata = trace + "/kernel/metadata";
  struct utimbuf times = {1'000'000'000, 1'000'000'000};
  ASSERT_EQ(utime(metadata.c_str(), &times), 0);
  r = RunCli("threads " + trace + " --cache " + cache, &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(r.out, reference.out);
  EXPECT_NE(err.find("index stale (kernel/metadata changed"), std::string::npos) << err;

  // Rebuilt, then damaged: refused with the path and the reason, the trace read.
  BuildGraphIndex(trace, cache);
  std::string bytes = ReadBytes(graph);
  bytes[bytes.size() - 10] ^= 1;
  WriteBytes(graph, bytes);
  r = RunCli("threads " + trace + " --cache " + cache, &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(r.out, reference.out);
  EXPECT_NE(err.find("index refused (" + graph + ": damaged"), std::string::npos) << err;
  EXPECT_NE(err.find("reading the trace"), std::string::npos) << err;
}

}  // namespace
}  // namespace causeway
