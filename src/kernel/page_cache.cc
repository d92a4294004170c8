#include "kernel/page_cache.h"

#include <algorithm>

namespace causeway::kernel {

double PageCacheCounts::miss_ratio() const {
  // Misses with no read: pages brought in for other than a read (a filesystem's metadata
  // in its block device's cache, readahead of a file never read) count as all missed.
  if (pages_read == 0) return cache_misses ? 1 : 0;
  return std::min(1.0, static_cast<double>(cache_misses) / static_cast<double>(pages_read));
}

void PageCacheCounter::Process(const KernelEvent& e) {
  if (e.kind != Kind::kPageCacheAdd && e.kind != Kind::kPageCacheRead &&
      e.kind != Kind::kPageCacheDelete)
    return;
  if (e.page_last < e.page_first) return;  // damaged: no pages
  const uint64_t pages = e.page_last - e.page_first + 1;
  // The recorder names the task; the kernel's own events only through the current one.
  const int32_t tid = e.tid >= 0 ? e.tid : e.current_tid;
  switch (e.kind) {
    case Kind::kPageCacheDelete:
      totals_.pages_evicted += pages;
      return;
    case Kind::kPageCacheAdd:
      if (e.page_write) {
        totals_.pages_written += pages;
        return;
      }
      totals_.pages_missed += pages;
      Add(e, tid, 0, pages);
      return;
    default:
      break;
  }
  ++totals_.read_events;
  LastRead& last = last_read_[ThreadKey{e.host, tid}];
  uint64_t read = pages;
  // The next batch of the same read: it starts inside the range counted before (after its
  // start: a re-read of the same pages starts at the same page) and ends no earlier.
  if (last.inode == e.inode && last.dev == e.dev() && e.page_first > last.first &&
      e.page_first <= last.last + 1 && e.page_last >= last.last) {
    read = e.page_last - last.last;
    if (e.page_first <= last.last) ++totals_.continued_reads;
  }
  last = LastRead{e.dev(), e.inode, e.page_first, e.page_last};
  totals_.pages_read += read;
  if (read > 0) Add(e, tid, read, 0);
}

void PageCacheCounter::Add(const KernelEvent& e, int32_t tid, uint64_t read, uint64_t missed) {
  const PageCacheFile file{e.host, e.pid >= 0 ? e.pid : tid, e.dev(), e.inode};
  PageCacheCounts& c = files_[file];
  c.pages_read += read;
  c.cache_misses += missed;
  if (on_change_) on_change_(file, e.ts, c);
}

}  // namespace causeway::kernel
