#include "report/request_diagnosis.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/cpu_wait_format.h"

namespace causeway::report {

using requests::Cause;

std::string RequestDiagnosis(const graph::ExecutionGraph& g, const spans::SpanSet& spans,
                             const requests::RequestAnalysis& a, const requests::Request& r) {
  return RequestDiagnosis(g, spans, a, r, a.Detail(static_cast<size_t>(&r - a.requests.data())));
}

std::string RequestDiagnosis(const graph::ExecutionGraph& g, const spans::SpanSet& spans,
                             const requests::RequestAnalysis& a, const requests::Request& r,
                             const requests::RequestDetail& detail) {
  const int64_t d = r.by_cause[static_cast<int>(r.dominant)];
  const double share =
      r.latency() > 0 ? 100.0 * static_cast<double>(d) / static_cast<double>(r.latency()) : 0;
  const std::string on = detail.dominant_thread != graph::kNoWorker
                             ? " on " + a.ThreadLabel(g, detail.dominant_thread)
                             : "";
  switch (r.dominant) {
    case Cause::kBlockedByRequest: {
      const requests::Request& x = a.requests[detail.dominant_request];
      const spans::Span& xs = spans.spans[x.root];
      // The named request's own share; the others' together after them.
      int64_t own = 0;
      for (const auto& [request, t] : detail.by_request)
        if (request == detail.dominant_request) own = t;
      const auto percent = [&r](int64_t t) {
        return r.latency() > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(r.latency())
                               : 0.0;
      };
      std::string out = fmt::format("blocked by request {} ({} {}){} ({:.0f}%)",
                                    spans::TraceIdHex(x.trace).substr(0, 8), *xs.service,
                                    *xs.operation, on, percent(own));
      if (detail.by_request.size() > 1)
        out += fmt::format(" and by {} other request(s) ({:.0f}%)", detail.by_request.size() - 1,
                           percent(d - own));
      // What the requests in the way were doing: a queue in front of a slow network, a lock
      // held across a sleep...
      int top = 0;
      for (int st = 1; st < graph::kNumStates; ++st)
        if (r.blocked_by_state[st] > r.blocked_by_state[top]) top = st;
      if (r.blocked_by_state[top] > 0)
        out += fmt::format("; meanwhile they were mostly {} ({:.0f}%)",
                           graph::StateNameLower(static_cast<graph::State>(top)),
                           100.0 * static_cast<double>(r.blocked_by_state[top]) /
                               static_cast<double>(std::max<int64_t>(1, d)));
      return out;
    }
    case Cause::kPreempted:
      // "throttled by cgroup quota (/demo) 80.000 ms; CPU held by idle 78.000 ms", or
      // "waiting for a CPU held by tid 12 (stress) 94.600 ms".
      return fmt::format("preempted: {}{} ({:.0f}%)",
                         CpuWaitSummaryText(g, detail.cpu_wait,
                                            [&](graph::WorkerId w) { return a.ThreadLabel(g, w); }),
                         on, share);
    case Cause::kWaitingForThread:
      return fmt::format("waiting for a thread serving no request{} ({:.0f}%)", on, share);
    case Cause::kNetwork:
      return fmt::format("network{} ({:.0f}%)", on, share);
    case Cause::kDisk:
      return fmt::format("disk I/O{} ({:.0f}%)", on, share);
    case Cause::kTimer:
      return fmt::format("timer: sleeping or timing out{} ({:.0f}%)", on, share);
    case Cause::kInterrupted:
      return fmt::format("interrupt handling{} ({:.0f}%)", on, share);
    case Cause::kBlocked:
      return fmt::format("blocked, cause not in the trace{} ({:.0f}%)", on, share);
    case Cause::kUnknown: {
      if (r.worker == graph::kNoWorker) {
        // No path at all: say why the request has no thread.
        const spans::Span& root = spans.spans[r.root];
        auto source = static_cast<requests::ThreadSource>(root.placed_by);
        if (source == requests::ThreadSource::kNone && root.tid != 0)
          source = requests::ThreadSource::kThreadNotInTrace;
        return fmt::format("no thread: {} ({:.0f}%)", requests::UnplacedReason(source), share);
      }
      return fmt::format("unknown: {}{} ({:.0f}%)",
                         a.kernel_events_discarded > 0 ? "lost events, or outside the kernel trace"
                                                       : "the kernel trace does not tell",
                         on, share);
    }
    case Cause::kRunning:
      return fmt::format("running: CPU work{} ({:.0f}%)", on, share);
    case Cause::kOther:
      return fmt::format("other kernel states{} ({:.0f}%)", on, share);
    case Cause::kDiskQueue:
      return fmt::format("disk I/O queued or throttled before the device{} ({:.0f}%)", on, share);
  }
  return {};
}

}  // namespace causeway::report
