#include "analysis/clock_sync.h"

#include <fstream>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::analysis {
namespace {

std::string Write(const testing::TempDir& tmp, const std::string& text) {
  const std::string path = tmp.path() + "/clocks.json";
  std::ofstream(path) << text;
  return path;
}

TEST(ClockSyncTest, LoadsTheExactTransformsOfCausewaySync) {
  testing::TempDir tmp;
  const std::string path = Write(tmp, R"({"hosts": [
      {"host": "a", "reference": true, "connected": true, "via": "",
       "transform": {"origin_ns": 0, "slope_q40": 1099511627776, "offset_ns": 0}},
      {"host": "b", "reference": false, "connected": true, "via": "a", "accuracy_ns": 420.5,
       "transform": {"origin_ns": 5000, "slope_q40": 1099401686013, "offset_ns": 2000}},
      {"host": "c", "connected": false}]})");
  auto hosts = LoadTransformsFile(path);
  ASSERT_TRUE(hosts.ok()) << hosts.status().ToString();
  ASSERT_EQ(hosts->size(), 3u);
  EXPECT_EQ((*hosts)[1].transform.origin, 5000);
  EXPECT_EQ((*hosts)[1].transform.slope, 1099401686013);
  EXPECT_EQ((*hosts)[1].transform.offset, 2000);
  EXPECT_FALSE((*hosts)[2].connected);

  ClockSync cs;
  cs.applied = true;
  cs.source = path;
  cs.hosts = *hosts;
  const auto t = cs.Transforms();
  EXPECT_EQ(t.size(), 1u) << "the identity and unconnected hosts need no transform";
  EXPECT_EQ(t.at("b").Apply(5000), 2000);
  const std::string note = cs.Note();
  EXPECT_NE(note.find("b (±0.4 µs)"), std::string::npos) << note;
  EXPECT_NE(note.find("mapped to a"), std::string::npos) << note;
  EXPECT_NE(note.find("NOT synchronized (no usable messages, own clock kept): c"),
            std::string::npos)
      << note;
}

TEST(ClockSyncTest, BadFilesSayWhatAndWhere) {
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
    const std::string path = Write(tmp, text);
    auto r = LoadTransformsFile(path);
    ASSERT_FALSE(r.ok()) << text;
    const std::string msg = r.status().ToString();
    EXPECT_NE(msg.find("Cannot read clock transforms: file=" + path), std::string::npos) << msg;
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
  auto missing = LoadTransformsFile(tmp.path() + "/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("cannot open"), std::string::npos);
}

TEST(ClockSyncTest, OneHostNeedsNoSynchronization) {
  auto r = ResolveClockSync({testing::TestTrace("lttng/many-threads")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->applied);
  EXPECT_TRUE(r->Transforms().empty());
  EXPECT_EQ(r->Note(), "");
  ClockSyncOptions o;
  o.reference = "nowhere";
  auto bad = ResolveClockSync({testing::TestTrace("lttng/many-threads")}, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("Unknown reference host 'nowhere'"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace causeway::analysis
