// Kernel state model and execution-graph builder (seed 004 Alg. 1, Trace Compass labels).
//
// Fed one KernelEvent at a time in timestamp order, it keeps per host the task current on
// each CPU, each CPU's interrupt-context stack (hard IRQ, softirq, hrtimer, IPI) and the
// unmatched TCP segments, and writes every thread's state changes and the links between
// threads into an ExecutionGraph:
//   - sched_switch: prev becomes PREEMPTED (prev_state is TASK_RUNNING) or BLOCKED, or dies
//     if it exited; next becomes RUNNING.
//   - a wake-up of a BLOCKED thread ends its wait. From a task, the wait stays BLOCKED and
//     gets a wake-up link from the waker; from interrupt context it is relabelled by the
//     context (TIMER, NETWORK, BLOCK_DEVICE, INTERRUPTED, IPI) and, for NETWORK, linked to
//     the sender of the TCP segment received in that context. A wake-up of a runnable
//     thread changes nothing.
//   - a wait ended by a block completion whose request was seen entering the block layer
//     (matched by device and sector, block_requests.h) is split: BLOCKED before the request
//     was queued (BLOCK_QUEUE "blkio throttle" when the throttle held it), BLOCK_QUEUE
//     while queued, BLOCK_DEVICE while on the device. A completion in task context (a loop
//     or dm worker) followed by a wake-up from that task counts the same, without a link.
//   - every sched_switch also records the CPU's new task in the graph's CPU timelines; a
//     CFS throttle event labels the thread's runnable wait "throttled by cgroup quota (…)".
//     the sender of the TCP segment received in that context. A segment received by a
//     task (a threaded IRQ handler, a NAPI thread), or in an interrupt only perf's flags
//     name, is followed the same way when that context wakes the waiter right after. A
//     wake-up of a runnable thread changes nothing.
//   - the waker in task context is the CPU's current task as the CPU's next sched_switch
//     confirms it (its prev): a thread whose switch-out the trace lost stays "current" in
//     the model, so wake-ups are re-credited to prev at that switch.
//   - fork links the child's first vertex to the parent (the child is runnable from
//     there: PREEMPTED "new thread"); statedump names threads and gives
//     the state of threads not seen yet.
// Invariants that keep the graph honest: a thread first seen blocked is blocked since the
// host's first event; a wait that ends without a seen wake-up (lost events, a wake-up the
// trace does not record) becomes UNKNOWN; lost events make the CPU's current task UNKNOWN
// and forget the CPU's context; the model never invents a link it did not see.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "graph/execution_graph.h"
#include "kernel/block_requests.h"
#include "kernel/kernel_event.h"

namespace causeway::kernel {

// What the model saw and what it had to repair; shown by `causeway threads --stats`.
struct ModelCounters {
  uint64_t events = 0;  // events that reached the model (kNone excluded)
  uint64_t switches = 0;
  uint64_t wakeups = 0;
  uint64_t wakeups_of_runnable = 0;     // target already runnable or running: no change
  uint64_t wakeups_unknown_source = 0;  // task context, but the CPU's task is unknown
  uint64_t forks = 0;
  uint64_t exits = 0;
  uint64_t packets_sent = 0;
  uint64_t packets_matched = 0;
  uint64_t packets_expired = 0;  // sends never received within the expiry delay
  uint64_t lost_records = 0;
  uint64_t lost_events = 0;
  uint64_t missing_wakeups = 0;     // blocked thread scheduled in without a wake-up
  uint64_t missing_switch_ins = 0;  // thread switched out while not known to run
  uint64_t interrupt_mismatches = 0;
  uint64_t inferred_switches = 0;  // perf's current task contradicted the model's
  // Waiting threads made UNKNOWN for a window of lost events (a thread counted once per
  // window): nothing was seen of the lossy CPU, where a queued thread could have run and any
  // sleeper's waker could have woken it.
  uint64_t lost_window_waits = 0;
  // Wake-ups first credited to a CPU's current task, then to the task the CPU's next
  // sched_switch named as prev (the first one's switch-out was missing).
  uint64_t wakers_corrected = 0;
  // States left without their qualifier: more distinct irq / disk / vector names than the
  // graph's qualifier ids (ExecutionGraph::kMaxQualifiers).
  uint64_t unnamed_qualifiers = 0;
  BlockRequestCounters block;      // block requests matched from queue to completion
  uint64_t block_waits_split = 0;  // waits split into queue and device time
  uint64_t cpu_throttles = 0;      // switch-outs by CFS bandwidth control (cgroup CPU quota)
};

// The kernel's name of softirq vector `vec` ("NET_RX"), "" for a vector it does not know.
std::string_view SoftirqVectorName(int64_t vec);

class KernelModel {
 public:
  explicit KernelModel(graph::ExecutionGraph* graph);

