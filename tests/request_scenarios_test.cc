// Request critical paths (seed 000 Alg. 1 and §3.4) on small kernel scenarios with spans:
// events in, each request's labelled path and dominant cause out.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/request_diagnosis.h"
#include "requests/request_analysis.h"
#include "support/kernel_scenario.h"
#include "support/request_pieces.h"

namespace causeway {
namespace {

using requests::Cause;
using testing::KernelScenario;
using testing::Pieces;
using testing::Set;

// A root span of its own trace (trace id = `trace`), on thread `tid`.
spans::Span Root(uint64_t trace, uint64_t id, int32_t tid, int64_t start, int64_t end,
                 const std::string& op = "GET /x") {
  spans::Span s;
  s.trace = {0, trace};
  s.span_id = id;
  s.tid = tid;
  s.start_ns = start;
  s.end_ns = end;
  static spans::SpanNames names;  // the test spans' names, for the whole program
  s.service = names.Intern("svc");
  s.operation = names.Intern(op);
  return s;
}

spans::Span Child(const spans::Span& parent, uint64_t id, int32_t tid, int64_t start, int64_t end) {
  spans::Span s = Root(parent.trace.low, id, tid, start, end, "child");
  s.parent_span_id = parent.span_id;
  return s;
}

// Every scenario is also analysed without keeping the paths (the listings): the same
// summaries, and no path or link left.
void ExpectSameSummariesWithoutPaths(const KernelScenario& k, const spans::SpanSet& s,
                                     const requests::RequestAnalysis& kept) {
  requests::RequestOptions o;
  o.keep_paths = false;
  auto a = requests::AnalyzeRequests(k.graph(), s, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->requests.size(), kept.requests.size());
  for (size_t i = 0; i < kept.requests.size(); ++i) {
    const requests::Request& x = a->requests[i];
    const requests::Request& y = kept.requests[i];
    const requests::RequestDetail dx = a->Detail(i), dy = kept.Detail(i);
    EXPECT_TRUE(dx.links.empty());
    EXPECT_EQ(dx.path.size(), dy.path.size());
    EXPECT_TRUE(std::equal(std::begin(x.by_cause), std::end(x.by_cause), std::begin(y.by_cause)));
    EXPECT_TRUE(std::equal(std::begin(x.blocked_by_state), std::end(x.blocked_by_state),
                           std::begin(y.blocked_by_state)));
    EXPECT_EQ(dx.by_request, dy.by_request);
    EXPECT_EQ(dx.by_thread, dy.by_thread);
    EXPECT_EQ(x.dominant, y.dominant);
    EXPECT_EQ(dx.dominant_thread, dy.dominant_thread);
    EXPECT_EQ(dx.dominant_request, dy.dominant_request);
    EXPECT_EQ(report::RequestDiagnosis(k.graph(), s, *a, x),
              report::RequestDiagnosis(k.graph(), s, kept, y));
  }
  // The listings' variant keeps the root spans only, and gives the same summaries.
  spans::SpanSet roots = s;
  auto b = requests::AnalyzeRequestsRootSpansOnly(k.graph(), &roots, o);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->requests.size(), kept.requests.size());
  ASSERT_EQ(roots.spans.size(), kept.requests.size());
  EXPECT_EQ(roots.by_id.size(), roots.spans.size());
  EXPECT_TRUE(roots.activations.empty());
  EXPECT_EQ(b->spans, kept.spans);
  for (size_t i = 0; i < kept.requests.size(); ++i) {
    const requests::Request& x = b->requests[i];
    const requests::Request& y = kept.requests[i];
    EXPECT_EQ(x.root, i);
    EXPECT_EQ(roots.spans[x.root].span_id, s.spans[y.root].span_id);
    EXPECT_EQ(roots.by_id.at(roots.spans[i].span_id), i);
    EXPECT_TRUE(std::equal(std::begin(x.by_cause), std::end(x.by_cause), std::begin(y.by_cause)));
    EXPECT_EQ(b->Detail(i).by_request, kept.Detail(i).by_request);
    EXPECT_EQ(b->Detail(i).by_thread, kept.Detail(i).by_thread);
    EXPECT_EQ(x.dominant, y.dominant);
    EXPECT_EQ(report::RequestDiagnosis(k.graph(), roots, *b, x),
              report::RequestDiagnosis(k.graph(), s, kept, y));
  }
  ASSERT_EQ(b->operations.size(), kept.operations.size());
  for (size_t i = 0; i < kept.operations.size(); ++i) {
    EXPECT_EQ(b->operations[i].operation, kept.operations[i].operation);
    EXPECT_EQ(b->operations[i].count, kept.operations[i].count);
  }
}

requests::RequestAnalysis Analyze(const KernelScenario& k, const spans::SpanSet& s) {
  auto a = requests::AnalyzeRequests(k.graph(), s);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return requests::RequestAnalysis{};
  ExpectSameSummariesWithoutPaths(k, s, *a);
  return *a;
}

// Causes tile each request's latency, and the sums made in one sweep over its thread's
// shared path are those of its own pieces.
void ExpectTiles(const requests::RequestAnalysis& a) {
  for (size_t i = 0; i < a.requests.size(); ++i) {
    const requests::Request& r = a.requests[i];
    int64_t sum = 0;
    for (int c = 0; c < requests::kNumCauses; ++c) sum += r.by_cause[c];
    EXPECT_EQ(sum, r.latency());
    int64_t at = r.start;
    int64_t by_cause[requests::kNumCauses] = {}, blocked_by_state[graph::kNumStates] = {};
    for (const auto& p : a.Detail(i).path) {
      EXPECT_EQ(p.start, at);
      at = p.end;
      by_cause[static_cast<int>(p.cause)] += p.end - p.start;
      if (p.cause == Cause::kBlockedByRequest)
        blocked_by_state[static_cast<int>(p.state)] += p.end - p.start;
    }
    EXPECT_EQ(at, r.end);
    EXPECT_TRUE(std::equal(std::begin(by_cause), std::end(by_cause), std::begin(r.by_cause)))
        << "request " << i;
    EXPECT_TRUE(std::equal(std::begin(blocked_by_state), std::end(blocked_by_state),
                           std::begin(r.blocked_by_state)))
        << "request " << i;
  }
}

// One request waits on a thread that serves 40 short requests meanwhile: each is summed
// apart, the largest first, ties by request.
TEST(RequestScenario, BlockedByManyRequestsSumsEachOne) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 2:b
    10 cpu0 switch 1 S -> 0      # A waits for thread 2...
    95 cpu1 waking 1             # ...which serves 40 requests before it answers
    95 cpu0 switch 0 -> 1
    end 100
  )");
  // Requests 1..39 run 2 ns each on thread 2 from 12 on; request 40 runs 90-95.
  std::vector<spans::Span> v = {Root(1, 1, 1, 0, 100)};
  for (int i = 0; i < 40; ++i)
    v.push_back(Root(100 + i, 100 + i, 2, 12 + 2 * i, i == 39 ? 95 : 14 + 2 * i));
  const spans::SpanSet s = Set(std::move(v));
  const auto a = Analyze(k, s);
  ASSERT_EQ(a.requests.size(), 41u);
  ExpectTiles(a);
  const requests::Request& r = a.requests[0];
  const requests::RequestDetail d = a.Detail(0);
  ASSERT_EQ(d.by_request.size(), 40u);
  EXPECT_EQ(d.by_request[0], (std::pair<int32_t, int64_t>{40, 5}));
  for (int32_t i = 1; i < 40; ++i)
    EXPECT_EQ(d.by_request[i], (std::pair<int32_t, int64_t>{i, 2})) << "entry " << i;
  EXPECT_EQ(r.by_cause[static_cast<int>(Cause::kBlockedByRequest)], 39 * 2 + 5);
  EXPECT_EQ(r.dominant, Cause::kBlockedByRequest);
  EXPECT_EQ(d.dominant_request, 40);
  // The named request's own share (5 of 100 ns), then the 39 others' together (78 ns).
  const std::string diagnosis = report::RequestDiagnosis(k.graph(), s, a, r, d);
  EXPECT_NE(diagnosis.find("(5%) and by 39 other request(s) (78%)"), std::string::npos)
      << diagnosis;
}

