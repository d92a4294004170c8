#include "analysis/index_location.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::analysis {
namespace {

namespace fs = std::filesystem;

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(IndexLocationTest, IndexGoesBesideTheFirstTraceOrIntoTheCache) {
  testing::TempDir tmp;
  const std::string a = tmp.path() + "/rec-a";
  const std::string b = tmp.path() + "/rec-b";
  Write(a + "/kernel/metadata", "m");
  Write(b + "/kernel/metadata", "m");

  auto beside = LocateIndex({a, b});
  ASSERT_TRUE(beside.ok()) << beside.status().ToString();
  EXPECT_EQ(beside->dir, a + "/.causeway");
  EXPECT_EQ(beside->store_path, a + "/.causeway/state.cws");
  EXPECT_EQ(beside->graph_path, a + "/.causeway/graph.cwg");

  const std::string cache = tmp.path() + "/cache";
  auto ab = LocateIndex({a, b}, cache);
  auto a_only = LocateIndex({a}, cache);
  auto ab_again = LocateIndex({a, b}, cache);
  ASSERT_TRUE(ab.ok() && a_only.ok() && ab_again.ok());
  EXPECT_EQ(fs::path(ab->dir).parent_path(), fs::path(cache));
  EXPECT_EQ(fs::path(ab->dir).filename().string().rfind("rec-a-", 0), 0u) << ab->dir;
  EXPECT_NE(ab->dir, a_only->dir) << "other traces, other folder in a shared cache";
  EXPECT_EQ(ab->dir, ab_again->dir);
  EXPECT_FALSE(fs::exists(ab->dir)) << "locating creates nothing";

  EXPECT_FALSE(LocateIndex({}).ok());
  EXPECT_EQ(LocateIndex({tmp.path() + "/none"}).status().code(), StatusCode::kNotFound);
}

TEST(IndexLocationTest, KeyChangesWithTheTraceFilesAndOptionsButNotTheIndexItself) {
  testing::TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  Write(rec + "/kernel/metadata", "meta");
  Write(rec + "/kernel/chan_0", "0123");
  const ClockSyncOptions sync;
  const std::string key = KernelSourceKey({rec}, sync);
  EXPECT_NE(key.find("kernel/chan_0 4 "), std::string::npos) << key;
  EXPECT_EQ(KernelSourceKey({rec}, sync), key);

  Write(rec + "/.causeway/state.cws", "the index");
  EXPECT_EQ(KernelSourceKey({rec}, sync), key) << "the index is not part of its source";

  ClockSyncOptions off;
  off.mode = ClockSyncMode::kOff;
  EXPECT_NE(KernelSourceKey({rec}, off), key);

  // A touched file (same size, another time) and a new file each make another key.
  struct timespec times[2] = {{1000, 0}, {1000, 5}};
  ASSERT_EQ(utimensat(AT_FDCWD, (rec + "/kernel/chan_0").c_str(), times, 0), 0);
  const std::string touched = KernelSourceKey({rec}, sync);
  EXPECT_NE(touched, key);
  Write(rec + "/kernel/chan_1", "");
  EXPECT_NE(KernelSourceKey({rec}, sync), touched);

  // Moved with its index, a recording keeps its key.
  const std::string moved = tmp.path() + "/moved";
  const std::string before = KernelSourceKey({rec}, sync);
  fs::rename(rec, moved);
  EXPECT_EQ(KernelSourceKey({moved}, sync), before);

  // Spans: their files and host are part of the recording's key.
  Write(tmp.path() + "/spans/s.json", "{}");
  const std::string with_spans = RecordingSourceKey(before, {tmp.path() + "/spans"});
  EXPECT_NE(with_spans, RecordingSourceKey(before, {}));
  EXPECT_NE(with_spans, RecordingSourceKey(before, {tmp.path() + "/spans"}, "other-host"));
  Write(tmp.path() + "/spans/s.json", "{ }");
  EXPECT_NE(RecordingSourceKey(before, {tmp.path() + "/spans"}), with_spans);
}

}  // namespace
}  // namespace causeway::analysis
