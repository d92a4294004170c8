// BpfProbes: loads the recorder's BPF programs, attaches them, and hands out the records the
// kernel side writes into the ring buffer. Everything it attaches is owned by its file
// descriptors: destroying it (or the process dying) detaches every probe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace causeway::record {

struct ProbeOptions {
  size_t ring_bytes = 16 << 20;  // BPF ring buffer, shared by all CPUs (power of 2)
  bool syscalls = true;          // attach sys_enter / sys_exit
  bool http = true;              // capture HTTP/1.x messages on TCP sockets
  bool page_cache = true;        // attach the filemap (page cache) tracepoints
};

class BpfProbes {
 public:
  // Checks the prerequisites (root, BTF) and loads and attaches the programs. The errors
  // say what is missing and what to do.
  static StatusOr<std::unique_ptr<BpfProbes>> Start(const ProbeOptions& options);
  ~BpfProbes();
  BpfProbes(const BpfProbes&) = delete;
  BpfProbes& operator=(const BpfProbes&) = delete;

  // Calls `on_record` for every record available now (waits up to `timeout_ms` when there
  // is none). Returns the number of records consumed.
  using RecordFn = std::function<void(std::span<const uint8_t>)>;
  StatusOr<size_t> Poll(int timeout_ms, const RecordFn& on_record);

  // Records the ring buffer could not take so far, per possible CPU (cumulative).
  StatusOr<std::vector<uint64_t>> LostPerCpu() const;

  // HTTP records the ring buffer could not take so far (also in LostPerCpu), all CPUs.
  StatusOr<uint64_t> HttpDropped() const;

  // Names of the attached tracepoints (for the summary and --help).
  const std::vector<std::string>& attached() const { return attached_; }

  // Why HTTP capture was asked for but is off ("" when it is on or was not asked for): the
  // rest is recorded all the same.
  const std::string& http_unavailable() const { return http_unavailable_; }

  // Why page cache events were asked for but are off ("" when on or not asked for).
  const std::string& page_cache_unavailable() const { return page_cache_unavailable_; }

  struct State;  // libbpf handles (public only so that libbpf's C callback can reach it)

 private:
  BpfProbes() = default;
  std::unique_ptr<State> state_;
  std::vector<std::string> attached_;
  std::string http_unavailable_;
  std::string page_cache_unavailable_;
};

}  // namespace causeway::record
