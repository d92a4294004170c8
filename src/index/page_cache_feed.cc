#include "index/page_cache_feed.h"

#include <utility>

#include <fmt/format.h>

namespace causeway::index {

PageCacheFeed::PageCacheFeed(state::StateWriter* writer)
    : writer_(writer),
      counter_([this](const kernel::PageCacheFile& file, int64_t ts,
                      const kernel::PageCacheCounts& now) { OnChange(file, ts, now); }) {}

void PageCacheFeed::Start(const kernel::KernelModel&, const graph::ExecutionGraph& graph) {
  host_names_.assign(graph.hosts().begin(), graph.hosts().end());
}

void PageCacheFeed::OnChange(const kernel::PageCacheFile& file, int64_t ts,
                             const kernel::PageCacheCounts& now) {
  kernel::PageCacheCounts& before = last_[file];
  auto [it, added] = files_.try_emplace(StoreKey{file.host, file.pid, file.inode});
  StoreFile& f = it->second;
  if (added) {
    // Paths are made once per file, never per event.
    const std::string base = fmt::format(
        "hosts/{}/processes/{}/files/{}/",
        file.host < host_names_.size() ? host_names_[file.host] : std::to_string(file.host),
        file.pid, file.inode);
    f.cache_misses = writer_->Attribute(base + "cache_misses");
    f.pages_read = writer_->Attribute(base + "pages_read");
  }
  // Both counts from the file's first change on (a read before any miss: 0 misses, not null).
  if (added || now.cache_misses != before.cache_misses) {
    f.sum.cache_misses += now.cache_misses - before.cache_misses;
    writer_->Set(f.cache_misses, ts,
                 state::StateValue::Int(static_cast<int64_t>(f.sum.cache_misses)));
  }
  if (added || now.pages_read != before.pages_read) {
    f.sum.pages_read += now.pages_read - before.pages_read;
    writer_->Set(f.pages_read, ts, state::StateValue::Int(static_cast<int64_t>(f.sum.pages_read)));
  }
  before = now;
}

}  // namespace causeway::index
