// Pipeline assembly for `causeway io`: kernel traces -> KernelLayout -> the page cache
// counts per process and file (kernel/page_cache.h) and the block requests per disk
// (kernel/block_requests.h), in one pass and without the execution graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernel/page_cache.h"

namespace causeway::analysis {

struct IoOptions {
  // Called every so often with (bytes consumed, total bytes, events read).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
};

// One process's reads of one file.
struct FileIo {
  std::string host;
  int32_t pid = -1;
  std::string process;  // its command name ("" when the trace never named it)
  int64_t dev = 0;      // the file's filesystem, the kernel's dev_t
  uint64_t inode = 0;
  kernel::PageCacheCounts counts;
};

// One disk's requests, from block_rq_insert / block_bio_queue, block_rq_issue and
// block_rq_complete (matched by device and sector).
struct DiskIo {
  std::string host;
  int64_t dev = 0;        // the whole disk's dev_t
  uint64_t requests = 0;  // completed
  uint64_t queued = 0;    // of them, seen entering the block layer and issued
  uint64_t issued = 0;    // of them, seen issued to the device
  int64_t queued_ns = 0;  // total time from entering the block layer to the issue
  int64_t device_ns = 0;  // total time from the issue to the completion
};

struct IoAnalysis {
  std::vector<std::string> trace_dirs;
  bool page_cache_recorded = false;  // some trace declares the page cache events
  bool block_recorded = false;       // some trace declares block_rq_complete
  std::vector<FileIo> files;         // most misses first, then most pages read
  std::vector<DiskIo> disks;         // by host, then device
  kernel::PageCacheTotals page_cache;
  uint64_t events_read = 0;
};

// "M:m" of a kernel dev_t (major << 20 | minor).
std::string DeviceName(int64_t dev);

// Reads the kernel traces under `paths` (searched recursively; user-space traces are
// skipped) once.
StatusOr<IoAnalysis> AnalyzeIo(const std::vector<std::string>& paths,
                               const IoOptions& options = {});

}  // namespace causeway::analysis
