// Recordings with a damaged file: every command reports what the reader repaired, and one
// damaged user-space trace costs its own sync events, not the whole analysis. The
// recordings are written with Causeway's CTF writer and damaged byte by byte; no root needed.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/sync_event_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using testing::RunCli;
using testing::TempDir;

constexpr int64_t kBase = 1'000'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The stream files (not the metadata) of the trace in `dir`.
std::vector<std::string> StreamFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "metadata") out.push_back(e.path().string());
  return out;
}

// Thread 1 runs, sleeps and runs again, a second apart (each event has the full timestamp
// of an extended header), on one CPU.
void WriteKernel(const std::string& dir, int64_t shift = 0) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter kernel(**w);
  const uint64_t t = kBase + shift;
  kernel.SchedSwitch(0, t, "swapper", 0, 0, "app", 1);
  kernel.SchedSwitch(0, t + kSecond, "app", 1, 1, "swapper", 0);
  kernel.SchedWaking(0, t + 2 * kSecond, "app", 1, 0);
  kernel.SchedSwitch(0, t + 2 * kSecond + 1000, "swapper", 0, 0, "app", 1);
  kernel.SchedSwitch(0, t + 3 * kSecond, "app", 1, 0, "swapper", 0);
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

// The one 8-byte little-endian `from` in `path` becomes `to`.
void Patch(const std::string& path, uint64_t from, uint64_t to) {
  std::string bytes = ReadFile(path);
  char f[8], t[8];
  std::memcpy(f, &from, 8);
  std::memcpy(t, &to, 8);
  const size_t at = bytes.find(std::string(f, 8));
  ASSERT_NE(at, std::string::npos) << path;
  ASSERT_EQ(bytes.find(std::string(f, 8), at + 1), std::string::npos) << path;
  bytes.replace(at, 8, std::string(t, 8));
  WriteFile(path, bytes);
}

// One event's timestamp damaged 4 s into the future: the events after it are clamped to
// it, and the trace's 3 s look like 5. `stats` and `events` said so; `threads` and
// `critpath` did not, in text or JSON.
TEST(DamagedRecordingTest, ClampedTimestampsAreReportedByThreadsAndCritpath) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/kernel";
  WriteKernel(dir);
  if (::testing::Test::HasFatalFailure()) return;
  const std::vector<std::string> streams = StreamFiles(dir);
  ASSERT_EQ(streams.size(), 1u);
  Patch(streams[0], kBase + kSecond, kBase + 5 * kSecond);
  if (::testing::Test::HasFatalFailure()) return;
  std::string err;
  auto stats = RunCli("stats " + dir + " --format json", &err);
  ASSERT_EQ(stats.exit_code, 0) << err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["clamped_timestamps"], 3) << stats.out;

  auto threads = RunCli("threads " + dir, &err);
  ASSERT_EQ(threads.exit_code, 0) << err;
  EXPECT_NE(threads.out.find("3 timestamps went back in time and were clamped"), std::string::npos)
      << threads.out;
  EXPECT_NE(threads.out.find("largest step back 3"), std::string::npos) << threads.out;
  auto threads_json = RunCli("threads " + dir + " --format json", &err);
  ASSERT_EQ(threads_json.exit_code, 0) << err;
  const nlohmann::json t = nlohmann::json::parse(threads_json.out);
  EXPECT_EQ(t["counters"]["clamped_timestamps"], 3) << t["counters"].dump();
  EXPECT_EQ(t["counters"]["max_backward_ns"], 3 * kSecond) << t["counters"].dump();

  auto critpath = RunCli("critpath " + dir + " --tid 1", &err);
  ASSERT_EQ(critpath.exit_code, 0) << err;
  EXPECT_NE(critpath.out.find("3 timestamps went back in time and were clamped"), std::string::npos)
      << critpath.out;
  auto critpath_json = RunCli("critpath " + dir + " --tid 1 --format json", &err);
  ASSERT_EQ(critpath_json.exit_code, 0) << err;
  const nlohmann::json c = nlohmann::json::parse(critpath_json.out);
  EXPECT_EQ(c["counters"]["clamped_timestamps"], 3) << critpath_json.out;
}

