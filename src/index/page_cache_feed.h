// Feeds the page cache counts into the state store, in the analysis' one pass: per process
// and file the cumulative integers
//   hosts/<h>/processes/<pid>/files/<inode>/cache_misses
//   hosts/<h>/processes/<pid>/files/<inode>/pages_read
// (src/state/README.md), each set at the moment it changes (kernel/page_cache.h says what is
// counted). The schema names a file by its inode alone: two files of one process with the
// same inode on different devices share the attributes, and their counts are added.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kernel/kernel_event.h"
#include "kernel/page_cache.h"
#include "state/state_store.h"

namespace causeway::index {

class PageCacheFeed {
 public:
  // `host_names[i]` is the name of the KernelEvent's host i. `writer` must outlive the feed.
  PageCacheFeed(state::StateWriter& writer, std::vector<std::string> host_names);
  PageCacheFeed(const PageCacheFeed&) = delete;
  PageCacheFeed& operator=(const PageCacheFeed&) = delete;

  // Counts a page cache event and sets the attributes it changed; other kinds are ignored.
  void Process(const kernel::KernelEvent& e) { counter_.Process(e); }

  const kernel::PageCacheTotals& totals() const { return counter_.totals(); }

 private:
  struct StoreKey {
    uint32_t host;
    int32_t pid;
    uint64_t inode;
    bool operator==(const StoreKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const StoreKey& k) {
      return H::combine(std::move(h), k.host, k.pid, k.inode);
    }
  };
  struct StoreFile {
    state::AttributeId cache_misses = 0;
    state::AttributeId pages_read = 0;
    kernel::PageCacheCounts sum;  // over the devices
  };
  void OnChange(const kernel::PageCacheFile& file, int64_t ts, const kernel::PageCacheCounts& now);

  state::StateWriter& writer_;
  std::vector<std::string> host_names_;
  kernel::PageCacheCounter counter_;
  // Each (process, device, inode)'s counts as last set, to add its change to the sum.
  absl::flat_hash_map<kernel::PageCacheFile, kernel::PageCacheCounts> last_;
  absl::flat_hash_map<StoreKey, StoreFile> files_;
};

}  // namespace causeway::index
