#include "pivot/protocol.h"

#include <cmath>

#include <gtest/gtest.h>

namespace causeway::pivot {
namespace {

TEST(PivotProtocol, InstallRoundTripsAndIsChecked) {
  InstallCommand c{"q7", "From x In a:b", 250, 5000, "_INBOX.x.results"};
  auto d = DecodeInstall(Encode(c));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->id, "q7");
  EXPECT_EQ(d->query, "From x In a:b");
  EXPECT_EQ(d->interval_ms, 250);
  EXPECT_EQ(d->lease_ms, 5000);
  EXPECT_EQ(d->results, "_INBOX.x.results");
  EXPECT_NE(DecodeInstall(R"({"id":"q","query":"x","results":"r","interval_ms":1})")
                .status()
                .message()
                .find("interval_ms must be in"),
            std::string::npos);
  EXPECT_NE(DecodeInstall(R"({"query":"x"})").status().message().find("Cannot decode install"),
            std::string::npos);
  EXPECT_FALSE(DecodeInstall("[1,2]").ok());
  EXPECT_FALSE(DecodeInstall("").ok());
}

TEST(PivotProtocol, ResultsKeepValueTypesAndPartials) {
  ResultsMessage m;
  m.agent = {"h:1", "h", 1, "svc"};
  m.id = "q";
  m.seq = 3;
  m.final = true;
  m.time_ns = 123;
  Partial p;
  p.Add(2);
  p.Add(5.5);
  m.rows.push_back({{Value::String("web"), Value::Int(-4), Value::Double(1.0), Value::Bool(true),
                     Value(), Value::Double(INFINITY)},
                    {p}});
  m.stats = {10, 9, 1, 2};
  auto d = DecodeResults(Encode(m));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->agent.agent, "h:1");
  EXPECT_EQ(d->agent.service, "svc");
  EXPECT_TRUE(d->final);
  EXPECT_EQ(d->seq, 3u);
  ASSERT_EQ(d->rows.size(), 1u);
  EXPECT_EQ(d->rows[0].group, m.rows[0].group);  // 1.0 stays a double, -4 an int
  ASSERT_EQ(d->rows[0].partials.size(), 1u);
  EXPECT_EQ(d->rows[0].partials[0], p);
  EXPECT_EQ(d->stats.firings, 10u);
  EXPECT_EQ(d->stats.type_errors, 2u);
  EXPECT_FALSE(
      DecodeResults(R"({"agent":{"agent":"a"},"id":"q","rows":[{"group":[],"partials":[[1,2]]}]})")
          .ok());
}

TEST(PivotProtocol, HelloReplyAndStatus) {
  auto h = DecodeHelloReply(EncodeHelloReply({{"a", "From x In t", 1000, 10000, "r"}}));
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->size(), 1u);
  EXPECT_EQ((*h)[0].query, "From x In t");
  StatusMessage s;
  s.agent = {"h:2", "h", 2, "x"};
  s.queries.push_back({"a", 3, {5, 4, 0, 0}});
  auto sd = DecodeStatus(Encode(s));
  ASSERT_TRUE(sd.ok());
  ASSERT_EQ(sd->queries.size(), 1u);
  EXPECT_EQ(sd->queries[0].woven, 3);
  EXPECT_EQ(sd->queries[0].stats.firings, 5u);
  auto u = DecodeUninstall(EncodeUninstall("zz"));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, "zz");
}

TEST(PivotResults, TableMergesGroupsAcrossAgentsExactly) {
  ResultTable t(2);
  auto row = [](const char* g, double a, double b) {
    Partial pa, pb;
    pa.Add(a);
    pb.Add(b);
    return ResultRow{{Value::String(g)}, {pa, pb}};
  };
  t.Add(row("x", 1, 10));
  t.Add(row("y", 2, 20));
  t.Add(row("x", 3, 5));
  auto rows = t.Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].group[0].s, "x");
  EXPECT_EQ(rows[0].partials[0].Result(Aggregate::kSum), 4);
  EXPECT_EQ(rows[0].partials[0].Result(Aggregate::kCount), 2);
  EXPECT_EQ(rows[0].partials[1].Result(Aggregate::kMin), 5);
  EXPECT_EQ(rows[0].partials[1].Result(Aggregate::kMax), 10);
  EXPECT_EQ(rows[0].partials[1].Result(Aggregate::kAverage), 7.5);
  // Plain rows (no aggregates) are kept in order, up to the cap.
  ResultTable plain(0, 2);
  for (int i = 0; i < 3; ++i) plain.Add(ResultRow{{Value::Int(i)}, {}});
  EXPECT_EQ(plain.Rows().size(), 2u);
  EXPECT_EQ(plain.dropped(), 1u);
  EXPECT_EQ(FormatNumber(42), "42");
  EXPECT_EQ(FormatNumber(2.5), "2.5");
  EXPECT_EQ(FormatNumber(-3), "-3");
}

}  // namespace
}  // namespace causeway::pivot
