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
  // Wake-ups first credited to a CPU's current task, then to the task the CPU's next
  // sched_switch named as prev (the first one's switch-out was missing).
  uint64_t wakers_corrected = 0;
  // States left without their qualifier: more distinct irq / disk / vector names than the
  // graph's qualifier ids (ExecutionGraph::kMaxQualifiers).
  uint64_t unnamed_qualifiers = 0;
};

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

 private:
  static constexpr int32_t kUnknownTid = -1;
  static constexpr int kMaxDepth = 16;
  enum class Ctx : uint8_t { kHardirq, kSoftirq, kTimer, kIpi };
  struct Frame {
    Ctx type = Ctx::kHardirq;
    int32_t softirq_vector = 0;  // kSoftirq
    graph::StringId qual = 0;
    graph::StringId block_qual = 0;  // a block request completed in this context
    bool block = false;
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
    bool pending = false;  // credited to the CPU's current task until its next switch
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
  std::vector<uint8_t> flags_;                      // per worker
  // Segments in flight: sent and received within microseconds, so the map stays small while
  // a million go through it. Open addressing in one array: a node allocated and freed per
  // segment (std::unordered_map) is a visible cost at that rate, and reusing the nodes
  // still leaves a cache miss per chain.
  absl::flat_hash_map<PacketKey, PacketSource, PacketKeyHash> packets_;
  int64_t next_expiry_sweep_ = INT64_MIN;  // trace time of the next ExpirePackets sweep
  int64_t last_ts_ = 0;
  ModelCounters counters_;
  graph::StringId q_lost_, q_no_wakeup_, q_no_switch_in_, q_unknown_waker_, q_idle_, q_hardirq_,
      q_softirq_, q_hrtimer_, q_no_history_, q_inconsistent_, q_new_, q_end_of_trace_;
  graph::StringId softirq_quals_[10] = {};
  // The last "received by <thread>" qualifier interned, and its thread.
  graph::WorkerId rx_qual_worker_ = graph::kNoWorker;
  graph::StringId rx_qual_ = 0;
};

}  // namespace causeway::kernel
