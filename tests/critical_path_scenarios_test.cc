// Scenario tests of the kernel model, the execution graph and the critical path: small
// event scripts in, each thread's timeline and critical path out (tests/support/
// kernel_scenario.h describes the script language).
#include <gtest/gtest.h>

#include "support/kernel_scenario.h"

namespace causeway::testing {
namespace {

TEST(CriticalPathScenario, LockHandOffFollowsTheWaker) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 2:b
    10 cpu0 switch 1 S -> 0      # 1 blocks on a lock 2 holds
    50 cpu1 waking 1             # 2 releases it
    55 cpu0 switch 0 -> 1
    80 cpu1 switch 2 S -> 0
    end 100
  )");
  EXPECT_EQ(s.Timeline(1), "0 RUNNING | 10 BLOCKED | 50 PREEMPTED<-2 | 55 RUNNING");
  EXPECT_EQ(s.Path(1), "1@0-10 RUNNING | 2@10-50 RUNNING | 1@50-55 PREEMPTED | 1@55-100 RUNNING");
  EXPECT_EQ(s.Links(1), "2->1@50 wakeup");
  EXPECT_EQ(s.Path(2), "2@0-80 RUNNING | 2@80-100 BLOCKED(until end of trace)");
}

TEST(CriticalPathScenario, ChainOfThreeThreadsResolvesRecursively) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    0 cpu2 switch 0 -> 3
    10 cpu0 switch 1 S -> 0
    20 cpu1 switch 2 S -> 0
    50 cpu2 waking 2
    52 cpu1 switch 0 -> 2
    60 cpu1 waking 1
    61 cpu0 switch 0 -> 1
    end 100
  )");
  EXPECT_EQ(s.Path(1),
            "1@0-10 RUNNING | 2@10-20 RUNNING | 3@20-50 RUNNING | 2@50-52 PREEMPTED | "
            "2@52-60 RUNNING | 1@60-61 PREEMPTED | 1@61-100 RUNNING");
  EXPECT_EQ(s.Links(1), "3->2@50 wakeup | 2->1@60 wakeup");
  // Bounded by a range: only what held 1 back between 20 and 60.
  EXPECT_EQ(s.Path(1, 20, 60), "3@20-50 RUNNING | 2@50-52 PREEMPTED | 2@52-60 RUNNING");
  // A range that ends inside a wait: the wait is resolved by the signal that ends it later.
  EXPECT_EQ(s.Path(1, 0, 40), "1@0-10 RUNNING | 2@10-20 RUNNING | 3@20-40 RUNNING");
  EXPECT_EQ(s.Links(1, 0, 40), "");
}

TEST(CriticalPathScenario, WaitsLongerThanFourSecondsResolveExactly) {
  // The chain above in seconds: 1 waits 5 s (longer than the 32-bit sums PathStateTimes
  // stores per wait; the scenario helper checks its times against this path).
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    0 cpu2 switch 0 -> 3
    1000000000 cpu0 switch 1 S -> 0
    2000000000 cpu1 switch 2 S -> 0
    5000000000 cpu2 waking 2
    5200000000 cpu1 switch 0 -> 2
    6000000000 cpu1 waking 1
    6100000000 cpu0 switch 0 -> 1
    9000000000 cpu0 switch 1 S -> 0
    end 10000000000
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-1000000000 RUNNING | 2@1000000000-2000000000 RUNNING | "
      "3@2000000000-5000000000 RUNNING | 2@5000000000-5200000000 PREEMPTED | "
      "2@5200000000-6000000000 RUNNING | 1@6000000000-6100000000 PREEMPTED | "
      "1@6100000000-9000000000 RUNNING | 1@9000000000-10000000000 BLOCKED(until end of trace)");
  // Ends after the long wait, before the thread's last vertex: its sums are read back.
  EXPECT_EQ(s.Path(1, 0, 8000000000),
            "1@0-1000000000 RUNNING | 2@1000000000-2000000000 RUNNING | "
            "3@2000000000-5000000000 RUNNING | 2@5000000000-5200000000 PREEMPTED | "
            "2@5200000000-6000000000 RUNNING | 1@6000000000-6100000000 PREEMPTED | "
            "1@6100000000-8000000000 RUNNING");
  EXPECT_EQ(s.Path(1, 3000000000, 5500000000),
            "3@3000000000-5000000000 RUNNING | 2@5000000000-5200000000 PREEMPTED | "
            "2@5200000000-5500000000 RUNNING");
}

