// `causeway io` on a trace written with our CTF writer in the recorder's layout: the page
// cache counts per process and file (batches of one read counted once, a write's pages no
// misses, process names from the statedump) and the block requests' queue and device time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/index_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using kernel::LttngEvent;

constexpr uint64_t kBase = 1'000'000'000'000;
constexpr uint32_t kVda = 254u << 20;  // the disk, 254:0, and its filesystem's device
constexpr uint64_t kInode = 1234;

class PageCacheTrace {
 public:
  explicit PageCacheTrace(ctf::CtfWriter& w) : k_(w) {}
  const Status& status() const { return k_.status(); }
  void Process(uint64_t t, int32_t pid, std::string_view name) {
    k_.Begin(0, LttngEvent::kStatedumpProcessState, kBase + t)
        .S32(pid)
        .S32(pid)
        .S32(1)
        .Chars16(name)
        .S32(5)
        .S32(0);
  }
  void Add(uint64_t t, int32_t pid, uint64_t first, uint64_t last, bool write = false) {
    k_.Begin(0, LttngEvent::kMmFilemapAddToPageCache, kBase + t)
        .S32(pid)
        .S32(pid)
        .U32(kVda)
        .U64(kInode)
        .U64(first)
        .U64(last)
        .U8(write);
  }
  void Read(uint64_t t, int32_t pid, uint64_t first, uint64_t last) {
    k_.Begin(0, LttngEvent::kMmFilemapGetPages, kBase + t)
        .S32(pid)
        .S32(pid)
        .U32(kVda)
        .U64(kInode)
        .U64(first)
        .U64(last);
  }
  void Fault(uint64_t t, int32_t pid, uint64_t page) {
    k_.Begin(0, LttngEvent::kMmFilemapFault, kBase + t)
        .S32(pid)
        .S32(pid)
        .U32(kVda)
        .U64(kInode)
        .U64(page);
  }
  void Rq(LttngEvent e, uint64_t t, uint64_t sector) {
    k_.Begin(0, e, kBase + t).U32(kVda).U64(sector).U32(8).U32(4096).S32(7).U32(0).Chars16("t");
  }
  void Complete(uint64_t t, uint64_t sector) {
    k_.Begin(0, LttngEvent::kBlockRqComplete, kBase + t).U32(kVda).U64(sector).U32(8).S32(0).U32(0);
  }

 private:
  testing::LttngKernelWriter k_;
};

// Reads of one file: `cold` (pid 100) misses every page, `warm` (pid 200) hits them all,
// `writer` (pid 300) adds pages by writing. One block request on 254:0.
void WriteColdWarmTrace(const std::string& dir) {
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";
    auto w = ctf::CtfWriter::Create(dir, opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    PageCacheTrace t(**w);
    ASSERT_TRUE(t.status().ok()) << t.status().ToString();
    t.Process(0, 100, "cold");
    t.Process(0, 200, "warm");
    t.Process(0, 300, "writer");
    t.Add(5, 300, 0, 15, /*write=*/true);  // the writer's new pages: no misses
    // cold reads pages 0-63 with one read whose readahead misses all of them, in two
    // batches (the second with the range still to read), then faults on page 64, missed.
    t.Rq(LttngEvent::kBlockRqInsert, 9, 800);
    t.Add(10, 100, 0, 63);
    t.Rq(LttngEvent::kBlockRqIssue, 20, 800);
    t.Complete(1020, 800);
    t.Read(1030, 100, 0, 63);
    t.Read(1031, 100, 32, 63);
    t.Fault(1040, 100, 64);
    t.Add(1041, 100, 64, 64);
    // warm reads the same 65 pages from the cache.
    t.Read(2000, 200, 0, 31);
    t.Read(2001, 200, 32, 64);
    ASSERT_TRUE((*w)->Close().ok());
  }
}