// A recording whose one user-space trace has a damaged stream file: `requests`, `request`
// and `export` failed on the whole recording. Now the spans keep their own times, and the
// damaged file is named (with the offset) and counted.
TEST(DamagedRecordingTest, ADamagedUserSpaceStreamCostsItsSyncEventsOnly) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  WriteKernel(dir + "/kernel");
  if (::testing::Test::HasFatalFailure()) return;
  {
    testing::SyncEventTrace ust(dir + "/ust/app-1", "h", "app", 1);
    ASSERT_TRUE(ust.status().ok()) << ust.status().ToString();
    ust.Start(kBase + 1'000, 1, 7, "a");
    ust.End(kBase + 400'000, 1, 7, "a");
    const Status closed = ust.Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  const std::vector<std::string> ust = StreamFiles(dir + "/ust/app-1");
  ASSERT_EQ(ust.size(), 1u);
  std::string bytes = ReadFile(ust[0]);
  bytes.replace(0, 4, "\xde\xad\xbe\xef");  // the packet magic
  WriteFile(ust[0], bytes);
  fs::create_directories(dir + "/spans");
  std::ofstream(dir + "/spans/app.json") << R"({"resourceSpans":[{"resource":{"attributes":[
  {"key":"service.name","value":{"stringValue":"app"}}]},
 "scopeSpans":[{"spans":[
  {"traceId":"00000000000000010000000000000001","spanId":"0000000000000007","name":"a",
   "startTimeUnixNano":"1000000001000","endTimeUnixNano":"1000000400000",
   "attributes":[{"key":"thread.id","value":{"intValue":"1"}}]}]}]}]})";

  std::string err;
  auto json = RunCli("requests " + dir + " --format json", &err);
  ASSERT_EQ(json.exit_code, 0) << err;
  EXPECT_NE(err.find(ust[0] + ", offset=0"), std::string::npos) << err;
  const nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  EXPECT_EQ(j["requests"].size(), 1u);
  EXPECT_EQ(j["counters"]["sync_traces_damaged"], 1) << j["counters"].dump();
  EXPECT_EQ(j["counters"]["spans_synced"], 0) << j["counters"].dump();

  auto text = RunCli("requests " + dir, &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("1 user-space traces are damaged"), std::string::npos) << text.out;
  auto one = RunCli("request " + dir + " 0000000000000007", &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  EXPECT_NE(one.out.find("1 user-space traces are damaged"), std::string::npos) << one.out;
  auto exp = RunCli("export " + dir + " --format chrome -o " + tmp.path() + "/t.json", &err);
  ASSERT_EQ(exp.exit_code, 0) << err;
  EXPECT_NE(exp.out.find("1 user-space traces are damaged"), std::string::npos) << exp.out;
}

// A folder holding two snapshots of one flight recorder (each the ring's last seconds, so
// they overlap): read as one trace, every event in both counted twice. Refused, naming the
// snapshot folders; one snapshot, or chunks that follow each other, read as before.
TEST(DamagedRecordingTest, OverlappingSnapshotsInOneFolderAreRefused) {
  TempDir tmp;
  WriteKernel(tmp.path() + "/rec/snapshot-1/kernel");
  WriteKernel(tmp.path() + "/rec/snapshot-2/kernel", kSecond / 2);
  WriteKernel(tmp.path() + "/chunks/a/kernel");
  WriteKernel(tmp.path() + "/chunks/b/kernel", 4 * kSecond);
  if (::testing::Test::HasFatalFailure()) return;
  std::string err;
  for (const char* command : {"threads", "critpath --tid 1 "}) {
    auto r = RunCli(std::string(command) + " " + tmp.path() + "/rec", &err);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(err.find("cover the same time on CPU 0"), std::string::npos) << err;
    EXPECT_NE(err.find("give one snapshot's folder (e.g. " + tmp.path() + "/rec/snapshot-"),
              std::string::npos)
        << err;
  }
  // stats and events describe the files as they are: they go on, and warn.
  for (const char* command : {"stats", "events"}) {
    auto r = RunCli(std::string(command) + " " + tmp.path() + "/rec", &err);
    EXPECT_EQ(r.exit_code, 0) << err;
    EXPECT_NE(err.find("warning: The traces"), std::string::npos) << command << ": " << err;
    EXPECT_NE(err.find("cover the same time on CPU 0"), std::string::npos) << err;
  }
  auto stats = RunCli("stats --format json " + tmp.path() + "/rec", &err);
  ASSERT_EQ(stats.exit_code, 0) << err;
  EXPECT_TRUE(nlohmann::json::parse(stats.out).contains("overlapping_traces")) << stats.out;
  auto chunk_stats = RunCli("stats " + tmp.path() + "/chunks", &err);
  ASSERT_EQ(chunk_stats.exit_code, 0) << err;
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  auto one = RunCli("threads " + tmp.path() + "/rec/snapshot-2 --format json", &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["counters"]["missing_switch_ins"], 0);
  auto chunks = RunCli("threads " + tmp.path() + "/chunks --format json", &err);
  ASSERT_EQ(chunks.exit_code, 0) << err;
  EXPECT_EQ(nlohmann::json::parse(chunks.out)["counters"]["switches"], 8);
}

}  // namespace
}  // namespace causeway