TEST(CriticalPathScenario, TimerWakeUpIsLabelledTimer) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    10 cpu0 switch 1 S -> 0
    10 cpu1 switch 2 S -> 0
    40 cpu0 hrtimer_entry
    40 cpu0 waking 1
    41 cpu0 hrtimer_exit
    42 cpu0 switch 0 -> 1
    60 cpu1 softirq_entry 1
    60 cpu1 waking 2
    61 cpu1 softirq_exit 1
    end 100
  )");
  EXPECT_EQ(s.Path(1),
            "1@0-10 RUNNING | 1@10-40 TIMER(hrtimer) | 1@40-42 PREEMPTED | 1@42-100 RUNNING");
  EXPECT_EQ(s.Path(2), "2@0-10 RUNNING | 2@10-60 TIMER(softirq TIMER) | 2@60-100 PREEMPTED");
  EXPECT_EQ(s.Links(1), "");
}

TEST(CriticalPathScenario, DiskCompletionWakeUpIsLabelledBlockDevice) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 D -> 0
    70 cpu0 irq_entry 14 ahci
    70 cpu0 block_complete 8388608
    71 cpu0 waking 1
    72 cpu0 irq_exit 14
    73 cpu0 switch 0 -> 1
    end 100
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 1@10-71 BLOCK_DEVICE(disk 8:0) | 1@71-73 PREEMPTED | 1@73-100 RUNNING");
}

TEST(CriticalPathScenario, NetworkWakeUpOnLoopbackFollowsTheSender) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:client
    0 cpu1 switch 0 -> 2:server
    5 cpu1 switch 2 S -> 0       # the server waits in recv()
    30 cpu0 send 100 1 0x18      # the client sends a request
    31 cpu1 softirq_entry 3
    31 cpu1 recv 100 1 0x18
    32 cpu1 waking 2
    33 cpu1 softirq_exit 3
    34 cpu1 switch 0 -> 2
    end 100
  )");
  EXPECT_EQ(s.Timeline(2), "0 RUNNING | 5 NETWORK(softirq NET_RX) | 32 PREEMPTED<=1 | 34 RUNNING");
  EXPECT_EQ(
      s.Path(2),
      "2@0-5 RUNNING | 1@5-30 RUNNING | 2@30-32 NETWORK(softirq NET_RX) | 2@32-34 PREEMPTED | "
      "2@34-100 RUNNING");
  EXPECT_EQ(s.Links(2), "1->2@32 network");
  EXPECT_EQ(s.counters().packets_matched, 1u);
}

TEST(CriticalPathScenario, SegmentsInFlightLongerThanTheExpiryAreNotMatched) {
  // The model forgets a send after 10 s of trace time (its receiver is not traced): a
  // segment received later with the same seq/ack/flags is another one, never linked.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:client
    0 cpu1 switch 0 -> 2:server
    5 cpu1 switch 2 S -> 0
    10 cpu0 send 100 1 0x18
    11000000000 cpu0 send 200 1 0x18      # 11 s later: a sweep forgets the first
    11000000001 cpu1 softirq_entry 3
    11000000001 cpu1 recv 100 1 0x18
    11000000001 cpu1 recv 200 1 0x18
    11000000002 cpu1 waking 2
    11000000003 cpu1 softirq_exit 3
    11000000004 cpu1 switch 0 -> 2
    22000000000 cpu0 send 300 1 0x18
    33000000000 cpu0 softirq_entry 3
    33000000000 cpu0 recv 300 1 0x18    # 11 s in flight, no send since: not matched either
    33000000000 cpu0 softirq_exit 3
    end 33000000001
  )");
  EXPECT_EQ(s.counters().packets_sent, 3u);
  EXPECT_EQ(s.counters().packets_matched, 1u);
  EXPECT_EQ(s.counters().packets_expired, 2u);
  EXPECT_EQ(s.Links(2), "1->2@11000000002 network");
}

