#include "index/page_cache_feed.h"

namespace causeway::index {

void PageCacheFeed::Start(const kernel::KernelModel&, const graph::ExecutionGraph&) {}

void PageCacheFeed::OnEvent(const kernel::KernelEvent&) {}

void PageCacheFeed::Finish(int64_t) {}

}  // namespace causeway::index
