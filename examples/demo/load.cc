#include "load.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "demo_tracing.h"
#include "service.h"

namespace causeway::demo {

namespace {
using Clock = std::chrono::steady_clock;
constexpr int64_t kCustomers = 100;  // the customer service's table: ids 1..100
}  // namespace

Status ValidateLoad(const LoadOptions& o) {
  if (o.requests < 0) return InvalidArgument("--requests must be 0 (no limit) or more");
  if (!(o.duration_s >= 0)) return InvalidArgument("--duration must be 0 (no limit) or more");
  if (o.requests == 0 && o.duration_s == 0)
    return InvalidArgument("--requests and --duration are both 0: the load would never end");
  if (!(o.rate >= 0)) return InvalidArgument("--rate must be 0 (as fast as possible) or more");
  if (o.burst < 1) return InvalidArgument("--burst must be 1 or more");
  if (!(o.warmup_s >= 0)) return InvalidArgument("--warmup must be 0 or more seconds");
  if (o.duration_s > 0 && o.warmup_s >= o.duration_s)
    return InvalidArgument(
        fmt::format("--warmup {} is not shorter than --duration {}: nothing would be measured",
                    o.warmup_s, o.duration_s));
  if (o.concurrency < 1 || o.concurrency > 256)
    return InvalidArgument("--concurrency must be between 1 and 256");
  if (o.burst > o.concurrency)
    return InvalidArgument(
        fmt::format("--burst {} is more than --concurrency {}: a burst could not start together",
                    o.burst, o.concurrency));
  if (o.clients.empty()) return InvalidArgument("--clients needs at least one name");
  for (const auto& c : o.clients)
    if (c.empty()) return InvalidArgument("--clients has an empty name");
  if (o.url.rfind("http://", 0) != 0)
    return InvalidArgument(fmt::format("--url must start with http://, got '{}'", o.url));
  return Status::Ok();
}

LoadResult RunLoad(const LoadOptions& o, const std::atomic<bool>& stop) {
  std::mutex mutex;  // guards `result`
  LoadResult result;
  std::atomic<int64_t> next{0};
  // Requests are scheduled from a common origin a little ahead, so that the first burst
  // starts together even though the workers start one after another.
  const Clock::time_point origin = Clock::now() + std::chrono::milliseconds(20);
  const auto burst_gap = o.rate > 0 ? std::chrono::duration<double>(o.burst / o.rate)
                                    : std::chrono::duration<double>(0);
  const Clock::time_point end = o.duration_s > 0
                                    ? origin + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(o.duration_s))
                                    : Clock::time_point::max();
  const Clock::time_point measured_from = origin + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(o.warmup_s));
  Clock::time_point last_answer = measured_from;

  auto worker = [&] {
    httplib::Client client(o.url);
    client.set_keep_alive(false);  // as between the services: see CallService
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(std::chrono::seconds(5));
    client.set_read_timeout(std::chrono::seconds(120));  // a saturated net fault is slow
    while (!stop) {
      const int64_t i = next.fetch_add(1);
      if (o.requests > 0 && i >= o.requests) break;
      const Clock::time_point start =
          origin + std::chrono::duration_cast<Clock::duration>(burst_gap * (i / o.burst));
      if (start >= end || (o.rate == 0 && Clock::now() >= end)) break;
      // Short sleeps so that a stop request is seen within 50 ms.
      while (!stop && Clock::now() < start)
        std::this_thread::sleep_for(
            std::min<Clock::duration>(start - Clock::now(), std::chrono::milliseconds(50)));
      if (stop) break;

      httplib::Headers headers;
      DemoSpan span = StartClientSpan("GET /dispatch", std::nullopt, headers);
      const int64_t customer = i % kCustomers + 1;
      span.SetInt("customer.id", customer);
      // Each request starts a fresh baggage: what the client's tracepoint packs travels with
      // this request only.
      pivot::BaggageScope baggage(nullptr);
      const std::string& client_name = o.clients[static_cast<size_t>(i) % o.clients.size()];
      CAUSEWAY_TRACEPOINT(tp_client_request, client_name, customer);
      InjectBaggage(headers);
      const Clock::time_point sent = Clock::now();
      httplib::Result r = client.Get(fmt::format("/dispatch?customer={}", customer), headers);
      const Clock::time_point answered = Clock::now();
      std::string error;
      if (!r) {
        error = fmt::format("request {} to {}: {}", i, o.url, DescribeHttpError(r.error()));
      } else if (r->status != 200) {
        error = fmt::format("request {} to {}: HTTP {}: {}", i, o.url, r->status, r->body);
      }
      if (r) span.SetInt("http.status_code", r->status);
      span.End();
      std::lock_guard lock(mutex);
      LoadResult::Client& tally = result.clients[client_name];
      ++tally.sent;
      if (error.empty()) {
        ++tally.ok;
        tally.bytes += static_cast<int64_t>(r->body.size());
      }
      last_answer = std::max(last_answer, answered);
      if (error.empty() && start < measured_from) {
        ++result.warmup_requests;
      } else if (error.empty()) {
        result.latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(answered - sent).count());
      } else {
        if (result.errors++ == 0) result.first_error = error;
      }
    }
  };
  std::vector<std::thread> workers;
  for (int w = 0; w < o.concurrency; ++w) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  result.wall_s = std::chrono::duration<double>(last_answer - measured_from).count();
  return result;
}

LatencySummary Summarize(std::vector<double> ms, double wall_s) {
  LatencySummary s;
  s.count = static_cast<int64_t>(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double p) {
    const auto k = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(ms.size())));
    return ms[std::clamp<size_t>(k, 1, ms.size()) - 1];
  };
  double sum = 0;
  for (double v : ms) sum += v;
  s.mean_ms = sum / static_cast<double>(ms.size());
  s.p50_ms = rank(50);
  s.p99_ms = rank(99);
  s.max_ms = ms.back();
  s.throughput_rps = wall_s > 0 ? static_cast<double>(ms.size()) / wall_s : 0;
  return s;
}

std::string SummaryText(const LoadResult& r, const LatencySummary& s, const std::string& context) {
  std::string out = fmt::format(
      "causeway-demo: {} requests ok, {} failed, in {:.2f} s ({:.1f} req/s); {}\n"
      "latency ms: mean {:.2f}  p50 {:.2f}  p99 {:.2f}  max {:.2f}\n",
      s.count, r.errors, r.wall_s, s.throughput_rps, context, s.mean_ms, s.p50_ms, s.p99_ms,
      s.max_ms);
  if (r.errors) out += fmt::format("first error: {}\n", r.first_error);
  return out;
}

void StartLoadPivot(const LoadOptions& o, std::string_view service) {
  if (!o.pivot_nats.empty()) setenv("CAUSEWAY_PIVOT_NATS", o.pivot_nats.c_str(), 1);
  StartPivot(service);
}

nlohmann::json SummaryJson(const LoadResult& r, const LatencySummary& s) {
  nlohmann::json clients = nlohmann::json::object();
  for (const auto& [name, c] : r.clients)
    clients[name] = {{"sent", c.sent}, {"ok", c.ok}, {"bytes", c.bytes}};
  return {{"clients", std::move(clients)},
          {"count", s.count},
          {"errors", r.errors},
          {"first_error", r.first_error},
          {"mean_ms", s.mean_ms},
          {"p50_ms", s.p50_ms},
          {"p99_ms", s.p99_ms},
          {"max_ms", s.max_ms},
          {"throughput_rps", s.throughput_rps},
          {"duration_s", r.wall_s},
          {"warmup_requests", r.warmup_requests}};
}

}  // namespace causeway::demo
