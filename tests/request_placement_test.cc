// Spans of unmodified OpenTelemetry services placed on threads from the HTTP messages the
// kernel saw (requests/span_placement.h), and event loops that work, between two socket
// messages, for the request of the last one (requests/README.md): small kernel scenarios
// with the messages written by hand.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "report/request_diagnosis.h"
#include "requests/request_analysis.h"
#include "requests/span_placement.h"
#include "support/kernel_scenario.h"
#include "support/request_pieces.h"

namespace causeway {
namespace {

using kernel::HttpMessage;
using requests::Cause;
using requests::ThreadSource;
using testing::KernelScenario;
using testing::Pieces;
using testing::Set;

spans::SpanNames& Names() {
  static spans::SpanNames names;  // the test spans' names, for the whole program
  return names;
}

spans::Span MakeSpan(uint64_t trace, uint64_t id, uint64_t parent, spans::SpanKind kind,
                     int32_t pid, int64_t start, int64_t end, const std::string& service) {
  spans::Span s;
  s.trace = {0, trace};
  s.span_id = id;
  s.parent_span_id = parent;
  s.kind = kind;
  s.pid = pid;
  s.start_ns = start;
  s.end_ns = end;
  s.service = Names().Intern(service);
  s.operation = Names().Intern("GET");
  return s;
}

std::string Traceparent(uint64_t trace, uint64_t span) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "00-%032llx-%016llx-01", static_cast<unsigned long long>(trace),
                static_cast<unsigned long long>(span));
  return buf;
}

HttpMessage Message(int64_t ts, int32_t tid, bool sent, uint16_t lport, uint16_t rport,
                    const std::string& line, const std::string& traceparent = "") {
  HttpMessage m;
  m.ts = ts;
  m.tid = tid;
  m.pid = tid;  // every thread here is its process's main thread
  m.sent = sent;
  m.family = 4;
  m.laddr = m.raddr = "127.0.0.1";
  m.lport = lport;
  m.rport = rport;
  m.first_line = line;
  m.traceparent = traceparent;
  return m;
}

// A frontend event loop (tid 10) serves requests A and B at once; each calls a backend
// event loop (tid 20) that serves one request at a time (a lock held while running). The
// frontend's spans start 1 ns early in the file (times rounded down, as the OTel JS SDK
// does to milliseconds) and no span says its thread.
constexpr char kTwoRequestsOnOneLoop[] = R"(
  0 cpu0 statedump 10 frontend 5 pid 10
  0 cpu1 statedump 20 backend 5 pid 20
  100 cpu0 switch 0 -> 10
  112 cpu1 switch 0 -> 20
  135 cpu0 switch 10 S -> 0
  199 cpu1 waking 10
  200 cpu0 switch 0 -> 10
  211 cpu0 switch 10 S -> 0
  299 cpu1 waking 10
  300 cpu0 switch 0 -> 10
  305 cpu1 switch 20 S -> 0
  320 cpu0 switch 10 S -> 0
  end 400
)";

std::vector<HttpMessage> TwoRequestsMessages() {
  return {
      Message(100, 10, false, 80, 5001, "GET /a HTTP/1.1"),  // A arrives, with no context
      Message(110, 10, true, 6001, 90, "GET /ba HTTP/1.1", Traceparent(0xA, 0xA2)),
      Message(112, 20, false, 90, 6001, "GET /ba HTTP/1.1", Traceparent(0xA, 0xA2)),
      Message(120, 10, false, 80, 5002, "GET /b HTTP/1.1"),  // B arrives
      Message(130, 10, true, 6002, 90, "GET /bb HTTP/1.1", Traceparent(0xB, 0xB2)),
      Message(199, 20, true, 90, 6001, "HTTP/1.1 200 OK"),
      Message(200, 20, false, 90, 6002, "GET /bb HTTP/1.1", Traceparent(0xB, 0xB2)),
      Message(201, 10, false, 6001, 90, "HTTP/1.1 200 OK"),
      Message(210, 10, true, 80, 5001, "HTTP/1.1 200 OK"),  // A answered
      Message(299, 20, true, 90, 6002, "HTTP/1.1 200 OK"),
      Message(301, 10, false, 6002, 90, "HTTP/1.1 200 OK"),
      Message(310, 10, true, 80, 5002, "HTTP/1.1 200 OK"),  // B answered
  };
}