TEST(CriticalPathScenario, EachSegmentMatchesItsOwnLastSend) {
  // The in-flight map reuses the nodes of received segments: each receive still finds the
  // send of its own segment, and a segment sent twice (a retransmission) links from the
  // second sender (400 and 500, in flight together, leave two spare nodes: the second
  // send of 300 takes one while 300 is already in the map).
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 2:server
    1 cpu1 switch 2 S -> 0
    10 cpu0 send 100 1 0x18
    20 cpu1 softirq_entry 3
    20 cpu1 recv 100 1 0x18
    21 cpu1 waking 2
    22 cpu1 softirq_exit 3
    23 cpu1 switch 0 -> 2
    24 cpu1 switch 2 S -> 0
    25 cpu0 switch 1 S -> 3:b
    30 cpu0 send 200 1 0x18
    40 cpu1 softirq_entry 3
    40 cpu1 recv 200 1 0x18
    41 cpu1 waking 2
    42 cpu1 softirq_exit 3
    43 cpu1 switch 0 -> 2
    44 cpu1 switch 2 S -> 0
    45 cpu0 switch 3 S -> 1
    46 cpu0 send 400 1 0x18
    46 cpu0 send 500 1 0x18
    47 cpu1 softirq_entry 3
    47 cpu1 recv 400 1 0x18
    47 cpu1 recv 500 1 0x18
    48 cpu1 softirq_exit 3
    50 cpu0 send 300 1 0x18
    52 cpu0 switch 1 S -> 3
    55 cpu0 send 300 1 0x18
    60 cpu1 softirq_entry 3
    60 cpu1 recv 300 1 0x18
    61 cpu1 waking 2
    62 cpu1 softirq_exit 3
    63 cpu1 switch 0 -> 2
    end 100
  )");
  EXPECT_EQ(s.counters().packets_sent, 6u);
  EXPECT_EQ(s.counters().packets_matched, 5u);
  EXPECT_EQ(s.Links(2), "1->2@21 network | 3->2@41 network | 3->2@61 network");
}

TEST(CriticalPathScenario, NetworkWakeUpAcrossTwoHosts) {
  KernelScenario s(R"(
    host A
    0 cpu0 switch 0 -> 1:client
    30 cpu0 send 100 1 0x18
    host B
    0 cpu0 switch 0 -> 7:server
    5 cpu0 switch 7 S -> 0
    32 cpu0 softirq_entry 3
    32 cpu0 recv 100 1 0x18
    33 cpu0 waking 7
    33 cpu0 softirq_exit 3
    35 cpu0 switch 0 -> 7
    end 100
  )");
  EXPECT_EQ(s.Path(7, INT64_MIN, INT64_MAX, "B"),
            "B/7@0-5 RUNNING | A/1@5-30 RUNNING | B/7@30-33 NETWORK(softirq NET_RX) | "
            "B/7@33-35 PREEMPTED | B/7@35-100 RUNNING");
  EXPECT_EQ(s.Links(7, INT64_MIN, INT64_MAX, "B"), "A/1->B/7@33 network");
}

TEST(CriticalPathScenario, PacketSentBeforeTheWaitIsNetworkTimeOnly) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    3 cpu0 send 7 8 0x10
    5 cpu1 switch 2 S -> 0
    20 cpu1 softirq_entry 3
    20 cpu1 recv 7 8 0x10
    21 cpu1 waking 2
    22 cpu1 softirq_exit 3
    end 40
  )");
  EXPECT_EQ(s.Path(2), "2@0-5 RUNNING | 2@5-21 NETWORK(softirq NET_RX) | 2@21-40 PREEMPTED");
}

TEST(CriticalPathScenario, PreemptionIsWaitingForTheCpu) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    20 cpu0 switch 1 R -> 2
    50 cpu0 switch 2 R -> 1
    end 100
  )");
  EXPECT_EQ(s.Path(1), "1@0-20 RUNNING | 1@20-50 PREEMPTED | 1@50-100 RUNNING");
  EXPECT_EQ(s.Timeline(2), "0 UNKNOWN(before first event) | 20 RUNNING | 50 PREEMPTED");
}

