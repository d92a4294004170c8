// Our state store (src/state) behind the comparison's calls: built with StateWriter in the
// intervals' end-time order, as the analysis feeds it, queried through StateStore.
#pragma once

#include <memory>
#include <string>

#include "store_compare/backend.h"

namespace causeway::bench {

// Writes (replaces) the store file at `path` on Build.
std::unique_ptr<Backend> MakeStoreBackend(const std::string& path);

}  // namespace causeway::bench