TEST(IoCommandTest, PageCacheCountsPerProcessAndFileAndDiskTimes) {
  testing::TempDir tmp;
  WriteColdWarmTrace(tmp.path() + "/kernel");
  if (HasFatalFailure()) return;
  std::string err;
  const auto r = testing::RunCli("io " + tmp.path() + " --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["page_cache"]["recorded"].get<bool>());
  const auto& files = j["page_cache"]["files"];
  ASSERT_EQ(files.size(), 2u) << files.dump();
  // Most misses first.
  EXPECT_EQ(files[0]["process"], "cold");
  EXPECT_EQ(files[0]["pid"], 100);
  EXPECT_EQ(files[0]["dev"], "254:0");
  EXPECT_EQ(files[0]["inode"], kInode);
  EXPECT_EQ(files[0]["pages_read"], 65);
  EXPECT_EQ(files[0]["cache_misses"], 65);
  EXPECT_DOUBLE_EQ(files[0]["miss_ratio"].get<double>(), 1.0);
  EXPECT_EQ(files[1]["process"], "warm");
  EXPECT_EQ(files[1]["pages_read"], 65);
  EXPECT_EQ(files[1]["cache_misses"], 0);
  EXPECT_EQ(j["page_cache"]["totals"]["pages_written"], 16);
  const auto& disks = j["block"]["disks"];
  ASSERT_EQ(disks.size(), 1u);
  EXPECT_EQ(disks[0]["dev"], "254:0");
  EXPECT_EQ(disks[0]["requests"], 1);
  EXPECT_EQ(disks[0]["queued_ns"], 11);
  EXPECT_EQ(disks[0]["device_ns"], 1000);

  // The text table names the same rows.
  const auto text = testing::RunCli("io " + tmp.path(), &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("cold"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("100.0%"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("254:0"), std::string::npos) << text.out;
}

// The index holds the same counts over time: per process and file, cumulative pages read
// and misses, set as they change, up to the trace's last event.
TEST(IoCommandTest, TheIndexStoresEachProcessAndFilesCountsOverTime) {
  testing::TempDir tmp;
  WriteColdWarmTrace(tmp.path() + "/kernel");
  if (HasFatalFailure()) return;
  std::string err;
  ASSERT_EQ(testing::RunCli("index " + tmp.path(), &err).exit_code, 0) << err;
  analysis::IndexSource source;
  source.traces = {tmp.path()};
  const analysis::ValidIndex index = analysis::OpenValidIndex(source);
  ASSERT_TRUE(index.store) << index.reason;
  const state::StateStore& s = *index.store;
  auto at = [&](const std::string& path, uint64_t t) {
    const auto a = s.Find("hosts/h/processes/" + path);
    return a ? s.Format(s.At(*a, static_cast<int64_t>(kBase + t)).value) : "no " + path;
  };
  const std::string cold = "100/files/" + std::to_string(kInode) + "/";
  const std::string warm = "200/files/" + std::to_string(kInode) + "/";
  EXPECT_EQ(at(cold + "pages_read", 1035), "64");  // one read of pages 0-63, two batches
  EXPECT_EQ(at(cold + "pages_read", 1045), "65");  // and the fault on page 64
  EXPECT_EQ(at(cold + "cache_misses", 1045), "65");
  EXPECT_EQ(at(warm + "pages_read", 1500), "null");  // before its first read
  EXPECT_EQ(at(warm + "pages_read", 2000), "32");    // its first read, pages 0-31
  EXPECT_EQ(at(warm + "cache_misses", 2000), "0");   // from its first read on: 0, not null
  // The store ends at the last event, warm's second read (pages 32-64), long after the
  // last event of the graph (the block request's completion).
  EXPECT_EQ(s.end(), static_cast<int64_t>(kBase + 2001));
}

TEST(IoCommandTest, TraceWithoutPageCacheEventsSaysSo) {
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";
    auto w = ctf::CtfWriter::Create(tmp.path() + "/kernel", opts);
    ASSERT_TRUE(w.ok());
    // Only the scheduler's events declared: another tracer's trace.
    auto sw = kernel::DeclareLttngEvent(**w, LttngEvent::kSchedSwitch);
    ASSERT_TRUE(sw.ok());
    (*w)->Begin(0, *sw, kBase).Chars16("a").S32(1).S32(20).S64(0).Chars16("b").S32(2).S32(20);
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::string err;
  const auto r = testing::RunCli("io " + tmp.path(), &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(r.out.find("Page cache: not in this trace"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace causeway