TEST(CriticalPathScenario, NestedInterruptsLabelByTheInnermostContext) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 S -> 3
    20 cpu0 switch 3 S -> 0
    40 cpu0 softirq_entry 3
    41 cpu0 irq_entry 14 ahci    # a hard IRQ nested in the NET_RX softirq
    42 cpu0 waking 1
    43 cpu0 irq_exit 14
    44 cpu0 waking 3
    45 cpu0 softirq_exit 3
    46 cpu0 switch 0 -> 1
    end 100
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 1@10-42 INTERRUPTED(irq 14 ahci) | 1@42-46 PREEMPTED | 1@46-100 RUNNING");
  EXPECT_EQ(
      s.Timeline(3),
      "0 UNKNOWN(before first event) | 10 RUNNING | 20 NETWORK(softirq NET_RX) | 44 PREEMPTED");
  EXPECT_EQ(s.counters().interrupt_mismatches, 0u);
}

TEST(CriticalPathScenario, InterProcessorInterruptWakeUp) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 S -> 0
    30 cpu0 ipi_entry call_function
    30 cpu0 waking 1
    31 cpu0 ipi_exit
    32 cpu0 switch 0 -> 1
    end 50
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 1@10-30 IPI(ipi call_function) | 1@30-32 PREEMPTED | 1@32-50 RUNNING");
}

TEST(CriticalPathScenario, WakeUpOfARunnableThreadChangesNothing) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    20 cpu0 switch 1 R -> 0
    30 cpu1 waking 1
    50 cpu0 switch 0 -> 1
    end 100
  )");
  EXPECT_EQ(s.Timeline(1), "0 RUNNING | 20 PREEMPTED | 50 RUNNING");
  EXPECT_EQ(s.counters().wakeups_of_runnable, 1u);
}

TEST(CriticalPathScenario, WakeUpRacingTheSwitchOutLeavesTheThreadRunnable) {
  // sched_waking on another CPU comes before the target's own switch-out (seen in real
  // traces): the thread never really blocks.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    10 cpu1 waking 1
    11 cpu0 switch 1 S -> 0
    15 cpu0 switch 0 -> 1
    end 20
  )");
  EXPECT_EQ(s.Timeline(1), "0 RUNNING | 11 PREEMPTED | 15 RUNNING");
  EXPECT_EQ(s.counters().missing_wakeups, 0u);
}

TEST(CriticalPathScenario, ThreadBlockedSinceBeforeTheTraceStart) {
  KernelScenario s(R"(
    0 cpu1 switch 0 -> 2
    40 cpu1 waking 5             # first sight of 5: it was blocked all along
    45 cpu0 switch 0 -> 5
    end 100
  )");
  EXPECT_EQ(s.Timeline(5), "0 BLOCKED | 40 PREEMPTED<-2 | 45 RUNNING");
  EXPECT_EQ(s.Path(5), "2@0-40 RUNNING | 5@40-45 PREEMPTED | 5@45-100 RUNNING");
}

TEST(CriticalPathScenario, WakeUpFromAnUnknownSourceStaysBlocked) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 S -> 0
    40 cpu2 waking 1             # nothing is known of cpu2
    45 cpu0 switch 0 -> 1
    end 100
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 1@10-40 BLOCKED(unknown waker) | 1@40-45 PREEMPTED | 1@45-100 RUNNING");
  EXPECT_EQ(s.Links(1), "");
  EXPECT_EQ(s.counters().wakeups_unknown_source, 1u);
}

TEST(CriticalPathScenario, WakeUpFromTheIdleTaskIsNotAThread) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 S -> 0
    40 cpu0 waking 1             # idle context, no interrupt in the trace
    41 cpu0 switch 0 -> 1
    end 50
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 1@10-40 BLOCKED(woken from idle) | 1@40-41 PREEMPTED | 1@41-50 RUNNING");
}

TEST(CriticalPathScenario, ForkExecExit) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:shell
    20 cpu0 fork 1 -> 30:shell
    22 cpu0 switch 1 S -> 30     # the parent waits for its child
    25 cpu0 exec 30 /bin/ls
    58 cpu0 exit 30
    59 cpu0 waking 1             # the child's exit wakes the parent
    60 cpu0 switch 30 X -> 1
    end 100
  )");
  EXPECT_EQ(s.Timeline(30), "20 PREEMPTED(new thread)<~1 | 22 RUNNING | 60 NONE");
  EXPECT_EQ(s.graph().worker(s.Worker(30)).name, "ls");
  EXPECT_EQ(s.Path(30), "30@20-22 PREEMPTED(new thread) | 30@22-60 RUNNING");
  EXPECT_EQ(s.Path(1), "1@0-22 RUNNING | 30@22-59 RUNNING | 1@59-60 PREEMPTED | 1@60-100 RUNNING");
}