  // Declares a host; KernelEvent::host is the returned id.
  uint32_t AddHost(std::string name);
  void Process(const KernelEvent& e);
  // Closes the analysis at `end` (the last timestamp seen when 0).
  void Finish(int64_t end = 0);
  const ModelCounters& counters() const { return counters_; }
  // Worker of (host, tid) alive at the end of the analysis, or kNoWorker.
  graph::WorkerId FindThread(uint32_t host, int32_t tid) const;
  // The tid the model holds current on a CPU (0: idle), -1 when unknown (before its first
  // switch, after lost events); for readers of the event stream (system calls carry no tid).
  int32_t CurrentTask(uint32_t host, int32_t cpu) const;

 private:
  static constexpr int32_t kUnknownTid = -1;
  static constexpr int32_t kFlaggedInterrupt = -2;
  static constexpr int kMaxDepth = 16;
  enum class Ctx : uint8_t { kHardirq, kSoftirq, kTimer, kIpi };
  // The block request a context (or a task) completed last.
  struct BlockDone {
    int64_t dev = 0;
    graph::StringId qual = 0;  // "disk M:m"
    bool matched = false;      // times are known
    BlockRequestTimes times;
  };
  struct Frame {
    Ctx type = Ctx::kHardirq;
    int32_t softirq_vector = 0;  // kSoftirq
    graph::StringId qual = 0;
    bool block = false;  // a block request completed in this context: block_done
    BlockDone block_done;
    bool packet = false;  // a matched TCP segment was received in this context
    graph::WorkerId pkt_from = graph::kNoWorker;
    uint32_t pkt_vertex = 0;
    int64_t pkt_ts = 0;
  };
  // A matched TCP segment received outside any traced interrupt context: in the current
  // task (a threaded IRQ handler, a NAPI thread) or, for perf, in an interrupt its flags
  // name. A wake-up in that same context follows the segment to its sender.
  struct LooseReceive {
    bool valid = false;
    bool in_irq_flags = false;   // perf's flags said interrupt context
    int32_t task = kUnknownTid;  // the task current when it was received (task context)
    graph::WorkerId from = graph::kNoWorker;
    uint32_t from_vertex = 0;
  };
  // A wake-up credited to the CPU's current task, which the next sched_switch on the CPU
  // confirms (prev is that task) or corrects: a thread whose switch-out is missing from the
  // trace stays "current" in the model while another thread runs.
  struct PendingWake {
    graph::WorkerId target;
    uint32_t target_vertex;  // the target's vertex holding the in-link
    int64_t ts;
  };
  struct Cpu {
    int32_t current = kUnknownTid;
    bool started = false;
    int64_t first_ts = 0;
    int64_t last_ts = 0;  // of the CPU's previous event
    int depth = 0;
    // A block request completed in task context by `block_task` since its switch-in, or
    // in an interrupt known only by perf's context flags (kFlaggedInterrupt) and not left.
    int32_t block_task = kUnknownTid;
    BlockDone block_done;
    Frame stack[kMaxDepth];
    LooseReceive loose_rx;
    std::vector<PendingWake> pending_wakes;  // since the CPU's last sched_switch
    bool pending_unlinked = false;           // one of them is credited to nobody yet
    Frame* top() { return depth > 0 ? &stack[std::min(depth, kMaxDepth) - 1] : nullptr; }
  };
  struct Host {
    std::vector<Cpu> cpus;
    int64_t first_ts = -1;
    std::vector<graph::WorkerId> by_tid;  // tids below kDenseTids
    std::unordered_map<int32_t, graph::WorkerId> by_tid_sparse;
    std::unordered_map<int64_t, graph::StringId> irq_quals;
    std::unordered_map<int64_t, graph::StringId> dev_quals;
    std::unordered_map<int64_t, graph::StringId> throttle_quals;
  };
  struct PacketKey {
    uint64_t seq, ack_seq;
    uint32_t flags;
    bool operator==(const PacketKey& o) const {
      return seq == o.seq && ack_seq == o.ack_seq && flags == o.flags;
    }
  };
  struct PacketKeyHash {
    size_t operator()(const PacketKey& k) const {
      return (k.seq * 0x9E3779B97F4A7C15ull) ^ (k.ack_seq * 0xC2B2AE3D27D4EB4Full) ^ k.flags;
    }
  };
  struct PacketSource {
    graph::WorkerId worker = graph::kNoWorker;
    uint32_t vertex = 0;
    int64_t ts = 0;
  };
  struct Cause {
    graph::State state = graph::State::kBlocked;
    graph::StringId qual = 0;
    graph::WorkerId from = graph::kNoWorker;
    uint32_t from_vertex = 0;
    graph::LinkKind kind = graph::LinkKind::kWakeup;
    const BlockDone* block = nullptr;  // the block completion that ended the wait
    bool pending = false;              // credited to the CPU's current task until its next switch
  };

  Cpu* CpuOf(Host& h, int32_t cpu);
  graph::WorkerId Find(const Host& h, int32_t tid) const;
  graph::WorkerId NewThread(uint32_t host, int32_t tid, int64_t ts, graph::State s,
                            std::string_view name, graph::StringId q = 0);
  // The worker of the task running on a CPU, created when first seen.
  graph::WorkerId RunningTask(uint32_t host, Cpu* c, int32_t tid, int64_t ts);
  // Names w from one of the event's names if it has none yet.
  void Name(graph::WorkerId w, const KernelEvent& e, NameField which);
  int64_t FirstSeen(const Host& h, int32_t tid, int64_t ts) const;

