// Requests' critical paths: spans joined with the kernel execution graph (README.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "graph/cpu_holders.h"
#include "graph/critical_path.h"
#include "graph/execution_graph.h"
#include "graph/merged_paths.h"
#include "requests/active_request_steps.h"
#include "requests/span_placement.h"
#include "spans/span_model.h"

namespace causeway::requests {

enum class Cause : uint8_t {
  kRunning,
  kPreempted,
  kBlockedByRequest,
  kWaitingForThread,
  kNetwork,
  kDisk,
  kTimer,
  kInterrupted,
  kBlocked,
  kUnknown,
  kOther,
  kDiskQueue,  // the awaited block request queued in the block layer or throttled
};
inline constexpr int kNumCauses = 12;
std::string_view CauseName(Cause c);  // JSON keys: "running", "blocked_by_request", ...

struct Piece {
  graph::WorkerId worker = graph::kNoWorker;
  graph::State state = graph::State::kUnknown;
  Cause cause = Cause::kUnknown;
  int64_t start = 0;
  int64_t end = 0;
  int32_t other_request = -1;  // kBlockedByRequest: index in RequestAnalysis::requests
};

// A piece of a thread's critical path over a run of overlapping requests (a path range),
// cut where the active request of its thread changes. Stored once for every request whose
// span holds it (seed 000 Alg. 2's shared states): what it is to one request (its own time,
// or "blocked by" the request active then) is worked out when that request is looked at, so
// that N requests overlapping on one thread take memory in N, not N².
struct SharedPiece {
  int64_t start = 0, end = 0;
  graph::WorkerId worker = graph::kNoWorker;  // kNoWorker: no segment there (UNKNOWN)
  int32_t active = -1;  // the request `worker` worked for then (-1: none, or a loop waiting)
  graph::State state = graph::State::kUnknown;
};

// The critical path of one thread over one run of its overlapping requests, labelled.
struct SharedPath {
  graph::WorkerId worker = graph::kNoWorker;
  int64_t begin = 0, end = 0;
  std::vector<SharedPiece> pieces;  // tile [begin, end] in order, none empty
};

struct Request {
  size_t root = 0;  // index of the root span in the SpanSet
  spans::TraceId trace;
  graph::WorkerId worker = graph::kNoWorker;  // the thread running the root span
  int64_t start = 0, end = 0;
  int32_t shared_path = -1;  // its slice of RequestAnalysis::shared_paths (-1: no thread)
  int64_t by_cause[kNumCauses] = {};
  // Of the blocked-by-request time, the kernel states of the threads in the way.
  int64_t blocked_by_state[graph::kNumStates] = {};
  Cause dominant = Cause::kUnknown;
  int64_t latency() const { return end - start; }
};

// What a request's path holds beyond its sums: worked out on demand from its slice of the
// shared path (RequestAnalysis::Detail), in time proportional to that slice. Kept for every
// request, these lists grow with the square of the requests overlapping on a thread.
struct RequestDetail {
  std::vector<Piece> path;             // tiles [start, end]
  std::vector<graph::PathLink> links;  // signals received inside it (RequestOptions::keep_paths)
  std::vector<std::pair<int32_t, int64_t>> by_request;         // blocked by, largest first
  std::vector<std::pair<graph::WorkerId, int64_t>> by_thread;  // time on, largest first
  graph::WorkerId dominant_thread = graph::kNoWorker;          // holds most of the dominant cause
  int32_t dominant_request = -1;  // kBlockedByRequest dominant: the largest in the way
  // Its waits for a CPU (pieces of cause kPreempted): who held the CPU, and how much was
  // throttling by a cgroup's quota (empty when the analysis has no graph).
  graph::CpuWaitSummary cpu_wait;
};

struct OperationSummary {
  std::string service, operation;
  int64_t count = 0;
  int64_t total_latency = 0, max_latency = 0;
  int64_t by_cause[kNumCauses] = {};
};

struct RequestAnalysis {
  std::vector<Request> requests;  // in root-span start order
  std::vector<OperationSummary> operations;
  uint64_t spans = 0;
  uint64_t spans_synced = 0;          // times and thread from user-space sync events
  uint64_t span_lines_cut_short = 0;  // span file lines lost to a writer's crash
  // Spans the readers dropped (SpanSet's counts): a span id already read (in any trace), a
  // start before 1970.
  uint64_t spans_duplicate_id = 0;
  uint64_t spans_negative_time = 0;
  // Parent chains that loop (a span its own parent, or a cycle): each one's earliest span
  // was made a root. Roots beyond the first in their trace: each is a request of its own.
  uint64_t parent_cycles = 0;
  uint64_t extra_roots = 0;
  uint64_t sync_traces_damaged = 0;  // user-space traces read up to their damage (SpanSet's)
  // Kernel timestamps that went back in time and were clamped (a damaged stream), and the
  // largest step back: set by whoever read the kernel trace, as kernel_events_discarded.
  uint64_t kernel_timestamps_clamped = 0;
  uint64_t kernel_max_backward_ns = 0;
  uint64_t sync_events_discarded = 0;  // user-space events the tracer lost (SpanSet's)
  // Kernel events the tracer lost: set by whoever read the kernel trace (the analysis sees
  // the graph only, where their time is UNKNOWN), so that the reports count them.
  uint64_t kernel_events_discarded = 0;
  uint64_t spans_without_thread = 0;     // not associated with any thread
  uint64_t requests_without_thread = 0;  // root span's thread unknown: no path
  uint64_t spans_outside_trace = 0;      // thread not found in the kernel trace at that time
  // How the spans got their threads (ThreadSource), when they were placed (PlaceSpans).
  uint64_t spans_by_source[kNumThreadSources] = {};
  uint64_t thread_ids_ignored = 0;  // thread.id attributes that named no thread of the process
  uint64_t http_messages = 0;       // in the kernel traces
  uint64_t http_messages_with_context = 0;
  uint64_t http_messages_truncated = 0;
  // Threads whose active request came from their socket messages (no activation events).
  uint64_t threads_by_messages = 0;
  // The requests' threads' critical paths merged, shared states stored once (seed 000
  // Alg. 2); every request's path is a slice of one of them. Nodes and links are kept with
  // RequestOptions::keep_paths only.
  graph::MergedPaths merged;
  // The same paths labelled with their threads' active requests, one per path range (as
  // merged.paths): each request's path is the slice Request::shared_path names.
  std::vector<SharedPath> shared_paths;
  // The graph analyzed, which Detail reads for who held the CPU; it must outlive Detail's
  // calls (null: Detail leaves cpu_wait empty).
  const graph::ExecutionGraph* analyzed_graph = nullptr;
  // Request ri's path, links, time by request and by thread, dominant thread and request,
  // and who held the CPU while it waited for one.
  RequestDetail Detail(size_t ri) const;
  // The shared pieces request ri's path is cut from: as many as Detail's path has, or more
  // (Detail joins neighbours that are the same to it). Counted without building the path.
  uint64_t SharedPieces(size_t ri) const;
  // Per worker, the request it worked for over time (steps in time order, req -1: none),
  // with RequestOptions::keep_thread_requests only.
  std::vector<std::vector<Step>> thread_requests;
  // The service of the spans a thread ran (threads of one executable share their name).
  std::unordered_map<graph::WorkerId, std::string> thread_service;
  // The service of each process (host, pid) some thread of which ran spans: threads that
  // never ran a span (a pool, a listener, a lock holder) are named by their process.
  std::map<std::pair<uint32_t, int32_t>, std::string> process_service;
  // "tid 1234 (customer)": the thread's service when known, else its process's service,
  // else its name.
  std::string ThreadLabel(const graph::ExecutionGraph& g, graph::WorkerId w) const;
  // The thread's service (of its own spans, else of its process's), or nullptr.
  const std::string* ServiceOf(const graph::ExecutionGraph& g, graph::WorkerId w) const;
};

struct RequestOptions {
  std::string host;  // the host whose threads the spans ran on (default: the first one)
  // False: the merged paths' nodes and links are not kept, and Detail() gives no links
  // (every path is still computed, and labelled in shared_paths). Listings need neither, and
  // the nodes are a large part of the analysis' memory.
  bool keep_paths = true;
  // Keep each thread's active-request steps (RequestAnalysis::thread_requests: the index).
  bool keep_thread_requests = false;
  // The spans' threads as PlaceSpans found them (the same set, same order), and what the
  // threads' socket messages say they work for. Null: the spans' own thread ids, looked up
  // on `host`.
  const SpanPlacement* placement = nullptr;
};

StatusOr<RequestAnalysis> AnalyzeRequests(const graph::ExecutionGraph& g,
                                          const spans::SpanSet& spans,
                                          const RequestOptions& options = {});

// AnalyzeRequests for the listings, which need no span but the requests' roots: once the
// threads are associated with the requests, `*spans` keeps only their root spans, in request
// order (Request::root and by_id index those), before the paths are computed, so that the
// other spans add nothing to the memory the paths take.
StatusOr<RequestAnalysis> AnalyzeRequestsRootSpansOnly(const graph::ExecutionGraph& g,
                                                       spans::SpanSet* spans,
                                                       const RequestOptions& options = {});

// "4bf92f35…" prefix or full trace id, or the root span id: the matching request's index.
StatusOr<size_t> FindRequest(const RequestAnalysis& a, const spans::SpanSet& s,
                             std::string_view id);

}  // namespace causeway::requests