spans::SpanSet TwoRequestsSpans() {
  using spans::SpanKind;
  spans::Span a = MakeSpan(0xA, 0xA1, 0, SpanKind::kServer, 10, 99, 209, "frontend");
  a.peer_port = 5001;
  a.host_port = 80;
  spans::Span b = MakeSpan(0xB, 0xB1, 0, SpanKind::kServer, 10, 119, 309, "frontend");
  b.peer_port = 5002;
  return Set({a, b, MakeSpan(0xA, 0xA2, 0xA1, SpanKind::kClient, 10, 109, 200, "frontend"),
              MakeSpan(0xB, 0xB2, 0xB1, SpanKind::kClient, 10, 129, 300, "frontend"),
              MakeSpan(0xA, 0xA3, 0xA2, SpanKind::kServer, 20, 111, 198, "backend"),
              MakeSpan(0xB, 0xB3, 0xB2, SpanKind::kServer, 20, 199, 298, "backend"),
              // Work inside the backend's handling of A, its time from the file.
              MakeSpan(0xA, 0xA4, 0xA3, SpanKind::kInternal, 20, 150, 160, "backend")});
}

TEST(SpanPlacement, SpansOfUnmodifiedServicesGoToTheThreadsThatReadAndWroteTheirMessages) {
  KernelScenario k(kTwoRequestsOnOneLoop);
  spans::SpanSet set = TwoRequestsSpans();
  const std::vector<HttpMessage> messages = TwoRequestsMessages();
  const requests::SpanPlacement p = requests::PlaceSpans(k.graph(), 0, messages, &set);
  const std::vector<int32_t> tids = {10, 10, 10, 10, 20, 20, 20};
  for (size_t i = 0; i < set.spans.size(); ++i) {
    SCOPED_TRACE("span " + std::to_string(i));
    ASSERT_NE(p.worker[i], graph::kNoWorker);
    EXPECT_EQ(k.graph().worker(p.worker[i]).tid, tids[i]);
    EXPECT_EQ(set.spans[i].tid, tids[i]);
  }
  EXPECT_EQ(p.spans_by_source[static_cast<int>(ThreadSource::kHttpMessage)], 6u);
  EXPECT_EQ(p.spans_by_source[static_cast<int>(ThreadSource::kAncestor)], 1u);
  EXPECT_EQ(p.messages, 12u);
  EXPECT_EQ(p.messages_with_context, 4u);
  // Kernel times: a server span from its request's read to its response's write, a
  // client span from its request's write (or its own earlier start) to the answer's read.
  EXPECT_EQ(set.spans[0].start_ns, 100);
  EXPECT_EQ(set.spans[0].end_ns, 210);
  EXPECT_EQ(set.spans[1].start_ns, 120);
  EXPECT_EQ(set.spans[1].end_ns, 310);
  EXPECT_EQ(set.spans[4].start_ns, 112);
  EXPECT_EQ(set.spans[4].end_ns, 199);
  EXPECT_EQ(set.spans[5].start_ns, 200);
  EXPECT_EQ(set.spans[5].end_ns, 299);
  // The internal span moves by its process's median offset (kernel minus file start: +1, +1).
  EXPECT_EQ(set.spans[6].start_ns, 151);
  EXPECT_EQ(set.spans[6].end_ns, 161);
}

TEST(SpanPlacement, AnEventLoopWorksForTheRequestOfItsLastSocketMessage) {
  KernelScenario k(kTwoRequestsOnOneLoop);
  spans::SpanSet set = TwoRequestsSpans();
  const std::vector<HttpMessage> messages = TwoRequestsMessages();
  const requests::SpanPlacement p = requests::PlaceSpans(k.graph(), 0, messages, &set);
  requests::RequestOptions o;
  o.placement = &p;
  auto a = requests::AnalyzeRequests(k.graph(), set, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->requests.size(), 2u);
  EXPECT_EQ(a->threads_by_messages, 2u);
  // A: after its backend answered (201), the frontend's work is A's own, though B's span,
  // which started later, is still open. The 20 ns the loop spent reading B and calling B's
  // backend (120-135) are B's: A's path runs on the loop's thread there.
  EXPECT_EQ(Pieces(k, *a, 0),
            "10@100-120 running | 10@120-135 blocked_by_request(1) | 20@135-199 running | "
            "10@199-200 preempted | 10@200-210 running");
  EXPECT_TRUE(a->Detail(0).by_request.size() == 1 && a->Detail(0).by_request[0].second == 15);
  // B waited for the backend, which held its lock for A until 199, and then for the loop
  // while it finished A (the loop woke up for A's answer at 199).
  EXPECT_EQ(Pieces(k, *a, 1),
            "10@120-135 running | 20@135-199 blocked_by_request(0) | "
            "10@199-200 blocked_by_request(0) | 10@200-210 blocked_by_request(0) | "
            "10@210-211 running | 20@211-299 running | 10@299-300 preempted | 10@300-310 running");
  ASSERT_EQ(a->Detail(1).by_request.size(), 1u);
  EXPECT_EQ(a->Detail(1).by_request[0], (std::pair<int32_t, int64_t>{0, 75}));
}

