#include "server/web_assets.h"

namespace causeway::server {

const WebAsset* FindWebAsset(std::string_view path) {
  if (path == "/" || path.empty()) path = "/index.html";
  for (const WebAsset& a : EmbeddedWebAssets())
    if (a.path == path) return &a;
  return nullptr;
}

}  // namespace causeway::server
