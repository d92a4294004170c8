// The load generator: /dispatch requests at a fixed rate, in bursts, and their latency.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace causeway::demo {

struct LoadOptions {
  std::string url = "http://127.0.0.1:8080";  // the frontend
  int64_t requests = 0;                       // stop after this many (0: no limit)
  double duration_s = 5;                      // stop sending after this long (0: no limit)
  double rate = 10;                           // requests per second (0: as fast as possible)
  int burst = 4;                              // requests that start together
  int concurrency = 16;                       // requests in flight at most
  // Requests scheduled in the first `warmup_s` seconds are sent but left out of the latency
  // summary and of the throughput (benchmarks measure the steady state).
  double warmup_s = 0;
  // The load's clients: request i is sent by clients[i % n], named in the demo:client_request
  // tracepoint and counted in LoadResult::clients (what Pivot Tracing queries are checked
  // against).
  std::vector<std::string> clients = {"web", "mobile", "partner"};
  // NATS server of `causeway pivot`: the load (and, under `run`, every service) starts a Pivot
  // Tracing agent there. Empty: $CAUSEWAY_PIVOT_NATS, if set.
  std::string pivot_nats;
};

// Exports pivot_nats as CAUSEWAY_PIVOT_NATS (the services `run` spawns inherit it) and starts
// this process's agent as `service`.
void StartLoadPivot(const LoadOptions& options, std::string_view service);

// An error names the flag and the allowed values.
Status ValidateLoad(const LoadOptions& options);

struct LoadResult {
  std::vector<double> latencies_ms;  // of the requests that succeeded
  int64_t errors = 0;
  std::string first_error;
  double wall_s = 0;            // from the first measured scheduled start to the last answer
  int64_t warmup_requests = 0;  // sent during the warm-up, not in latencies_ms
  struct Client {
    int64_t sent = 0;
    int64_t ok = 0;
    int64_t bytes = 0;  // body bytes of the successful answers
  };
  std::map<std::string, Client> clients;  // warm-up included: every request sent
};

// Sends the requests; each is the root of a trace when tracing is on. Stops claiming new
// requests once `stop` is true (the ones in flight finish).
LoadResult RunLoad(const LoadOptions& options, const std::atomic<bool>& stop);

struct LatencySummary {
  int64_t count = 0;  // successful requests
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
  double throughput_rps = 0;  // successful requests per second of wall time
};

// Percentiles by the nearest-rank method: the smallest latency with at least p% of the
// requests at or below it.
LatencySummary Summarize(std::vector<double> latencies_ms, double wall_s);

// Two lines of text, or the JSON object of the README; `context` names the faults and the
// tracing mode ("faults: none; tracing: spans").
std::string SummaryText(const LoadResult& result, const LatencySummary& s,
                        const std::string& context);
nlohmann::json SummaryJson(const LoadResult& result, const LatencySummary& s);

}  // namespace causeway::demo