TEST(SpanPlacement, AnEventLoopWaitingForATimerWorksForNoRequest) {
  // Requests A and B each start a 35 ns timer on one event loop (tid 20), which then waits
  // in epoll: both wait for their own timer, neither for the other.
  KernelScenario k(R"(
    0 cpu0 statedump 20 backend 5 pid 20
    10 cpu0 switch 0 -> 20
    15 cpu0 switch 20 S -> 0
    50 cpu0 hrtimer_entry
    50 cpu0 waking 20
    50 cpu0 hrtimer_exit
    51 cpu0 switch 0 -> 20
    60 cpu0 switch 20 S -> 0
    end 100
  )");
  spans::Span a = MakeSpan(0xA, 1, 0, spans::SpanKind::kServer, 20, 10, 52, "backend");
  spans::Span b = MakeSpan(0xB, 2, 0, spans::SpanKind::kServer, 20, 12, 54, "backend");
  a.peer_port = 5001;
  b.peer_port = 5002;
  spans::SpanSet set = Set({a, b});
  const std::vector<HttpMessage> messages = {
      Message(10, 20, false, 80, 5001, "GET /sleep HTTP/1.1"),
      Message(12, 20, false, 80, 5002, "GET /sleep HTTP/1.1"),
      Message(52, 20, true, 80, 5001, "HTTP/1.1 200 OK"),
      Message(54, 20, true, 80, 5002, "HTTP/1.1 200 OK"),
  };
  const requests::SpanPlacement p = requests::PlaceSpans(k.graph(), 0, messages, &set);
  requests::RequestOptions o;
  o.placement = &p;
  auto r = requests::AnalyzeRequests(k.graph(), set, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Pieces(k, *r, 0),
            "20@10-12 running | 20@12-15 blocked_by_request(1) | 20@15-50 timer | "
            "20@50-51 preempted | 20@51-52 running");
  // The loop woke up for A's timer: from then until A's answer is written it is A's, and B
  // waits for it.
  EXPECT_EQ(Pieces(k, *r, 1),
            "20@12-15 running | 20@15-50 timer | 20@50-51 blocked_by_request(0) | "
            "20@51-52 blocked_by_request(0) | 20@52-54 running");
  EXPECT_EQ(r->requests[0].dominant, Cause::kTimer);
  EXPECT_EQ(r->requests[1].dominant, Cause::kTimer);
  // The path was named after the request line.
  EXPECT_EQ(*set.spans[0].operation, "GET /sleep");
}

