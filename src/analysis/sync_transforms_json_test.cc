#include "analysis/sync_transforms_json.h"

#include <cmath>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::analysis {
namespace {

sync::HostTransform Host(std::string name, bool reference, bool connected, std::string via,
                         long double accuracy_ns, ClockTransform t) {
  sync::HostTransform h;
  h.host = std::move(name);
  h.reference = reference;
  h.connected = connected;
  h.via = std::move(via);
  h.accuracy_ns = accuracy_ns;
  h.transform = t;
  h.slope = static_cast<long double>(t.slope) / ClockTransform::kSlopeOne;
  h.offset = t.offset - h.slope * t.origin;
  return h;
}

TEST(SyncTransformsJsonTest, WhatSyncWritesReadsBackExactly) {
  SyncAnalysis r;
  r.hosts = {Host("a", true, true, "", 0, {}),
             Host("b", false, true, "a", 420.5, {5000, 1099401686013, 2000}),
             Host("c", false, true, "b", INFINITY, {-7, 1099511627777, -123456789012345}),
             Host("d", false, false, "", INFINITY, {})};
  sync::PairReport p;
  p.a = "a";
  p.b = "b";
  p.result.a_to_b = 3;
  r.pairs.push_back(p);
  r.two_step = true;
  r.fine.matched_across_hosts = 6;
  const std::string text = SyncAnalysisJson(r);
  auto back = ParseTransformsJson(text, "clocks.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  ASSERT_EQ(back->size(), r.hosts.size());
  for (size_t i = 0; i < r.hosts.size(); ++i) {
    const sync::HostTransform& x = r.hosts[i];
    const sync::HostTransform& y = (*back)[i];
    EXPECT_EQ(y.host, x.host);
    EXPECT_EQ(y.reference, x.reference) << x.host;
    EXPECT_EQ(y.connected, x.connected) << x.host;
    EXPECT_EQ(y.via, x.via) << x.host;
    EXPECT_EQ(static_cast<double>(y.accuracy_ns), static_cast<double>(x.accuracy_ns)) << x.host;
    if (!x.connected) continue;
    EXPECT_EQ(y.transform.origin, x.transform.origin) << x.host;
    EXPECT_EQ(y.transform.slope, x.transform.slope) << x.host;
    EXPECT_EQ(y.transform.offset, x.transform.offset) << x.host;
    EXPECT_EQ(y.slope, x.slope) << x.host;
    EXPECT_EQ(y.offset, x.offset) << x.host;
  }
  // The counters a script reads are in the document too.
  EXPECT_NE(text.find("\"two_step\": true"), std::string::npos) << text;
  EXPECT_NE(text.find("\"coarse_step\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"matched_across_hosts\": 6"), std::string::npos) << text;
}

TEST(SyncTransformsJsonTest, BadFilesSayWhatAndWhere) {
  testing::TempDir tmp;
  const std::pair<std::string, std::string> cases[] = {
      {"{", "parse error"},
      {"[]", "hosts: missing or not an array"},
      {R"({"hosts": [{"connected": true}]})", "hosts[0].host: missing or not a string"},
      {R"({"hosts": [{"host": "b", "connected": true}]})",
       "hosts[0].transform: missing for a connected host"},
      {R"({"hosts": [{"host": "b", "connected": true, "transform": {"origin_ns": 1,
          "slope_q40": 1.5, "offset_ns": 0}}]})",
       "hosts[0].transform.slope_q40: missing or not an integer"},
      {R"({"hosts": [{"host": "b", "connected": true, "transform": {"origin_ns": 1,
          "slope_q40": 0, "offset_ns": 0}}]})",
       "hosts[0].transform.slope_q40: must be positive"},
      {R"({"hosts": [{"host": "b"}, {"host": "b"}]})", "hosts[1].host: host listed twice"},
  };
  for (const auto& [text, want] : cases) {
    auto r = ParseTransformsJson(text, "clocks.json");
    ASSERT_FALSE(r.ok()) << text;
    const std::string msg = r.status().ToString();
    EXPECT_NE(msg.find("Cannot read clock transforms: file=clocks.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
  auto missing = LoadTransformsFile(tmp.path() + "/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace causeway::analysis
