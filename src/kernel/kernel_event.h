// A kernel event reduced to what the execution graph needs, independent of the trace
// format: the CTF adapter (kernel_layout.h) produces it from LTTng or perf layouts, the
// scenario tests write it directly.
#pragma once

#include <cstdint>
#include <string_view>

namespace causeway::kernel {

// What each kind carries besides kind, host, cpu and ts (fields and accessors of
// KernelEvent).
enum class Kind : uint8_t {
  kNone,
  kSwitch,     // tid = prev, next_tid, prev_state, Name() = prev_comm, NextComm()
  kWakeup,     // tid = target (sched_waking, or sched_wakeup when there is no waking)
  kWakeupNew,  // tid = new task
  kFork,       // tid = parent, child_tid, Name() = child comm, pid = child's process
  kExec,       // tid, Name() = filename
  kExit,       // tid (it runs until its last sched_switch)
  kStatedump,  // tid, Name(), statedump_status, pid
  kIrqEntry,   // irq, Name()
  kIrqExit,
  kSoftirqEntry,  // softirq_vector
  kSoftirqExit,
  kTimerEntry,  // hrtimer expiry
  kTimerExit,
  kIpiEntry,  // Name() = vector name
  kIpiExit,
  kPacketSend,  // seq, ack_seq, tcp_flags
  kPacketRecv,
  kBlockComplete,  // dev, sector
  kLost,           // lost_count, between ts and end_ts
  // A block request entering the block layer (block_bio_queue, block_rq_insert): dev,
  // sector, tid = the issuing task, block_reason.
  kBlockQueue,
  kBlockIssue,   // handed to the device driver (block_rq_issue): dev, sector, tid
  kCpuThrottle,  // tid switched out (or about to be) by CFS bandwidth control;
                 // Name() = the cgroup whose quota ran out
  // The CPU's current task (current_tid when the trace says) enters or leaves a system
  // call: syscall_id() (-1 when the trace names the call only), Name() = the call's name
  // ("" when unknown), syscall_ret (kSyscallExit). Read only when asked for
  // (KernelLayoutOptions::syscalls); the model ignores them.
  kSyscallEntry,
  kSyscallExit,
};

// Why a request waited before reaching the block layer, when the trace says (kBlockQueue).
inline constexpr uint32_t kBlockThrottled = 1;  // held by the blkio throttle

// Interrupt context flags as perf's common_flags carries them (trace_entry.flags).
inline constexpr uint32_t kFlagHardirq = 0x08;
inline constexpr uint32_t kFlagSoftirq = 0x10;

// The statuses of LTTng's lttng_statedump_process_state that the model tells apart (6 is
// running).
inline constexpr int64_t kStatedumpWaitCpu = 2;
inline constexpr int64_t kStatedumpWait = 5;

// The names an event may carry (KernelEvent::Name() and NextComm()).
enum class NameField : uint8_t { kName, kNextComm };

class KernelLayout;

struct KernelEvent {
  Kind kind = Kind::kNone;
  uint32_t host = 0;
  int32_t cpu = -1;
  int32_t tid = -1;  // the task the event is about (see Kind)
  int64_t ts = 0;

  // The second task: the one switched in (kSwitch), the new thread (kFork).
  int32_t next_tid() const { return second_tid_; }
  int32_t child_tid() const { return second_tid_; }
  void set_next_tid(int32_t t) { second_tid_ = t; }
  void set_child_tid(int32_t t) { second_tid_ = t; }

  // The number the kind carries:
  int64_t prev_state() const { return number_; }        // kSwitch: TASK_* state of prev
  int64_t statedump_status() const { return number_; }  // kStatedump: kStatedumpWait, …
  int64_t irq() const { return number_; }               // kIrqEntry
  int64_t softirq_vector() const { return number_; }    // kSoftirqEntry, kSoftirqExit
  int64_t dev() const { return number_; }               // kBlock*: the kernel's dev_t
  int64_t lost_count() const { return number_; }        // kLost: events lost on this CPU
  int64_t syscall_id() const { return number_; }        // kSyscallEntry, kSyscallExit
  void set_prev_state(int64_t v) { number_ = v; }
  void set_statedump_status(int64_t v) { number_ = v; }
  void set_irq(int64_t v) { number_ = v; }
  void set_softirq_vector(int64_t v) { number_ = v; }
  void set_dev(int64_t v) { number_ = v; }
  void set_lost_count(int64_t v) { number_ = v; }
  void set_syscall_id(int64_t v) { number_ = v; }

  // The task running on the CPU when the event was emitted, when the trace says so
  // (perf's common_pid/perf_tid, an LTTng tid context); -1 otherwise.
  int32_t current_tid = -1;
  uint32_t context_flags = 0;  // kFlagHardirq / kFlagSoftirq, when the trace has them
  bool has_context_flags = false;
  // The process (thread group) of the new thread (kFork) or of tid (kStatedump), when the
  // trace says so (LTTng and the recorder; perf's fork fields are tids); -1 otherwise.
  int32_t pid = -1;

  // The kind's name (see Kind: a comm, a filename, an irq or vector name) and the comm of
  // the task switched in (kSwitch). Set directly, or decoded on demand by the CTF adapter
  // (most events need no name once their thread has one).
  std::string_view Name() const { return resolve_ ? resolve_(*this, NameField::kName) : name_; }
  std::string_view NextComm() const {
    return resolve_ ? resolve_(*this, NameField::kNextComm) : next_comm_;
  }
  void set_name(std::string_view n) { name_ = n; }
  void set_next_comm(std::string_view n) { next_comm_ = n; }

  uint64_t seq = 0;  // kPacketSend, kPacketRecv: the TCP segment
  uint64_t ack_seq = 0;
  uint32_t tcp_flags = 0;
  int64_t end_ts = 0;         // kLost
  uint64_t sector = 0;        // kBlock*: the request's first sector
  int64_t syscall_ret = 0;    // kSyscallExit: the value returned
  uint32_t block_reason = 0;  // kBlockQueue: kBlockThrottled, or 0

 private:
  friend class KernelLayout;
  // One slot per role, shared by the kinds through the accessors above, so that the CTF
  // adapter fills an event with a few loads and no switch on its kind.
  int32_t second_tid_ = -1;
  int64_t number_ = 0;
  std::string_view name_;
  std::string_view next_comm_;
  // The adapter's decoder of the names, and where it finds them (its ctf::Event and the
  // event class's layout), opaque here.
  std::string_view (*resolve_)(const KernelEvent& e, NameField which) = nullptr;
  const void* name_event_ = nullptr;
  const void* name_layout_ = nullptr;
};

}  // namespace causeway::kernel
