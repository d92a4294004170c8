#include "kernel/page_cache.h"

#include <vector>

#include <gtest/gtest.h>

namespace causeway::kernel {
namespace {

constexpr int64_t kDev = (8 << 20) | 1;  // 8:1

KernelEvent PageEvent(Kind kind, int64_t ts, int32_t tid, int32_t pid, uint64_t inode,
                      uint64_t first, uint64_t last, bool write = false) {
  KernelEvent e;
  e.kind = kind;
  e.ts = ts;
  e.tid = tid;
  e.pid = pid;
  e.set_dev(kDev);
  e.inode = inode;
  e.page_first = first;
  e.page_last = last;
  e.page_write = write;
  return e;
}

PageCacheCounts CountsOf(const PageCacheCounter& c, int32_t pid, uint64_t inode) {
  auto it = c.files().find(PageCacheFile{0, pid, kDev, inode});
  return it == c.files().end() ? PageCacheCounts{} : it->second;
}

TEST(PageCacheCounterTest, ColdReadMissesEveryPageAndWarmReadNone) {
  PageCacheCounter c;
  // Cold: readahead brings in 64 pages, the read of pages 0-31 takes them in one batch;
  // the next read (32-63) finds them in the cache.
  c.Process(PageEvent(Kind::kPageCacheAdd, 10, 100, 100, 7, 0, 63));
  c.Process(PageEvent(Kind::kPageCacheRead, 11, 100, 100, 7, 0, 31));
  c.Process(PageEvent(Kind::kPageCacheRead, 12, 100, 100, 7, 32, 63));
  EXPECT_EQ(CountsOf(c, 100, 7).pages_read, 64u);
  EXPECT_EQ(CountsOf(c, 100, 7).cache_misses, 64u);
  EXPECT_DOUBLE_EQ(CountsOf(c, 100, 7).miss_ratio(), 1.0);
  // Warm, another process: every page read, none missed.
  c.Process(PageEvent(Kind::kPageCacheRead, 20, 200, 200, 7, 0, 63));
  EXPECT_EQ(CountsOf(c, 200, 7).pages_read, 64u);
  EXPECT_EQ(CountsOf(c, 200, 7).cache_misses, 0u);
  EXPECT_DOUBLE_EQ(CountsOf(c, 200, 7).miss_ratio(), 0.0);
}

TEST(PageCacheCounterTest, BatchesOfOneReadCountOnceAndRereadsCountAgain) {
  PageCacheCounter c;
  // One read of pages 0-255 in three batches, each event with the range still to read.
  c.Process(PageEvent(Kind::kPageCacheRead, 1, 5, 5, 9, 0, 255));
  c.Process(PageEvent(Kind::kPageCacheRead, 2, 5, 5, 9, 31, 255));
  c.Process(PageEvent(Kind::kPageCacheRead, 3, 5, 5, 9, 62, 255));
  EXPECT_EQ(CountsOf(c, 5, 9).pages_read, 256u);
  EXPECT_EQ(c.totals().continued_reads, 2u);
  // The same page read twice (pread in a loop) is two reads of it.
  c.Process(PageEvent(Kind::kPageCacheRead, 4, 5, 5, 9, 300, 300));
  c.Process(PageEvent(Kind::kPageCacheRead, 5, 5, 5, 9, 300, 300));
  EXPECT_EQ(CountsOf(c, 5, 9).pages_read, 258u);
  // A batch continuing a read of another file is a new read.
  c.Process(PageEvent(Kind::kPageCacheRead, 6, 5, 5, 10, 301, 310));
  EXPECT_EQ(CountsOf(c, 5, 10).pages_read, 10u);
}

TEST(PageCacheCounterTest, WritesAndEvictionsAreNoMissesAndRatioIsCapped) {
  std::vector<std::pair<int64_t, PageCacheCounts>> changes;
  PageCacheCounter c([&](const PageCacheFile& f, int64_t ts, const PageCacheCounts& now) {
    EXPECT_EQ(f.pid, 3);
    changes.emplace_back(ts, now);
  });
  c.Process(PageEvent(Kind::kPageCacheAdd, 1, 3, 3, 4, 0, 15, /*write=*/true));
  c.Process(PageEvent(Kind::kPageCacheDelete, 2, 3, 3, 4, 0, 15));
  EXPECT_TRUE(c.files().empty());
  EXPECT_EQ(c.totals().pages_written, 16u);
  EXPECT_EQ(c.totals().pages_evicted, 16u);
  // Readahead of 32 pages for a read of 4: more misses than pages read, ratio 1.
  c.Process(PageEvent(Kind::kPageCacheAdd, 3, 3, 3, 4, 0, 31));
  c.Process(PageEvent(Kind::kPageCacheRead, 4, 3, 3, 4, 0, 3));
  EXPECT_EQ(CountsOf(c, 3, 4).cache_misses, 32u);
  EXPECT_EQ(CountsOf(c, 3, 4).pages_read, 4u);
  EXPECT_DOUBLE_EQ(CountsOf(c, 3, 4).miss_ratio(), 1.0);
  // One change per event that changed the counts, in order, cumulative.
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].first, 3);
  EXPECT_EQ(changes[0].second.cache_misses, 32u);
  EXPECT_EQ(changes[1].first, 4);
  EXPECT_EQ(changes[1].second.pages_read, 4u);
}

TEST(PageCacheCounterTest, ThreadsCountForTheirProcess) {
  PageCacheCounter c;
  c.Process(PageEvent(Kind::kPageCacheRead, 1, 41, 40, 2, 0, 9));
  c.Process(PageEvent(Kind::kPageCacheRead, 2, 42, 40, 2, 0, 9));
  EXPECT_EQ(CountsOf(c, 40, 2).pages_read, 20u);
  // Without a pid (the kernel's own events), the task stands for its process.
  c.Process(PageEvent(Kind::kPageCacheRead, 3, 43, -1, 2, 0, 0));
  EXPECT_EQ(CountsOf(c, 43, 2).pages_read, 1u);
}

}  // namespace
}  // namespace causeway::kernel