TEST(CriticalPathScenario, WalkingBackPastAThreadsBirthFollowsItsParent) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    10 cpu0 switch 1 S -> 0
    20 cpu1 fork 2 -> 30
    25 cpu0 switch 0 -> 30
    50 cpu0 waking 1
    51 cpu0 switch 30 S -> 1
    end 100
  )");
  EXPECT_EQ(
      s.Path(1),
      "1@0-10 RUNNING | 2@10-20 RUNNING | 30@20-25 PREEMPTED(new thread) | 30@25-50 RUNNING | "
      "1@50-51 PREEMPTED | 1@51-100 RUNNING");
  EXPECT_EQ(s.Links(1), "2->30@20 fork | 30->1@50 wakeup");
}

TEST(CriticalPathScenario, TidReusedAfterExitIsANewThread) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    5 cpu0 fork 1 -> 9
    6 cpu0 switch 1 R -> 9
    7 cpu0 exit 9
    8 cpu0 switch 9 X -> 1
    20 cpu0 fork 1 -> 9
    21 cpu0 switch 1 R -> 9
    end 30
  )");
  int threads_with_tid_9 = 0;
  for (graph::WorkerId w = 0; w < s.graph().num_workers(); ++w)
    threads_with_tid_9 += s.graph().worker(w).tid == 9;
  EXPECT_EQ(threads_with_tid_9, 2);
  EXPECT_EQ(s.Timeline(9), "20 PREEMPTED(new thread)<~1 | 21 RUNNING");
}

TEST(CriticalPathScenario, LostEventsBecomeUnknownNeverInventedCausality) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    5 cpu1 switch 2 S -> 0
    30 cpu0 lost 12 40
    50 cpu0 switch 1 S -> 0
    60 cpu1 switch 0 -> 2        # no wake-up seen for 2: it may be in the lost events
    end 100
  )");
  EXPECT_EQ(s.Timeline(1), "0 RUNNING | 30 UNKNOWN(lost events) | 50 BLOCKED(until end of trace)");
  EXPECT_EQ(s.Path(1),
            "1@0-30 RUNNING | 1@30-50 UNKNOWN(lost events) | 1@50-100 BLOCKED(until end of trace)");
  // Asleep on cpu1 while cpu0 lost events: its waker could have run there. Blocked until
  // the window, unknown during it; after it, scheduled in without a wake-up seen.
  EXPECT_EQ(s.Path(2),
            "2@0-5 RUNNING | 2@5-30 BLOCKED | 2@30-40 UNKNOWN(lost events on another CPU) | "
            "2@40-60 UNKNOWN(no wake-up seen) | 2@60-100 RUNNING");
  EXPECT_EQ(s.Links(2), "");
  EXPECT_EQ(s.counters().lost_events, 12u);
  EXPECT_EQ(s.counters().missing_wakeups, 1u);
  EXPECT_EQ(s.counters().lost_window_waits, 1u);
}

// During a window of lost events on a CPU, a thread queued there could have run, and any
// sleeper could have been woken by a task there: both are UNKNOWN for the window (they kept
// PREEMPTED and BLOCKED through it), then what they were, when no event of theirs came. A
// thread queued on another CPU keeps waiting there, and a wake-up after the window keeps its
// link.
TEST(CriticalPathScenario, ALostEventWindowMakesTheWaitsItCouldHaveChangedUnknown) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 4
    2 cpu0 switch 1 R -> 3       # 1 queued on cpu0
    3 cpu1 switch 4 R -> 5       # 4 queued on cpu1
    4 cpu0 switch 3 S -> 6       # 3 asleep
    30 cpu0 lost 12 40
    70 cpu1 waking 3             # woken by 5, after the window
    end 100
  )");
  EXPECT_EQ(s.Timeline(1),
            "0 RUNNING | 2 PREEMPTED | 30 UNKNOWN(lost events on another CPU) | 40 PREEMPTED");
  EXPECT_EQ(s.Timeline(4), "0 RUNNING | 3 PREEMPTED");
  // After the window, asleep again until 5 wakes it: the path follows 5.
  EXPECT_EQ(s.Path(3, 4, 100),
            "3@4-30 BLOCKED | 3@30-40 UNKNOWN(lost events on another CPU) | 5@40-70 RUNNING | "
            "3@70-100 PREEMPTED");
  EXPECT_EQ(s.Links(3), "5->3@70 wakeup");
  // The thread on the lossy CPU: unknown from the window on (as before).
  EXPECT_EQ(s.Timeline(6), "0 UNKNOWN(before first event) | 4 RUNNING | 30 UNKNOWN(lost events)");
  EXPECT_EQ(s.counters().lost_window_waits, 2u);
}