TEST(SpanPlacement, AThreadIdThatIsNoThreadOfTheSpansProcessIsIgnoredAndCounted) {
  // OTel's thread.id is a runtime's thread number in most languages: 1 here, which is
  // init's tid in the kernel, not a thread of the service (pid 10).
  KernelScenario k(R"(
    0 cpu0 statedump 1 init 5 pid 1
    0 cpu1 statedump 10 svc 5 pid 10
    10 cpu1 switch 0 -> 10
    end 100
  )");
  spans::Span s = MakeSpan(0xA, 1, 0, spans::SpanKind::kServer, 10, 20, 40, "svc");
  s.tid = 1;
  spans::Span own = MakeSpan(0xB, 2, 0, spans::SpanKind::kServer, 10, 20, 40, "svc");
  own.tid = 10;
  spans::SpanSet set = Set({s, own});
  const requests::SpanPlacement p = requests::PlaceSpans(k.graph(), 0, {}, &set);
  EXPECT_EQ(p.worker[0], graph::kNoWorker);
  EXPECT_EQ(set.spans[0].tid, 0);
  EXPECT_EQ(set.spans[0].placed_by, static_cast<uint8_t>(ThreadSource::kThreadIdIgnored));
  EXPECT_EQ(p.thread_ids_ignored, 1u);
  ASSERT_NE(p.worker[1], graph::kNoWorker);
  EXPECT_EQ(set.spans[1].placed_by, static_cast<uint8_t>(ThreadSource::kThreadAttribute));
  requests::RequestOptions o;
  o.placement = &p;
  auto a = requests::AnalyzeRequests(k.graph(), set, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->spans_without_thread, 1u);
  EXPECT_EQ(a->requests_without_thread, 1u);
  EXPECT_EQ(a->thread_ids_ignored, 1u);
  EXPECT_EQ(requests::UnplacedReason(ThreadSource::kThreadIdIgnored),
            "its thread.id is not a thread of its process (process.pid)");
}

TEST(SpanPlacement, ARequestWithoutContextIsTiedByItsConnectionsPortsNearestInTime) {
  // Two requests on one kept-alive connection (same ports): each root span takes the read
  // nearest its own start.
  KernelScenario k(R"(
    0 cpu0 statedump 10 svc 5 pid 10
    0 cpu0 switch 0 -> 10
    end 1000
  )");
  spans::Span a = MakeSpan(0xA, 1, 0, spans::SpanKind::kServer, 10, 99, 150, "svc");
  spans::Span b = MakeSpan(0xB, 2, 0, spans::SpanKind::kServer, 10, 499, 550, "svc");
  a.peer_port = b.peer_port = 5001;
  spans::SpanSet set = Set({b, a});
  const std::vector<HttpMessage> messages = {
      Message(100, 10, false, 80, 5001, "GET /x HTTP/1.1"),
      Message(151, 10, true, 80, 5001, "HTTP/1.1 200 OK"),
      Message(500, 10, false, 80, 5001, "GET /x HTTP/1.1"),
      Message(551, 10, true, 80, 5001, "HTTP/1.1 200 OK"),
  };
  requests::PlaceSpans(k.graph(), 0, messages, &set);
  EXPECT_EQ(set.spans[0].start_ns, 500);
  EXPECT_EQ(set.spans[0].end_ns, 551);
  EXPECT_EQ(set.spans[1].start_ns, 100);
  EXPECT_EQ(set.spans[1].end_ns, 151);
}

TEST(SpanPlacement, AbsurdSpanTimesFromAFileAreTakenWithoutOverflow) {
  KernelScenario k(R"(
    0 cpu0 statedump 10 svc 5 pid 10
    0 cpu0 switch 0 -> 10
    end 1000
  )");
  // A damaged or hostile file: a span at the far end of int64's range, and an internal
  // child moved by the process's offset from there.
  spans::Span root =
      MakeSpan(0xA, 1, 0, spans::SpanKind::kServer, 10, INT64_MIN, INT64_MIN + 5, "svc");
  root.peer_port = 5001;
  spans::Span child =
      MakeSpan(0xA, 2, 1, spans::SpanKind::kInternal, 10, INT64_MAX - 5, INT64_MAX, "svc");
  spans::SpanSet set = Set({root, child});
  const std::vector<HttpMessage> messages = {
      Message(100, 10, false, 80, 5001, "GET /x HTTP/1.1"),
      Message(151, 10, true, 80, 5001, "HTTP/1.1 200 OK"),
  };
  const requests::SpanPlacement p = requests::PlaceSpans(k.graph(), 0, messages, &set);
  EXPECT_EQ(set.spans[0].start_ns, 100);
  EXPECT_EQ(set.spans[0].end_ns, 151);
  EXPECT_EQ(set.spans[1].placed_by, static_cast<uint8_t>(ThreadSource::kAncestor));
  EXPECT_EQ(set.spans[1].end_ns, INT64_MAX);  // clamped, not wrapped
  EXPECT_LE(set.spans[1].start_ns, set.spans[1].end_ns);
  EXPECT_EQ(p.spans_by_source[static_cast<int>(ThreadSource::kHttpMessage)], 1u);
}

}  // namespace
}  // namespace causeway
