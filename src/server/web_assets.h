// The web UI's files (web/README.md), embedded into the binary at build time by
// web/embed.cmake: index.html, app.js, app.css. Nothing is read from disk or fetched at run
// time unless `--web-dir` names a directory to serve instead (for work on the UI).
#pragma once

#include <string_view>
#include <vector>

namespace causeway::server {

struct WebAsset {
  std::string_view path;  // "/index.html"
  std::string_view content_type;
  std::string_view bytes;
};

// Generated (web/embed.cmake): the bundle, or a page saying it was not built.
const std::vector<WebAsset>& EmbeddedWebAssets();

// The asset served at `path` ("/" is "/index.html"), or nullptr.
const WebAsset* FindWebAsset(std::string_view path);

}  // namespace causeway::server