TEST(CriticalPathScenario, PerfContextFlagsNameTheInterruptKind) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    10 cpu0 switch 1 S -> 0
    40 cpu0 flags HARDIRQ waking 1
    45 cpu0 switch 0 -> 1
    end 50
  )");
  EXPECT_EQ(s.Path(1),
            "1@0-10 RUNNING | 1@10-40 INTERRUPTED(hardirq: timer or device (irq events not "
            "recorded)) | 1@40-45 PREEMPTED | 1@45-50 RUNNING");
}

TEST(CriticalPathScenario, StatedumpNamesThreadsAndGivesTheirState) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    1 cpu0 statedump 40 sleeper 5
    1 cpu0 statedump 1 runner 6
    30 cpu0 waking 40
    end 50
  )");
  EXPECT_EQ(s.graph().worker(s.Worker(40)).name, "sleeper");
  EXPECT_EQ(s.graph().worker(s.Worker(1)).name, "runner");
  EXPECT_EQ(s.Path(40), "1@0-30 RUNNING | 40@30-50 PREEMPTED");
}

}  // namespace
}  // namespace causeway::testing

namespace causeway::testing {
namespace {

TEST(CriticalPathScenario, InterruptEntryWithoutExitIsForgottenAtTheNextSwitch) {
  KernelScenario s(R"(
    0 cpu0 hrtimer_entry         # the recording began inside it; its exit is missing
    5 cpu0 switch 0 -> 1
    5 cpu1 switch 0 -> 2
    10 cpu1 switch 2 S -> 0
    20 cpu0 waking 2             # task context again: 1 wakes 2, no timer involved
    end 30
  )");
  EXPECT_EQ(
      s.Path(2),
      "2@0-5 UNKNOWN(before first event) | 2@5-10 RUNNING | 1@10-20 RUNNING | 2@20-30 PREEMPTED");
  EXPECT_EQ(s.counters().interrupt_mismatches, 1u);
}

}  // namespace
}  // namespace causeway::testing

namespace causeway::testing {
namespace {

TEST(CriticalPathScenario, PerfCurrentTaskRevealsAMissingSwitchIn) {
  // perf on some VMs records the switches into idle but not those out of it; the current
  // task of every perf event (perf_tid) still says who runs.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    10 cpu1 switch 2 S -> 0
    20 cpu0 as 1 waking 2        # 1 wakes 2
    25 cpu1 as 0 hrtimer_entry   # cpu1 still idle
    26 cpu1 as 0 hrtimer_exit
    30 cpu1 as 2 waking 7        # 2 runs: its switch-in (25..30) is not in the trace
    40 cpu1 switch 2 S -> 0
    end 50
  )");
  EXPECT_EQ(
      s.Timeline(2),
      "0 RUNNING | 10 BLOCKED | 20 PREEMPTED<-1 | 26 UNKNOWN(no switch-in seen) | 30 RUNNING | "
      "40 BLOCKED(until end of trace)");
  EXPECT_EQ(s.counters().inferred_switches, 1u);
  EXPECT_EQ(s.counters().missing_switch_ins, 0u);
}

}  // namespace
}  // namespace causeway::testing

