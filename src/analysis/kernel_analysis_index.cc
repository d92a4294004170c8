#include "analysis/kernel_analysis_index.h"

#include <ctime>

#include <fmt/format.h>

#include "analysis/index_location.h"
#include "analysis/kernel_analysis_file.h"

namespace causeway::analysis {

namespace {

std::string UtcTime(int64_t unix_s) {
  const time_t t = static_cast<time_t>(unix_s);
  struct tm tm;
  if (!gmtime_r(&t, &tm)) return fmt::format("at {} s", unix_s);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// The first line of the key that differs ("trace0 kernel/channel0_0 4096 1732900000000000000"
// against the file's), trimmed to what a note can show.
std::string WhatChanged(const std::string& stored, const std::string& current) {
  size_t a = 0, b = 0;
  while (a < stored.size() || b < current.size()) {
    const size_t ae = std::min(stored.find('\n', a), stored.size());
    const size_t be = std::min(current.find('\n', b), current.size());
    const std::string_view sl(stored.data() + a, ae - a), cl(current.data() + b, be - b);
    if (sl != cl) {
      // The path is the line's second word: name it, not the numbers.
      std::string_view line = cl.empty() ? sl : cl;
      const size_t s1 = line.find(' ');
      const size_t s2 = s1 == line.npos ? line.npos : line.find(' ', s1 + 1);
      if (line.starts_with("trace") && s2 != line.npos)
        return fmt::format("{} changed", line.substr(s1 + 1, s2 - s1 - 1));
      return fmt::format("'{}' changed", line.substr(0, 80));
    }
    a = ae + 1;
    b = be + 1;
  }
  return "the sources changed";
}

bool Rebase(std::string* path, const std::string& from, const std::string& to) {
  if (from == to || !path->starts_with(from)) return false;
  if (path->size() > from.size() && (*path)[from.size()] != '/' && from.back() != '/') return false;
  path->replace(0, from.size(), to);
  return true;
}

}  // namespace

void RebaseTracePaths(KernelAnalysis* a, const std::vector<std::string>& paths) {
  if (a->paths == paths || a->paths.size() != paths.size()) return;
  auto rebase = [&](std::string* p) {
    for (size_t i = 0; i < paths.size(); ++i)
      if (Rebase(p, a->paths[i], paths[i])) return;
  };
  for (auto* list : {&a->trace_dirs, &a->unused_trace_dirs})
    for (std::string& d : *list) rebase(&d);
  for (ctf::StreamStats& s : a->streams) rebase(&s.path);
  a->paths = paths;
}

std::unique_ptr<KernelAnalysis> LoadIndexedKernelAnalysis(const std::vector<std::string>& paths,
                                                          const KernelAnalysisOptions& options) {
  auto note = [&](const std::string& text) {
    if (options.index.note) options.index.note(text);
  };
  StatusOr<IndexLocation> where = LocateIndex(paths, options.index.cache_dir);
  if (!where.ok()) return nullptr;  // the traces' own error is clearer: read them
  const std::string key = KernelSourceKey(paths, options.sync);
  KernelAnalysisFileInfo info;
  StatusOr<std::unique_ptr<KernelAnalysis>> read =
      ReadKernelAnalysisFile(where->graph_path, key, &info);
  if (!read.ok()) {
    if (read.status().code() != StatusCode::kNotFound)
      note(fmt::format("index refused ({}): reading the trace", read.status().ToString()));
    return nullptr;
  }
  if (!*read) {
    note(fmt::format("index stale ({} since {}): reading the trace", WhatChanged(info.key, key),
                     UtcTime(info.built_unix_s)));
    return nullptr;
  }
  note(fmt::format("using the index built {} ({})", UtcTime(info.built_unix_s), where->graph_path));
  RebaseTracePaths(read->get(), paths);
  return std::move(*read);
}

}  // namespace causeway::analysis
