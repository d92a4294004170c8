// Checks on a recording of the OpenTelemetry test services (tests/otel: a Node.js frontend
// and backend with the official OpenTelemetry JS SDK and no Causeway code), shared by the
// test on the committed recording and the one that records this machine.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_util.h"

namespace causeway::testing {

struct OtelExpectations {
  size_t requests = 80;  // tests/otel/run.sh's defaults: 10 rounds of 4 routes, 2 x 5 bursts of 4
  // Of the burst requests on /api/lock, how many at least are blocked by another /api/lock
  // request (each burst of 4 queues 3 behind the first), and how many of those on the
  // backend's event loop (where the lock is; the others waited for the frontend's loop
  // busy with other requests' work).
  size_t lock_blocked_at_least = 10;
  size_t lock_blocked_on_backend_at_least = 8;
  // The share of /api/sleep requests whose dominant cause is the timer, at least.
  double sleep_timer_share = 0.9;
  // Of the 10 /api/cpu requests, how many at least are running on the backend's loop (the
  // others, on a busy machine, waited for a CPU: preempted).
  int cpu_running_on_backend_at_least = 10;
};

inline nlohmann::json CliJson(const std::string& args) {
  std::string err;
  const auto res = RunCli(args, &err);
  EXPECT_EQ(res.exit_code, 0) << args << ": " << err;
  nlohmann::json j = nlohmann::json::parse(res.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << res.out.substr(0, 2000);
  return j;
}

// Spans placed on the right threads with no help from the services, each route's dominant
// cause, and concurrent requests on one event loop not blamed for each other's work.
inline void ExpectOtelDiagnoses(const std::string& dir, const OtelExpectations& want) {
  const nlohmann::json j = CliJson("requests " + dir + " --format json --limit -1");
  const nlohmann::json& c = j["counters"];
  ASSERT_EQ(j["requests"].size(), want.requests) << c.dump();
  // Three spans a request (frontend server and client, backend server), every one placed
  // by the HTTP messages the kernel saw.
  EXPECT_EQ(c["spans"], 3 * want.requests);
  EXPECT_EQ(c["spans_by_thread_source"]["http_message"], 3 * want.requests) << c.dump();
  EXPECT_EQ(c["spans_without_thread"], 0);
  EXPECT_EQ(c["requests_without_thread"], 0);
  EXPECT_EQ(c["spans_outside_trace"], 0);
  EXPECT_GE(c["http_messages_with_context"], want.requests);

  std::map<std::string, std::string> route_of;  // trace id -> operation
  std::set<int64_t> frontend_tids;
  for (const nlohmann::json& r : j["requests"]) {
    route_of[r["trace_id"]] = r["operation"];
    // The root span runs on the frontend's event loop: its main thread.
    const nlohmann::json& t = r["thread"];
    ASSERT_TRUE(t.is_object()) << r.dump();
    EXPECT_EQ(t.value("service", ""), "frontend") << r.dump();
    EXPECT_EQ(t["tid"], t["pid"]) << r.dump();
    frontend_tids.insert(t["tid"].get<int64_t>());
    int64_t sum = 0;
    for (const auto& [cause, ns] : r["by_cause"].items()) sum += ns.get<int64_t>();
    EXPECT_EQ(sum, r["latency_ns"].get<int64_t>()) << r.dump();
  }
  EXPECT_EQ(frontend_tids.size(), 1u);

  std::map<std::string, int> count, sleep_timer;
  size_t lock_blocked = 0, lock_blocked_on_backend = 0;
  int cpu_running_on_backend = 0;
  for (const nlohmann::json& r : j["requests"]) {
    const std::string route = r["operation"];
    const std::string cause = r["dominant_cause"];
    const std::string diagnosis = r["diagnosis"];
    ++count[route];
    if (route == "GET /api/cpu") {
      // The backend's CPU loop: the backend span was placed on the backend's event loop.
      cpu_running_on_backend +=
          cause == "running" && diagnosis.find("(backend)") != std::string::npos;
    } else if (route == "GET /api/sleep") {
      sleep_timer[route] += cause == "timer";
    } else if (route == "GET /api/lock" && cause == "blocked_by_request") {
      ++lock_blocked;
      // Held back by another /api/lock request.
      const std::string blocker = r["blocked_by_requests"][0]["trace_id"];
      EXPECT_EQ(route_of[blocker], "GET /api/lock") << r.dump();
      lock_blocked_on_backend += diagnosis.find("(backend)") != std::string::npos;
    }
    // Its own last step (the frontend's CPU work after the backend answered, then the
    // answer) is its own time, whatever other request on the loop started later.
    const nlohmann::json one =
        CliJson("request " + dir + " " + r["trace_id"].get<std::string>() + " --format json");
    ASSERT_FALSE(one["path"].empty());
    const nlohmann::json& last = one["path"].back();
    EXPECT_NE(last["cause"], "blocked_by_request") << last.dump();
    EXPECT_EQ(last["thread"].value("service", ""), "frontend") << last.dump();
  }
  EXPECT_EQ(count["GET /api/cpu"], 10);
  EXPECT_EQ(count["GET /api/disk"], 10);
  EXPECT_EQ(count["GET /api/lock"], 30);
  EXPECT_EQ(count["GET /api/sleep"], 30);
  EXPECT_GE(sleep_timer["GET /api/sleep"], want.sleep_timer_share * count["GET /api/sleep"]);
  EXPECT_GE(cpu_running_on_backend, want.cpu_running_on_backend_at_least);
  EXPECT_GE(lock_blocked, want.lock_blocked_at_least);
  EXPECT_GE(lock_blocked_on_backend, want.lock_blocked_on_backend_at_least);
}

}  // namespace causeway::testing
