#include "analysis/clock_sync.h"

#include <fstream>

#include <gtest/gtest.h>

#include "analysis/sync_transforms_json.h"
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
