#include "analysis/io_analysis.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "kernel/block_requests.h"
#include "kernel/kernel_layout.h"

namespace causeway::analysis {

namespace {

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool Declares(const ctf::EventReader& reader, std::string_view name) {
  for (const auto& t : reader.traces())
    for (const auto& sp : t->plan().streams)
      for (const auto& ep : sp->events)
        if (ep->cls->name == name) return true;
  return false;
}

}  // namespace

std::string DeviceName(int64_t dev) { return fmt::format("{}:{}", dev >> 20, dev & 0xfffff); }

StatusOr<IoAnalysis> AnalyzeIo(const std::vector<std::string>& paths, const IoOptions& options) {
  IoAnalysis result;
  ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader,
                   ctf::EventReader::Open(paths, kernel::KernelTracesOnly()));
  // Hosts by env hostname, as the kernel analysis groups them; no clock synchronization:
  // the counts do not depend on the order across hosts.
  std::vector<std::string> host_names;
  std::vector<uint32_t> host_of_trace;
  for (const auto& t : reader->traces()) {
    result.trace_dirs.push_back(t->dir());
    auto it = std::find(host_names.begin(), host_names.end(), t->hostname());
    if (it == host_names.end()) it = host_names.insert(host_names.end(), t->hostname());
    host_of_trace.push_back(static_cast<uint32_t>(it - host_names.begin()));
  }
  result.page_cache_recorded = Declares(*reader, "mm_filemap_add_to_page_cache");
  result.block_recorded = Declares(*reader, "block_rq_complete");
  kernel::KernelLayoutOptions layout_options;
  layout_options.page_cache = true;
  const kernel::KernelLayout layout =
      kernel::KernelLayout::Build(*reader, host_of_trace, layout_options);

  kernel::PageCacheCounter page_cache;
  kernel::BlockRequests block;
  std::map<std::pair<uint32_t, int64_t>, DiskIo> disks;
  // Process names, from what names a process: the statedump, a fork, an exec.
  absl::flat_hash_map<uint64_t, std::string> names;
  auto key = [](uint32_t host, int32_t pid) {
    return (uint64_t{host} << 32) | static_cast<uint32_t>(pid);
  };
  kernel::KernelEvent ke;
  uint64_t n = 0;
  const uint64_t total = reader->total_bytes();
  reader->ForEach([&](const ctf::Event& e) {
    ++n;
    if (options.progress && (n & 0xFFFF) == 0) options.progress(reader->consumed_bytes(), total, n);
    if (!layout.Convert(e, &ke)) return;
    switch (ke.kind) {
      case kernel::Kind::kPageCacheAdd:
      case kernel::Kind::kPageCacheRead:
      case kernel::Kind::kPageCacheDelete:
        page_cache.Process(ke);
        break;
      case kernel::Kind::kStatedump:
        if (ke.pid == ke.tid) names[key(ke.host, ke.pid)] = ke.Name();
        break;
      case kernel::Kind::kFork:
        if (ke.pid == ke.child_tid()) names[key(ke.host, ke.pid)] = ke.Name();
        break;
      case kernel::Kind::kExec:
        names[key(ke.host, ke.tid)] = Basename(ke.Name());
        break;
      case kernel::Kind::kBlockQueue:
        block.OnQueue(ke.host, ke.dev(), ke.sector, ke.ts, ke.block_reason != 0);
        break;
      case kernel::Kind::kBlockIssue:
        block.OnIssue(ke.host, ke.dev(), ke.sector, ke.ts);
        break;
      case kernel::Kind::kBlockComplete: {
        DiskIo& d = disks[{ke.host, ke.dev()}];
        ++d.requests;
        kernel::BlockRequestTimes t;
        if (!block.Complete(ke.host, ke.dev(), ke.sector, ke.ts, &t) || t.issued < 0) break;
        ++d.issued;
        d.device_ns += ke.ts - t.issued;
        if (t.queued >= 0 && t.queued <= t.issued) {
          ++d.queued;
          d.queued_ns += t.issued - t.queued;
        }
        break;
      }
      default:
        break;
    }
  });
  if (!reader->status().ok()) return reader->status();
  result.events_read = n;
  result.page_cache = page_cache.totals();
  for (const auto& [file, counts] : page_cache.files()) {
    FileIo f;
    f.host = host_names[file.host];
    f.pid = file.pid;
    if (auto it = names.find(key(file.host, file.pid)); it != names.end()) f.process = it->second;
    f.dev = file.dev;
    f.inode = file.inode;
    f.counts = counts;
    result.files.push_back(std::move(f));
  }
  std::sort(result.files.begin(), result.files.end(), [](const FileIo& a, const FileIo& b) {
    return std::tuple(b.counts.cache_misses, b.counts.pages_read, a.host, a.pid, a.dev, a.inode) <
           std::tuple(a.counts.cache_misses, a.counts.pages_read, b.host, b.pid, b.dev, b.inode);
  });
  for (auto& [k, d] : disks) {
    d.host = host_names[k.first];
    d.dev = k.second;
    result.disks.push_back(d);
  }
  return result;
}

}  // namespace causeway::analysis