// 100 requests overlapping on one thread, each started 10 ns after the one before and open
// for 5 µs: request i is its thread's own for 10 ns, then blocked by each later one for 10 ns
// and by the last one for the rest. The path is stored once, labelled, for all of them (its
// pieces grow with the requests, not with their pairs); each request's lists come from its
// slice.
TEST(RequestScenario, OverlappingRequestsShareOneLabelledPath) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    end 10000
  )");
  std::vector<spans::Span> v;
  for (int i = 0; i < 100; ++i) v.push_back(Root(1 + i, 1 + i, 1, 10 * i, 10 * i + 5000));
  const spans::SpanSet s = Set(std::move(v));
  const auto a = Analyze(k, s);
  ASSERT_EQ(a.requests.size(), 100u);
  ExpectTiles(a);
  ASSERT_EQ(a.shared_paths.size(), 1u);
  EXPECT_EQ(a.shared_paths[0].pieces.size(), 100u);
  for (size_t i = 0; i < 99; ++i) {
    const requests::Request& r = a.requests[i];
    const requests::RequestDetail d = a.Detail(i);
    EXPECT_EQ(r.by_cause[static_cast<int>(Cause::kRunning)], 10) << i;
    EXPECT_EQ(r.by_cause[static_cast<int>(Cause::kBlockedByRequest)], 4990) << i;
    EXPECT_EQ(r.dominant, Cause::kBlockedByRequest) << i;
    ASSERT_EQ(d.by_request.size(), 99 - i) << i;
    EXPECT_EQ(d.by_request[0],
              (std::pair<int32_t, int64_t>{99, 4010 + 10 * static_cast<int64_t>(i)}));
    EXPECT_EQ(d.dominant_request, 99) << i;
  }
  EXPECT_EQ(a.requests[99].dominant, Cause::kRunning);
  EXPECT_TRUE(a.Detail(99).by_request.empty());
}