namespace causeway::testing {
namespace {

TEST(CriticalPathScenario, QualifiersPastTheLimitAreCountedNotSilentlyDropped) {
  // Two disks end two waits; the second disk's name is the last qualifier interned.
  const std::string script = R"(
    0 cpu0 switch 0 -> 1
    0 cpu1 switch 0 -> 2
    10 cpu0 switch 1 D -> 0
    10 cpu1 switch 2 D -> 0
    70 cpu0 irq_entry 14 ahci
    70 cpu0 block_complete 8388608
    71 cpu0 waking 1
    72 cpu0 block_complete 8388624
    73 cpu0 waking 2
    74 cpu0 irq_exit 14
    75 cpu0 switch 0 -> 1
    75 cpu1 switch 0 -> 2
    end 100
  )";
  KernelScenario full(script);
  EXPECT_EQ(full.counters().unnamed_qualifiers, 0u);
  EXPECT_EQ(
      full.Path(2),
      "2@0-10 RUNNING | 2@10-73 BLOCK_DEVICE(disk 8:16) | 2@73-75 PREEMPTED | 2@75-100 RUNNING");
  // One id fewer: the second disk's wait keeps its state but loses its name, and says so.
  KernelScenario capped(script, static_cast<uint32_t>(full.graph().num_qualifiers() - 1));
  EXPECT_EQ(capped.counters().unnamed_qualifiers, 1u);
  EXPECT_EQ(capped.Path(1), full.Path(1));
  EXPECT_EQ(capped.Path(2),
            "2@0-10 RUNNING | 2@10-73 BLOCK_DEVICE | 2@73-75 PREEMPTED | 2@75-100 RUNNING");
}

TEST(CriticalPathScenario, SegmentReceivedInAThreadedIrqHandlerFollowsTheSender) {
  // The receive runs in an IRQ thread's context (threaded handlers, PREEMPT_RT), which then
  // wakes the reader: the reader waited for the client's segment, not for the IRQ thread.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:client
    0 cpu1 switch 0 -> 2:server
    5 cpu1 switch 2 S -> 0       # the server waits in recv()
    30 cpu0 send 100 1 0x18      # the client sends a request
    31 cpu1 irq_entry 42 iwlwifi
    31 cpu1 waking 50            # the hard IRQ wakes its thread
    32 cpu1 irq_exit 42
    33 cpu1 switch 0 -> 50:irq/42-iwlwifi
    34 cpu1 recv 100 1 0x18      # received in the thread's own context
    35 cpu1 waking 2
    36 cpu1 switch 50 S -> 2
    end 100
  )");
  EXPECT_EQ(s.Timeline(2),
            "0 RUNNING | 5 NETWORK(received by irq/42-iwlwifi) | 35 PREEMPTED<=1 | 36 RUNNING");
  EXPECT_EQ(s.Path(2),
            "2@0-5 RUNNING | 1@5-30 RUNNING | 2@30-35 NETWORK(received by irq/42-iwlwifi) | "
            "2@35-36 PREEMPTED | 2@36-100 RUNNING");
  EXPECT_EQ(s.Links(2), "1->2@35 network");
}

TEST(CriticalPathScenario, ThreadedReceiveCountsOnlyUntilTheReceiverDoesSomethingElse) {
  // The IRQ thread forks after the receive: a later wake-up is its own, not the segment's.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 1:client
    0 cpu1 switch 0 -> 50:irq/42-iwlwifi
    0 cpu2 switch 0 -> 2:server
    5 cpu2 switch 2 S -> 0
    30 cpu0 send 100 1 0x18
    34 cpu1 recv 100 1 0x18      # nobody waits for it
    36 cpu1 fork 50 -> 60:child
    40 cpu1 waking 2
    41 cpu2 switch 0 -> 2
    end 100
  )");
  EXPECT_EQ(s.Timeline(2), "0 RUNNING | 5 BLOCKED | 40 PREEMPTED<-50 | 41 RUNNING");
}

TEST(CriticalPathScenario, PerfFlagsReceiveAndWakeUpInOneSoftirqFollowTheSender) {
  // perf without softirq events: the flags say both happened in a softirq.
  KernelScenario s(R"(
    0 cpu0 as 0 switch 0 -> 1:client
    0 cpu1 as 0 switch 0 -> 2:server
    5 cpu1 as 2 switch 2 S -> 0
    30 cpu0 as 1 send 100 1 0x18
    31 cpu1 as 0 flags SOFTIRQ recv 100 1 0x18
    32 cpu1 as 0 flags SOFTIRQ waking 2
    34 cpu1 as 0 switch 0 -> 2
    end 100
  )");
  EXPECT_EQ(s.Path(2),
            "2@0-5 RUNNING | 1@5-30 RUNNING | 2@30-32 NETWORK(softirq) | 2@32-34 PREEMPTED | "
            "2@34-100 RUNNING");
}

