// The page cache feed: per process and file, the pages its reads asked for and the pages
// they added to the page cache (misses), from the kernel's page cache events during the
// pass (hosts/<h>/processes/<pid>/files/<inode>/pages_read and cache_misses,
// src/state/README.md).
//
// The place where the page cache events are turned into intervals: KernelEventFeed hands
// it every event of the pass. It writes nothing yet: the events it needs are not read by
// the kernel layouts yet (issue 58, item 5).
#pragma once

#include <cstdint>

#include "graph/execution_graph.h"
#include "kernel/kernel_event.h"
#include "kernel/kernel_model.h"
#include "state/state_store.h"

namespace causeway::index {

class PageCacheFeed {
 public:
  explicit PageCacheFeed(state::StateWriter* writer) : writer_(writer) {}

  // Before the first event (KernelEventFeed::Start).
  void Start(const kernel::KernelModel& model, const graph::ExecutionGraph& graph);
  // Every event of the pass, in time order, after the model.
  void OnEvent(const kernel::KernelEvent& e);
  // After the last event.
  void Finish(int64_t end);

 private:
  state::StateWriter* writer_;
};

}  // namespace causeway::index