TEST(RequestScenario, LockHeldByAnotherRequestIsBlockedByThatRequest) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 2:b
    10 cpu0 switch 1 S -> 0      # request A's thread blocks on a lock request B holds
    50 cpu1 waking 1             # B releases it
    55 cpu0 switch 0 -> 1
    80 cpu1 switch 2 S -> 0
    end 100
  )");
  const auto set = Set({Root(0xA, 1, 1, 0, 90), Root(0xB, 2, 2, 0, 80)});
  const auto a = Analyze(k, set);
  ASSERT_EQ(a.requests.size(), 2u);
  EXPECT_EQ(Pieces(k, a, 0),
            "1@0-10 running | 2@10-50 blocked_by_request(1) | 1@50-55 preempted | 1@55-90 running");
  EXPECT_EQ(a.requests[0].dominant, Cause::kBlockedByRequest);
  EXPECT_EQ(a.Detail(0).dominant_request, 1);
  EXPECT_EQ(k.graph().worker(a.Detail(0).dominant_thread).tid, 2);
  const std::string diagnosis = report::RequestDiagnosis(k.graph(), set, a, a.requests[0]);
  EXPECT_NE(diagnosis.find("blocked by request 00000000"), std::string::npos) << diagnosis;
  // B was never held back.
  EXPECT_EQ(Pieces(k, a, 1), "2@0-80 running");
  EXPECT_EQ(a.requests[1].dominant, Cause::kRunning);
  ExpectTiles(a);
}

TEST(RequestScenario, ThreeWayContentionNamesEachRequestInTheWay) {
  // Seed 000 Figure 6: A waits for B, which waits for C.
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 3:c
    5 cpu0 switch 1 S -> 2:b     # A blocks (lock held by B)
    10 cpu0 switch 2 S -> 0      # B blocks (lock held by C)
    40 cpu1 waking 2             # C releases: B runs
    40 cpu1 switch 3 S -> 0
    40 cpu0 switch 0 -> 2
    70 cpu0 waking 1             # B releases: A runs
    70 cpu0 switch 2 S -> 1
    end 100
  )");
  const auto set = Set({Root(0xA, 1, 1, 0, 90), Root(0xB, 2, 2, 0, 70), Root(0xC, 3, 3, 0, 40)});
  const auto a = Analyze(k, set);
  ASSERT_EQ(a.requests.size(), 3u);
  EXPECT_EQ(Pieces(k, a, 0),
            "1@0-5 running | 2@5-10 blocked_by_request(1) | 3@10-40 blocked_by_request(2) | "
            "2@40-70 blocked_by_request(1) | 1@70-90 running");
  // B held A for 5 + 30 ns, C for 30 (through B).
  ASSERT_EQ(a.Detail(0).by_request.size(), 2u);
  EXPECT_EQ(a.Detail(0).by_request[0], (std::pair<int32_t, int64_t>{1, 35}));
  EXPECT_EQ(a.Detail(0).by_request[1], (std::pair<int32_t, int64_t>{2, 30}));
  EXPECT_EQ(a.Detail(0).dominant_request, 1);
  // B's thread appears at 5 (before: not in the trace, unknown).
  EXPECT_EQ(Pieces(k, a, 1),
            "2@0-5 unknown | 2@5-10 running | 3@10-40 blocked_by_request(2) | 2@40-70 running");
  // Alg. 2: C's running time from 10 to 40 is on all three requests' thread paths, stored
  // once; B's from 40 to 70 on A's and B's.
  ASSERT_EQ(a.merged.paths.size(), 3u);
  int on_three = 0, on_two = 0;
  for (const auto& n : a.merged.nodes) {
    const int32_t tid = k.graph().worker(n.worker).tid;
    if (tid == 3 && n.start == 10 && n.end == 40) on_three += n.paths == 3;
    if (tid == 2 && n.start == 40 && n.end == 70) on_two += n.paths == 2;
  }
  EXPECT_EQ(on_three, 1);
  EXPECT_EQ(on_two, 1);
  EXPECT_EQ(a.merged.shared_ns, 2u * 30 + 30u + 5u);
  ExpectTiles(a);
}