  void OnSwitch(const KernelEvent& e, Cpu* c);
  void InferSwitch(const KernelEvent& e, Cpu* c);
  void OnWakeup(const KernelEvent& e, Cpu* c);
  void OnFork(const KernelEvent& e, Cpu* c);
  void OnStatedump(const KernelEvent& e);
  void OnPacketSend(const KernelEvent& e, Cpu* c);
  void OnPacketRecv(const KernelEvent& e, Cpu* c);
  void OnLost(const KernelEvent& e, Cpu* c);
  void OnBlockComplete(const KernelEvent& e, Cpu* c);
  graph::StringId DevQual(Host& h, int64_t dev, bool throttle);
  // Relabels t's open wait, ended at `now` by the completion `b` of a matched request, as
  // its parts before the request was queued, queued, and on the device.
  void SplitBlockWait(uint32_t host, graph::WorkerId t, int64_t now, const BlockDone& b);
  void OnCpuThrottle(const KernelEvent& e);
  // The worker now running on (host, cpu) for the CPU timelines: kIdleTask for tid 0.
  void RecordCpuTask(const KernelEvent& e, int32_t tid, graph::WorkerId w);
  // The waits that a window of lost events on CPU `cpu` of `host`, [from, until], could have
  // changed unseen become UNKNOWN until `until`; RestoreLostWindows gives back those no
  // event touched since.
  void MarkLostWindow(uint32_t host, int32_t cpu, int64_t from, int64_t until);
  void RestoreLostWindows(int64_t now);
  void Push(Cpu* c, Ctx type, graph::StringId q, int32_t softirq_vector = 0);
  void Pop(Cpu* c, Ctx type);
  Cause WakeCause(const KernelEvent& e, Cpu* c, graph::WorkerId target);
  // The wait of `target` ends in the context that received a segment from `from`.
  Cause NetworkCause(graph::WorkerId from, uint32_t from_vertex, graph::WorkerId target,
                     graph::StringId qual);
  graph::StringId ReceiverQual(graph::WorkerId receiver);
  // The CPU's next sched_switch names `prev` as the task that ran: the wake-ups credited
  // since the last switch to another task are moved to prev.
  void ResolvePendingWakes(const KernelEvent& e, Cpu* c, int32_t prev);
  graph::StringId IrqQual(Host& h, const KernelEvent& e);
  graph::StringId SoftirqQual(int64_t vec);
  void ExpirePackets(int64_t now);

  graph::ExecutionGraph* g_;
  std::vector<Host> hosts_;
  static constexpr uint8_t kExiting = 1;            // sched_process_exit seen
  static constexpr uint8_t kWokenWhileRunning = 2;  // a wake-up raced its switch-out
  static constexpr uint8_t kNamed = 4;              // the worker has a name
  static constexpr uint8_t kThrottlePending = 8;    // throttled before its switch-out
  std::vector<uint8_t> flags_;                      // per worker
  // The throttling qualifier of workers flagged kThrottlePending, and one per cgroup.
  std::unordered_map<graph::WorkerId, graph::StringId> pending_throttle_;
  std::unordered_map<std::string, graph::StringId> throttle_quals_;
  // Per worker: the CPU it was last switched out on, -1 when not known (never switched out,
  // or woken since: the run queue it went to is not in the trace).
  std::vector<int32_t> last_cpu_;
  // Waits made UNKNOWN by a lost-event window: the state to give back when it ends.
  struct LostWindowWait {
    int64_t until = 0;
    graph::State state = graph::State::kBlocked;
    graph::StringId qual = 0;
  };
  absl::flat_hash_map<graph::WorkerId, LostWindowWait> lost_window_waits_;
  int64_t next_lost_window_end_ = INT64_MAX;  // the earliest `until` of lost_window_waits_
  // Segments in flight: sent and received within microseconds, so the map stays small while
  // a million go through it. Open addressing in one array: a node allocated and freed per
  // segment (std::unordered_map) is a visible cost at that rate, and reusing the nodes
  // still leaves a cache miss per chain.
  absl::flat_hash_map<PacketKey, PacketSource, PacketKeyHash> packets_;
  int64_t next_expiry_sweep_ = INT64_MIN;  // trace time of the next ExpirePackets sweep
  int64_t last_ts_ = 0;
  BlockRequests block_requests_;
  ModelCounters counters_;
  graph::StringId q_lost_, q_no_wakeup_, q_no_switch_in_, q_unknown_waker_, q_idle_, q_hardirq_,
      q_softirq_, q_hrtimer_, q_no_history_, q_inconsistent_, q_new_, q_before_io_, q_lost_window_,
      q_end_of_trace_;
  graph::StringId softirq_quals_[10] = {};
  // The last "received by <thread>" qualifier interned, and its thread.
  graph::WorkerId rx_qual_worker_ = graph::kNoWorker;
  graph::StringId rx_qual_ = 0;
};

}  // namespace causeway::kernel
