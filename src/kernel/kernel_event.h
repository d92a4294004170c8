// A kernel event reduced to what the execution graph needs, independent of the trace
// format: the CTF adapter (kernel_layout.h) produces it from LTTng or perf layouts, the
// scenario tests write it directly.
#pragma once

#include <cstdint>
#include <string_view>

namespace causeway::kernel {

enum class Kind : uint8_t {
  kNone,
  kSwitch,     // tid = prev, tid2 = next, value = prev_state, name = prev_comm, name2 = next_comm
  kWakeup,     // tid = target (sched_waking, or sched_wakeup when there is no waking)
  kWakeupNew,  // tid = new task
  kFork,       // tid = parent, tid2 = child, name = child comm, pid = child's process
  kExec,       // tid, name = filename
  kExit,       // tid (it runs until its last sched_switch)
  kStatedump,  // tid, name, value = LTTng status (5 = wait, 2 = wait for cpu, 6 = run), pid
  kIrqEntry,   // value = irq, name
  kIrqExit,
  kSoftirqEntry,  // value = vector
  kSoftirqExit,
  kTimerEntry,  // hrtimer expiry
  kTimerExit,
  kIpiEntry,  // name = vector name
  kIpiExit,
  kPacketSend,  // seq, ack_seq, tcp_flags
  kPacketRecv,
  kBlockComplete,  // value = dev
  kLost,           // value = events lost on this CPU between ts and end_ts
};

// Interrupt context flags as perf's common_flags carries them (trace_entry.flags).
inline constexpr uint32_t kFlagHardirq = 0x08;
inline constexpr uint32_t kFlagSoftirq = 0x10;

struct KernelEvent {
  Kind kind = Kind::kNone;
  uint32_t host = 0;
  int32_t cpu = -1;
  int64_t ts = 0;
  int32_t tid = -1;
  int32_t tid2 = -1;
  int64_t value = 0;
  // The task running on the CPU when the event was emitted, when the trace says so
  // (perf's common_pid/perf_tid, an LTTng tid context); -1 otherwise.
  int32_t current_tid = -1;
  uint32_t context_flags = 0;  // kFlagHardirq / kFlagSoftirq, when the trace has them
  bool has_context_flags = false;
  // The process (thread group) of the new thread (kFork) or of tid (kStatedump), when the
  // trace says so (LTTng and the recorder; perf's fork fields are tids); -1 otherwise.
  int32_t pid = -1;
  // Names (comm, filename, irq name): set directly, or decoded on demand through `resolve`
  // (the CTF adapter does so: most events need no name once the thread has one). Read them
  // with Name() and Name2().
  std::string_view name;
  std::string_view name2;
  std::string_view (*resolve)(const KernelEvent& e, int which) = nullptr;
  const void* source[2] = {};  // opaque to the model: where `resolve` finds the names

  std::string_view Name() const { return resolve ? resolve(*this, 0) : name; }
  std::string_view Name2() const { return resolve ? resolve(*this, 1) : name2; }
  uint64_t seq = 0;
  uint64_t ack_seq = 0;
  uint32_t tcp_flags = 0;
  int64_t end_ts = 0;
};

}  // namespace causeway::kernel