TEST(RequestScenario, NestedSpansOfOneRequestAreItsOwnTime) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    20 cpu0 switch 1 S -> 0
    30 cpu0 hrtimer_entry
    30 cpu0 waking 1
    30 cpu0 hrtimer_exit
    30 cpu0 switch 0 -> 1
    end 60
  )");
  spans::Span root = Root(0xA, 1, 1, 0, 50);
  const auto set = Set({root, Child(root, 2, 1, 10, 40)});
  const auto a = Analyze(k, set);
  ASSERT_EQ(a.requests.size(), 1u);  // the child is part of the same request
  EXPECT_EQ(Pieces(k, a, 0), "1@0-20 running | 1@20-30 timer | 1@30-50 running");
  ExpectTiles(a);
}

TEST(RequestScenario, AThreadServingNoRequestIsWaitedFor) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 7:worker
    10 cpu0 switch 1 S -> 0
    40 cpu1 waking 1
    41 cpu1 switch 7 S -> 0
    45 cpu0 switch 0 -> 1
    end 60
  )");
  const auto set = Set({Root(0xA, 1, 1, 0, 60)});
  const auto a = Analyze(k, set);
  EXPECT_EQ(Pieces(k, a, 0),
            "1@0-10 running | 7@10-40 waiting_for_thread | 1@40-45 preempted | 1@45-60 running");
  EXPECT_EQ(a.requests[0].dominant, Cause::kWaitingForThread);
  EXPECT_EQ(k.graph().worker(a.Detail(0).dominant_thread).tid, 7);
}

TEST(RequestScenario, AThreadThatRanNoSpanIsNamedByItsProcesssService) {
  // Thread 7 (comm "pool") of process 1 never runs a span; thread 1 of the same process
  // runs the request. Thread 9 of another process stays named by its comm.
  KernelScenario k(R"(
    0 cpu0 statedump 1 a 6 pid 1
    0 cpu0 switch 0 -> 1:a
    2 cpu0 fork 1 -> 7:pool pid 1
    2 cpu0 fork 1 -> 9:other pid 9
    3 cpu1 switch 0 -> 7
    10 cpu0 switch 1 S -> 0
    40 cpu1 waking 1
    41 cpu1 switch 7 S -> 9
    45 cpu0 switch 0 -> 1
    end 60
  )");
  const auto set = Set({Root(0xA, 1, 1, 0, 60)});
  const auto a = Analyze(k, set);
  EXPECT_EQ(k.graph().worker(k.Worker(7)).pid, 1);
  EXPECT_EQ(k.graph().worker(k.Worker(1)).pid, 1);
  EXPECT_EQ(a.requests[0].dominant, Cause::kWaitingForThread);
  EXPECT_EQ(a.ThreadLabel(k.graph(), k.Worker(7)), "tid 7 (svc)");
  const std::string diagnosis = report::RequestDiagnosis(k.graph(), set, a, a.requests[0]);
  EXPECT_NE(diagnosis.find("on tid 7 (svc)"), std::string::npos) << diagnosis;
  EXPECT_EQ(a.ThreadLabel(k.graph(), k.Worker(9)), "tid 9 (other)");
  ASSERT_NE(a.ServiceOf(k.graph(), k.Worker(7)), nullptr);
  EXPECT_EQ(a.ServiceOf(k.graph(), k.Worker(9)), nullptr);
}

