#include "server/ui_routes.h"

#include <cstdlib>
#include <filesystem>

namespace causeway::server {

std::string DefaultUiDir() {
  if (const char* env = std::getenv("CAUSEWAY_UI_DIR")) return env;
  // Beside the executable in a build tree or an install: share/causeway/ui.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "causeway" / "ui";
  return std::filesystem::is_directory(dir, ec) ? dir.string() : "";
}

void RegisterUiRoutes(httplib::Server& http, const UiContext& ui) {
  const std::string dir = ui.ui_dir.empty() ? DefaultUiDir() : ui.ui_dir;
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_directory(dir, ec)) {
    // httplib refuses paths with ".." and serves only regular files below the mount.
    http.set_mount_point("/", dir);
    return;
  }
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        "<!doctype html><title>causeway serve</title><p>No web UI was found (give --ui DIR "
        "with its built files). The Trace Server Protocol API is at <a "
        "href=\"/tsp/api/health\">/tsp/api</a>.</p>\n",
        "text/html; charset=utf-8");
  });
}

}  // namespace causeway::server
