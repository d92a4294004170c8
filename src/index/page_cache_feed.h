// The page cache feed: per process and file, the pages its reads asked for and the pages
// brought into the page cache for it (misses), from the kernel's page cache events during
// the pass, as cumulative integers set at each change:
//   hosts/<h>/processes/<pid>/files/<inode>/cache_misses
//   hosts/<h>/processes/<pid>/files/<inode>/pages_read
// (src/state/README.md; kernel/page_cache.h says what is counted). KernelEventFeed hands it
// every event of the pass. The schema names a file by its inode alone: two files of one
// process with the same inode on different devices share the attributes, their counts
// added.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "graph/execution_graph.h"
#include "kernel/kernel_event.h"
#include "kernel/kernel_model.h"
#include "kernel/page_cache.h"
#include "state/state_store.h"

namespace causeway::index {

class PageCacheFeed {
 public:
  explicit PageCacheFeed(state::StateWriter* writer);
  PageCacheFeed(const PageCacheFeed&) = delete;
  PageCacheFeed& operator=(const PageCacheFeed&) = delete;

  // Before the first event (KernelEventFeed::Start): the hosts' names.
  void Start(const kernel::KernelModel& model, const graph::ExecutionGraph& graph);
  // Every event of the pass, in time order, after the model; other kinds are ignored.
  void OnEvent(const kernel::KernelEvent& e) { counter_.Process(e); }
  // After the last event (the writer closes the open intervals).
  void Finish(int64_t) {}

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

  state::StateWriter* writer_;
  std::vector<std::string> host_names_;
  kernel::PageCacheCounter counter_;
  // Each (process, device, inode)'s counts as last set, to add its change to the sum.
  absl::flat_hash_map<kernel::PageCacheFile, kernel::PageCacheCounts> last_;
  absl::flat_hash_map<StoreKey, StoreFile> files_;
};

}  // namespace causeway::index