TEST(CriticalPathScenario, MissingSwitchOutWakerIsTheNextSwitchsPrev) {
  // 10's switch-out on cpu0 is never recorded (some kernels lose them for some threads),
  // nor 20's switch-in there: the model still takes 10 for cpu0's task when 20 wakes 3.
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 10:tokio
    0 cpu1 switch 0 -> 3:backend
    5 cpu1 switch 3 S -> 0       # the backend waits
    10 cpu1 switch 0 -> 10       # tokio runs on cpu1 now, and sleeps there
    12 cpu1 switch 10 S -> 0
    15 cpu0 hrtimer_entry
    15 cpu0 waking 20            # 20 is woken, and runs on cpu0 unseen
    16 cpu0 hrtimer_exit
    40 cpu0 waking 3             # by 20
    45 cpu0 switch 20 S -> 0     # the next switch names 20
    47 cpu1 switch 0 -> 3
    end 100
  )");
  EXPECT_EQ(s.Timeline(3), "0 RUNNING | 5 BLOCKED | 40 PREEMPTED<-20 | 47 RUNNING");
  EXPECT_EQ(s.Timeline(20),
            "0 TIMER(hrtimer) | 15 UNKNOWN(no switch-in seen) | 40 RUNNING | 45 BLOCKED(until end "
            "of trace)");
  EXPECT_EQ(s.Path(3),
            "3@0-5 RUNNING | 20@5-15 TIMER(hrtimer) | 20@15-40 UNKNOWN(no switch-in seen) | "
            "3@40-47 PREEMPTED | 3@47-100 RUNNING");
  // tokio's sleep on cpu1 is untouched by the wake-up on cpu0.
  EXPECT_EQ(s.Timeline(10), "0 RUNNING | 12 BLOCKED(until end of trace)");
  EXPECT_EQ(s.counters().wakers_corrected, 1u);
  EXPECT_EQ(s.counters().wakeups_unknown_source, 0u);
}

TEST(CriticalPathScenario, MissingSwitchOutWakerCorrectedWhileTheStaleThreadRunsElsewhere) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 10:tokio
    0 cpu1 switch 0 -> 3:backend
    5 cpu1 switch 3 S -> 0
    10 cpu2 switch 0 -> 10       # tokio runs on cpu2 (its switch-out on cpu0 is missing)
    15 cpu0 hrtimer_entry
    15 cpu0 waking 20
    16 cpu0 hrtimer_exit
    40 cpu0 waking 3             # by 20, on cpu0
    45 cpu0 switch 20 S -> 0
    47 cpu1 switch 0 -> 3
    90 cpu2 switch 10 S -> 0
    end 100
  )");
  EXPECT_EQ(s.Timeline(3), "0 RUNNING | 5 BLOCKED | 40 PREEMPTED<-20 | 47 RUNNING");
  EXPECT_EQ(s.Links(3), "20->3@40 wakeup");
  EXPECT_EQ(s.counters().wakers_corrected, 1u);
}

TEST(CriticalPathScenario, MissingSwitchOutAndIdleNextIsWokenFromIdle) {
  KernelScenario s(R"(
    0 cpu0 switch 0 -> 10:tokio
    0 cpu1 switch 0 -> 3:backend
    5 cpu1 switch 3 S -> 0
    10 cpu1 switch 0 -> 10
    12 cpu1 switch 10 S -> 0
    40 cpu0 waking 3             # cpu0 is idle, in fact
    45 cpu0 switch 0 -> 30
    47 cpu1 switch 0 -> 3
    end 100
  )");
  EXPECT_EQ(s.Timeline(3), "0 RUNNING | 5 BLOCKED(woken from idle) | 40 PREEMPTED | 47 RUNNING");
}

}  // namespace
}  // namespace causeway::testing
