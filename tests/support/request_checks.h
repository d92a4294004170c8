// Checks on `causeway requests --format json` output shared by the request tests on live and
// committed recordings of the demo.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace causeway::testing {

// How many of the `n` slowest requests have `cause` as their dominant cause.
inline int SlowestWithCause(const nlohmann::json& j, size_t n, const std::string& cause) {
  int count = 0;
  for (size_t i = 0; i < n && i < j["requests"].size(); ++i)
    count += j["requests"][i]["dominant_cause"] == cause;
  return count;
}

// Every request is there, every span has its thread and its sync events, and each request's
// causes sum to its latency.
inline void ExpectConsistent(const nlohmann::json& j, size_t requests) {
  EXPECT_EQ(j["requests"].size(), requests);
  EXPECT_EQ(j["counters"]["requests_without_thread"], 0);
  EXPECT_EQ(j["counters"]["spans_without_thread"], 0);
  EXPECT_EQ(j["counters"]["spans_synced"], j["counters"]["spans"]);
  for (const nlohmann::json& r : j["requests"]) {
    int64_t sum = 0;
    for (const auto& [cause, ns] : r["by_cause"].items()) sum += ns.get<int64_t>();
    EXPECT_EQ(sum, r["latency_ns"].get<int64_t>()) << r.dump();
  }
}

// The service of a path piece's or a link's thread ("-" when it has none).
inline std::string ServiceOf(const nlohmann::json& thread) {
  return thread.is_object() ? thread.value("service", "?") : std::string("-");
}

}  // namespace causeway::testing