TEST(RequestScenario, AHandOffToAWorkerThreadIsTheRequestsOwnTime) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 7:worker
    10 cpu0 switch 1 S -> 0
    40 cpu1 waking 1
    41 cpu1 switch 7 S -> 0
    45 cpu0 switch 0 -> 1
    end 60
  )");
  spans::SpanSet set = Set({Root(0xA, 1, 1, 0, 60)});
  // The worker thread took the request over between 5 and 41 (causeway_ust:activate).
  set.activations.push_back({{0, 0xA}, 1, 7, 5, 41});
  const auto a = Analyze(k, set);
  EXPECT_EQ(Pieces(k, a, 0),
            "1@0-10 running | 7@10-40 running | 1@40-45 preempted | 1@45-60 running");
  EXPECT_EQ(a.requests[0].dominant, Cause::kRunning);
}

TEST(RequestScenario, PreemptionAndTimerAreNamed) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    10 cpu0 switch 1 R -> 9:hog      # preempted by a CPU hog
    50 cpu0 switch 9 R -> 1
    60 cpu0 switch 1 S -> 0
    70 cpu0 hrtimer_entry
    70 cpu0 waking 1
    70 cpu0 hrtimer_exit
    71 cpu0 switch 0 -> 1
    end 100
  )");
  const auto set = Set({Root(0xA, 1, 1, 0, 80)});
  const auto a = Analyze(k, set);
  EXPECT_EQ(a.requests[0].by_cause[static_cast<int>(Cause::kPreempted)], 41);
  EXPECT_EQ(a.requests[0].by_cause[static_cast<int>(Cause::kTimer)], 10);
  EXPECT_EQ(a.requests[0].dominant, Cause::kPreempted);
  // Who had the CPU meanwhile: the hog, and the idle task between the timer's wake-up and
  // the switch-in.
  const std::string diagnosis = report::RequestDiagnosis(k.graph(), set, a, a.requests[0]);
  EXPECT_NE(diagnosis.find("preempted: waiting for a CPU held by tid 9 (hog) 40 ns, idle 1 ns"),
            std::string::npos)
      << diagnosis;
  EXPECT_EQ(a.Detail(0).cpu_wait.ns, 41);
  EXPECT_EQ(a.Detail(0).cpu_wait.throttled_ns, 0);
  ExpectTiles(a);
}

TEST(RequestScenario, SpansWithoutThreadsAreCountedNotGuessed) {
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    end 100
  )");
  spans::Span root = Root(0xA, 1, 0, 10, 30);   // no thread known
  spans::Span far = Root(0xB, 2, 1, 500, 600);  // outside the kernel trace
  const auto set = Set({root, far});
  const auto a = Analyze(k, set);
  EXPECT_EQ(a.spans_without_thread, 1u);
  EXPECT_EQ(a.requests_without_thread, 2u);
  EXPECT_EQ(Pieces(k, a, 0), "?@10-30 unknown");
  EXPECT_EQ(a.requests[0].dominant, Cause::kUnknown);
  ExpectTiles(a);
}

TEST(RequestScenario, AcrossTwoHostsThroughANetworkLink) {
  // A client (host A) waits for a server (host B) serving the same request.
  KernelScenario k(R"(
    host A
    0 cpu0 switch 0 -> 1:client
    10 cpu0 send 100 1 0x18
    11 cpu0 switch 1 S -> 0
    60 cpu0 softirq_entry 3
    60 cpu0 recv 500 101 0x18
    60 cpu0 waking 1
    61 cpu0 softirq_exit 3
    62 cpu0 switch 0 -> 1
    host B
    0 cpu0 switch 0 -> 5:server
    5 cpu0 switch 5 S -> 0
    20 cpu0 softirq_entry 3
    20 cpu0 recv 100 1 0x18
    20 cpu0 waking 5
    21 cpu0 softirq_exit 3
    22 cpu0 switch 0 -> 5
    55 cpu0 send 500 101 0x18
    56 cpu0 switch 5 S -> 0
    end 100
  )");
  spans::Span root = Root(0xA, 1, 1, 0, 70);
  // The server span runs on host B's tid 5: with one host per analysis (the spans' host),
  // only host A's threads are associated; the path still crosses to B through the packets.
  const auto set = Set({root});
  const auto a = Analyze(k, set);
  ASSERT_EQ(a.requests.size(), 1u);
  bool on_b = false;
  for (const auto& p : a.Detail(0).path)
    if (p.worker != graph::kNoWorker && k.graph().worker(p.worker).host == 1) on_b = true;
  EXPECT_TRUE(on_b) << Pieces(k, a, 0);
  ExpectTiles(a);
}

}  // namespace
}  // namespace causeway
