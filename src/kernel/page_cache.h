// Page cache hits and misses per process and file, from the recorder's page cache events
// (kPageCache*), as seed 003 measures them: misses from the events of a miss only (pages
// brought into the cache), set against the pages the reads asked for.
//
// - pages_read: the pages a process's reads (read, pread, readv, sendfile, splice: the
//   kernel's filemap_get_pages) and page faults on file mappings asked for. A read gives one
//   event per batch of pages the kernel takes from the cache, each with the range still to
//   read, so a thread's event that continues its previous one on the same file (starts
//   inside it, ends no earlier) adds only the pages past the previous end.
// - cache_misses: the pages added to the page cache in the process's context, but for a
//   write's (a write fills new pages; that is no miss). Readahead pages count as misses of
//   the read that triggered them: a process that reads a file in part may have more misses
//   than pages read (the ratio is capped at 1).
// Cumulative from the start of the trace; each change calls the change callback, so that a
// store can keep the counts over time (index/page_cache_feed.h).
#pragma once

#include <cstdint>
#include <functional>

#include <absl/container/flat_hash_map.h>

#include "kernel/kernel_event.h"

namespace causeway::kernel {

// A file as a process saw it: (host, process, device, inode).
struct PageCacheFile {
  uint32_t host = 0;
  int32_t pid = -1;
  int64_t dev = 0;  // the kernel's dev_t of the file's filesystem (major << 20 | minor)
  uint64_t inode = 0;
  bool operator==(const PageCacheFile&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PageCacheFile& f) {
    return H::combine(std::move(h), f.host, f.pid, f.dev, f.inode);
  }
};

struct PageCacheCounts {
  uint64_t pages_read = 0;
  uint64_t cache_misses = 0;
  // cache_misses / pages_read, at most 1 (readahead may bring in pages never read); 1 when
  // pages were missed but none read, 0 when neither.
  double miss_ratio() const;
};

// What the events held, all files together.
struct PageCacheTotals {
  uint64_t read_events = 0;      // reads and faults
  uint64_t continued_reads = 0;  // of them, continuing a thread's previous read
  uint64_t pages_read = 0;
  uint64_t pages_missed = 0;
  uint64_t pages_written = 0;  // added to the cache by write system calls (not misses)
  uint64_t pages_evicted = 0;  // removed from the cache (reclaim, truncation, drop_caches)
};

class PageCacheCounter {
 public:
  using ChangeFn =
      std::function<void(const PageCacheFile& file, int64_t ts, const PageCacheCounts& now)>;
  explicit PageCacheCounter(ChangeFn on_change = nullptr) : on_change_(std::move(on_change)) {}

  // Counts a page cache event (events in time order); other kinds are ignored.
  void Process(const KernelEvent& e);

  const absl::flat_hash_map<PageCacheFile, PageCacheCounts>& files() const { return files_; }
  const PageCacheTotals& totals() const { return totals_; }

 private:
  // A thread's last read, to tell a read's next batch from a new read.
  struct LastRead {
    int64_t dev = 0;
    uint64_t inode = 0;
    uint64_t first = 0;
    uint64_t last = 0;
  };
  struct ThreadKey {
    uint32_t host;
    int32_t tid;
    bool operator==(const ThreadKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const ThreadKey& k) {
      return H::combine(std::move(h), k.host, k.tid);
    }
  };
  void Add(const KernelEvent& e, int32_t tid, uint64_t read, uint64_t missed);

  ChangeFn on_change_;
  absl::flat_hash_map<PageCacheFile, PageCacheCounts> files_;
  absl::flat_hash_map<ThreadKey, LastRead> last_read_;
  PageCacheTotals totals_;
};

}  // namespace causeway::kernel
