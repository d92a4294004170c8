#include "analysis/index_location.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace causeway::analysis {
namespace {

namespace fs = std::filesystem;

constexpr const char* kIndexFolder = ".causeway";

// FNV-1a, 64 bits: stable across builds and runs (a cache folder name must not change when
// the program is rebuilt), unlike std::hash.
uint64_t StableHash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) abs = fs::absolute(path, ec).lexically_normal();
  return abs.string();
}

// "size mtime_ns" of a file, or "missing" when it cannot be read.
std::string FileStamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "missing";
  const int64_t mtime_ns =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return fmt::format("{} {}", static_cast<uint64_t>(st.st_size), mtime_ns);
}

// Appends one line per regular file under `root` (or `root` itself when it is a file):
// `<tag> <path> <size> <mtime>`, paths relative to `root` when `relative`, in name order so
// that the key does not depend on the directory's listing order. Index folders are skipped:
// the index must not be part of its own source.
void AppendFiles(const std::string& root, bool relative, const std::string& tag, std::string* key) {
  std::error_code ec;
  const fs::file_status status = fs::status(root, ec);
  if (ec || !fs::exists(status)) {
    *key += fmt::format("{} {} missing\n", tag, root);
    return;
  }
  if (!fs::is_directory(status)) {
    *key += fmt::format("{} {} {}\n", tag, relative ? "." : Absolute(root), FileStamp(root));
    return;
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == kIndexFolder && it->is_directory(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    files.push_back(relative ? it->path().lexically_relative(root).string()
                             : Absolute(it->path().string()));
  }
  std::sort(files.begin(), files.end());
  const std::string base = relative ? root + "/" : "";
  for (const std::string& f : files) {
    *key += fmt::format("{} {} {}\n", tag, f, FileStamp(relative ? base + f : f));
  }
}

}  // namespace

StatusOr<IndexLocation> LocateIndex(const std::vector<std::string>& trace_paths,
                                    const std::string& cache_dir) {
  if (trace_paths.empty()) return InvalidArgument("no trace path to index");
  const std::string& first = trace_paths.front();
  std::error_code ec;
  const fs::file_status status = fs::status(first, ec);
  if (ec || !fs::exists(status)) return NotFound(fmt::format("{}: no such trace path", first));
  IndexLocation loc;
  if (cache_dir.empty()) {
    const fs::path base =
        fs::is_directory(status) ? fs::path(first) : fs::path(first).parent_path();
    loc.dir = (base.empty() ? fs::path(".") : base) / kIndexFolder;
  } else {
    std::string all;
    for (const std::string& p : trace_paths) all += Absolute(p) + '\n';
    std::string name = fs::path(Absolute(first)).filename().string();
    if (name.empty()) name = "trace";
    loc.dir = (fs::path(cache_dir) / fmt::format("{}-{:016x}", name, StableHash(all))).string();
  }
  loc.store_path = loc.dir + "/state.cws";
  loc.graph_path = loc.dir + "/graph.cwg";
  return loc;
}

std::string KernelSourceKey(const std::vector<std::string>& trace_paths,
                            const ClockSyncOptions& sync) {
  std::string key = fmt::format("causeway index {}\n", kIndexContentVersion);
  switch (sync.mode) {
    case ClockSyncMode::kAuto:
      key += fmt::format("sync auto reference={}\n", sync.reference);
      break;
    case ClockSyncMode::kOff:
      key += "sync off\n";
      break;
    case ClockSyncMode::kFile:
      key += fmt::format("sync file {} {}\n", Absolute(sync.file), FileStamp(sync.file));
      break;
  }
  for (size_t i = 0; i < trace_paths.size(); ++i) {
    AppendFiles(trace_paths[i], /*relative=*/true, fmt::format("trace{}", i), &key);
  }
  return key;
}

std::string RecordingSourceKey(const std::string& kernel_key,
                               const std::vector<std::string>& span_paths,
                               const std::string& span_host) {
  std::string key = kernel_key;
  key += fmt::format("span host={}\n", span_host);
  for (const std::string& p : span_paths) AppendFiles(p, /*relative=*/false, "spans", &key);
  return key;
}

}  // namespace causeway::analysis
