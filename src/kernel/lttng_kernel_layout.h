// The LTTng kernel events that `causeway record` writes and the kernel model reads:
// lttng-modules' event names, fields and field order, with comms as 16-byte character arrays
// and the TCP header's fields lifted into the net events. Declared once, here, for every
// writer of such traces: the recorder (record/kernel_ctf_writer.cc), the tests' trace
// builders (tests/support/lttng_kernel_trace.h) and the benchmarks' trace generator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctf/writer/ctf_writer.h"

namespace causeway::kernel {

// In the recorder's order of declaration, which gives the event class ids.
enum class LttngEvent : uint8_t {
  kSchedSwitch,
  kSchedWaking,
  kSchedWakeupNew,
  kSchedProcessFork,
  kSchedProcessExec,
  kSchedProcessExit,
  kStatedumpProcessState,
  kIrqHandlerEntry,
  kIrqHandlerExit,
  kSoftirqEntry,
  kSoftirqExit,
  kHrtimerExpireEntry,
  kHrtimerExpireExit,
  kBlockRqIssue,
  kBlockRqComplete,
  kNetDevQueue,
  kNetifReceiveSkb,
  kSyscallEntry,  // declared only when asked for (`causeway record --syscalls`)
  kSyscallExit,
  // Not an LTTng event: an HTTP/1.x message a thread read from or wrote to a TCP socket,
  // with its first line and trace context headers (record/README.md).
  kHttpMessage,
  // Block requests entering the block layer; block_bio_queue's `throttled` is ours (1: the
  // blkio throttle held the bio until then).
  kBlockRqInsert,
  kBlockBioQueue,
  // Not an LTTng event: a task switched out by CFS bandwidth control, the cgroup whose CPU
  // quota ran out (its path in the cpu controller's hierarchy) and that cgroup's id.
  kSchedCfsThrottle,
  // The kernel's filemap tracepoints (the page cache), with the task and the file's
  // identity: pages added (a miss, or a write's new pages: `write` 1), removed, asked for by
  // a read (`index` to `last_index`), asked for by a page fault (record/README.md).
  kMmFilemapAddToPageCache,
  kMmFilemapDeleteFromPageCache,
  kMmFilemapGetPages,
  kMmFilemapFault,
};
inline constexpr int kLttngEventCount = static_cast<int>(LttngEvent::kMmFilemapFault) + 1;

struct LttngEventClass {
  std::string name;
  std::vector<ctf::FieldSpec> fields;
};

// The name and fields of `e`.
const LttngEventClass& LttngDeclaration(LttngEvent e);

// Declares `e` alone on `w`, for a trace that mixes it with events of another layout.
StatusOr<uint32_t> DeclareLttngEvent(ctf::CtfWriter& w, LttngEvent e);

// The event class id of each declared event.
class LttngEventIds {
 public:
  uint32_t operator[](LttngEvent e) const { return ids_[static_cast<int>(e)]; }
  uint32_t& operator[](LttngEvent e) { return ids_[static_cast<int>(e)]; }

 private:
  uint32_t ids_[kLttngEventCount] = {};
};

// Declares every event on `w` in LttngEvent's order, syscall_entry and syscall_exit only
// with `syscalls` (their ids are then 0).
StatusOr<LttngEventIds> DeclareLttngKernelEvents(ctf::CtfWriter& w, bool syscalls);

}  // namespace causeway::kernel
