// Recorder: one `causeway record` run. Attaches the probes, writes the statedump, runs the
// command (if any) with the recording's environment, drains the ring buffer into the trace
// (or, in snapshot mode, into per-CPU in-memory rings dumped on request), and stops on
// --duration, on the command's exit, or on SIGINT/SIGTERM.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace causeway::record {

struct RecordOptions {
  std::string output_dir;
  double duration_s = 0;  // 0: until the command ends or a signal
  std::vector<std::string> command;
  bool syscalls = true;    // syscall_entry / syscall_exit of every process but the recorder
  bool http = true;        // capture HTTP/1.x messages on TCP sockets (http_message events)
  bool page_cache = true;  // the filemap tracepoints: pages read and missed per file
  size_t ring_bytes = 16 << 20;
  bool snapshot = false;
  size_t snapshot_bytes_per_cpu = 64 << 20;
  int64_t trigger_latency_ns = 0;  // > 0: causeway-client asks for a snapshot on slower spans
  // Mode of the recording's directories; its files get the same bits without execute.
  uint32_t mode = 0700;
  // Called about once a second and at the end with a one-line status (for the CLI).
  std::function<void(const std::string&)> progress;
};

struct RecordSummary {
  std::string kernel_trace;            // DIR/kernel ("" in snapshot mode)
  std::vector<std::string> snapshots;  // DIR/snapshot-N/kernel
  uint64_t events = 0;                 // written
  uint64_t bytes = 0;
  uint64_t lost = 0;         // dropped by the kernel ring buffer (written into the trace)
  uint64_t clamped = 0;      // written at an earlier timestamp than they had (see README)
  uint64_t unknown = 0;      // records of a type this build does not know
  uint64_t overwritten = 0;  // snapshot mode: older records replaced by newer ones
  // HTTP capture: on unless turned off or unavailable (then `http_unavailable` says why).
  bool http = false;
  std::string http_unavailable;
  // Page cache events: on unless turned off or unavailable (`page_cache_unavailable` says why).
  bool page_cache = false;
  std::string page_cache_unavailable;
  uint64_t http_messages = 0;     // http_message events written
  uint64_t http_truncated = 0;    // of them, with a header block longer than the copied prefix
  uint64_t http_dropped = 0;      // not taken by the ring buffer (included in `lost`)
  uint64_t http_fields_lost = 0;  // snapshot mode: lines overwritten before being written
  uint64_t http_not_http = 0;     // began like HTTP, but the first line was not (not written)
  std::vector<std::string> probes;
  double seconds = 0;
  int command_exit = -1;  // -1: no command
  std::string stop_reason;
  int stop_signal = 0;  // the signal that stopped the recorder (0: it was not one)
  // Packets a write error (disk full) kept off the disk: each stream was cut back to its
  // last whole packet and its next packet reports the events as discarded.
  uint64_t write_failures = 0;
  uint64_t write_lost_packets = 0;
  uint64_t write_lost_events = 0;
  uint64_t write_lost_bytes = 0;
  std::string write_error;                   // the last one
  std::vector<std::string> snapshot_errors;  // snapshots that could not be written, and why
};

// Set by the CLI's signal handlers; checked between ring-buffer reads.
struct RecordSignals {
  std::atomic<bool> stop{false};
  std::atomic<int> stop_signal{0};
  std::atomic<int> snapshot_requests{0};
};
RecordSignals& Signals();

StatusOr<RecordSummary> Record(const RecordOptions& options);

}  // namespace causeway::record
