#include "server/ui_routes.h"

#include <cstdlib>
#include <filesystem>

#include "server/ui_json_routes.h"
#include "server/web_assets.h"

namespace causeway::server {

std::string DefaultUiDir() {
  if (const char* env = std::getenv("CAUSEWAY_UI_DIR")) return env;
  return "";
}

void RegisterUiRoutes(httplib::Server& http, const UiContext& ui) {
  if (ui.experiments) RegisterUiJsonRoutes(http, ui.experiments);
  const std::string dir = ui.ui_dir.empty() ? DefaultUiDir() : ui.ui_dir;
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_directory(dir, ec)) {
    // httplib refuses paths with ".." and serves only regular files below the mount.
    http.set_mount_point("/", dir);
    return;
  }
  // The bundle built into the binary (web/README.md).
  for (const WebAsset& asset : EmbeddedWebAssets()) {
    const auto serve = [&asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.bytes.data(), asset.bytes.size(), std::string(asset.content_type));
      // Each build embeds its own bundle under the same names: a browser must ask again.
      res.set_header("Cache-Control", "no-cache");
    };
    http.Get(std::string(asset.path), serve);
    if (asset.path == "/index.html") http.Get("/", serve);
  }
}

}  // namespace causeway::server
