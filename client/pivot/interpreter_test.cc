#include "pivot/interpreter.h"

#include <atomic>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "causeway/tracepoint.h"
#include "pivot/parser.h"

namespace causeway::pivot {
namespace {

client::Tracepoint<std::string_view> tp_client("itest", "client", {"name"});
client::Tracepoint<int64_t> tp_bytes("itest", "bytes", {"delta"});
client::Tracepoint<std::string_view, int64_t> tp_other("itest", "other", {"kind", "n"});

std::unique_ptr<QueryRunner> Weave(std::string_view text) {
  auto q = Parse(text);
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  auto c = Compile(*q, "t");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  auto runner = std::make_unique<QueryRunner>(std::move(c).value());
  auto woven = runner->Install();
  EXPECT_TRUE(woven.ok()) << woven.status().ToString();
  return runner;
}

// group (first column as text) -> aggregate values.
std::map<std::string, std::vector<double>> Results(QueryRunner& r) {
  std::map<std::string, std::vector<double>> out;
  for (const ResultRow& row : r.TakeResults()) {
    std::vector<double> v;
    for (size_t a = 0; a < row.partials.size(); ++a) {
      v.push_back(row.partials[a].Result(r.query().aggregates[a].aggregate));
    }
    out[row.group.empty() ? "" : row.group[0].ToString()] = v;
  }
  return out;
}

TEST(PivotInterpreter, GroupedAggregationPerHost) {
  SetPivotHostName("h1");
  auto r = Weave(
      "From b In itest.bytes GroupBy b.host Select b.host, SUM(b.delta), COUNT, "
      "MIN(b.delta), MAX(b.delta), AVERAGE(b.delta)");
  EXPECT_TRUE(tp_bytes.enabled());
  for (int64_t d : {10, 20, 30}) CAUSEWAY_TRACEPOINT(tp_bytes, d);
  auto res = Results(*r);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res["h1"], (std::vector<double>{60, 3, 10, 30, 20}));
  EXPECT_TRUE(Results(*r).empty());  // taken
  r->Uninstall();
  EXPECT_FALSE(tp_bytes.enabled());
  CAUSEWAY_TRACEPOINT(tp_bytes, 5);
  EXPECT_TRUE(Results(*r).empty());
}

TEST(PivotInterpreter, HappenedBeforeJoinGroupsByEarlierTracepoint) {
  auto r = Weave(
      "From b In itest:bytes Join c In First(itest:client) On c -> b "
      "GroupBy c.name Select c.name, SUM(b.delta)");
  {
    BaggageScope request(std::make_shared<Baggage>());
    CAUSEWAY_TRACEPOINT(tp_client, "alice");
    CAUSEWAY_TRACEPOINT(tp_client, "bob");  // First keeps alice
    CAUSEWAY_TRACEPOINT(tp_bytes, 5);
    CAUSEWAY_TRACEPOINT(tp_bytes, 7);
  }
  {
    BaggageScope request(std::make_shared<Baggage>());
    CAUSEWAY_TRACEPOINT(tp_client, "bob");
    // Work handed to another thread carries a branch of the baggage.
    std::thread t(WithBaggage([] { CAUSEWAY_TRACEPOINT(tp_bytes, 100); }));
    t.join();
  }
  {
    BaggageScope request(std::make_shared<Baggage>());
    CAUSEWAY_TRACEPOINT(tp_bytes, 1000);  // no client before: not joined
  }
  auto res = Results(*r);
  EXPECT_EQ(res, (std::map<std::string, std::vector<double>>{{"alice", {12}}, {"bob", {100}}}));
  EXPECT_EQ(r->stats().firings, 7u);
}

TEST(PivotInterpreter, MostRecentAndWhere) {
  auto r = Weave(
      "From b In itest.bytes Join c In MostRecent(itest.client) On c -> b "
      "Where b.delta * 2 > 10 and not (c.name == \"carol\") "
      "GroupBy c.name Select c.name, COUNT");
  BaggageScope request(std::make_shared<Baggage>());
  CAUSEWAY_TRACEPOINT(tp_client, "alice");
  CAUSEWAY_TRACEPOINT(tp_client, "dave");
  CAUSEWAY_TRACEPOINT(tp_bytes, 5);  // 10 > 10 is false
  CAUSEWAY_TRACEPOINT(tp_bytes, 6);
  CAUSEWAY_TRACEPOINT(tp_client, "carol");
  CAUSEWAY_TRACEPOINT(tp_bytes, 50);  // filtered: carol
  EXPECT_EQ(Results(*r), (std::map<std::string, std::vector<double>>{{"dave", {1}}}));
}

TEST(PivotInterpreter, AllJoinIsACrossProduct) {
  auto r = Weave(
      "From b In itest.bytes Join c In itest.client On c -> b "
      "GroupBy c.name Select c.name, SUM(b.delta)");
  BaggageScope request(std::make_shared<Baggage>());
  CAUSEWAY_TRACEPOINT(tp_client, "a");
  CAUSEWAY_TRACEPOINT(tp_client, "b");
  CAUSEWAY_TRACEPOINT(tp_bytes, 3);
  CAUSEWAY_TRACEPOINT(tp_bytes, 4);
  EXPECT_EQ(Results(*r), (std::map<std::string, std::vector<double>>{{"a", {7}}, {"b", {7}}}));
}

TEST(PivotInterpreter, AggregationPushedToSourceGivesTheSameAnswer) {
  const char* text =
      "From b In itest.bytes Join o In itest.other On o -> b "
      "GroupBy o.kind Select o.kind, SUM(o.n), AVERAGE(o.n), COUNT, MAX(o.n)";
  auto r = Weave(text);
  ASSERT_EQ(r->query().advice[0].ops.back().pack, PackKind::kAggregate);
  BaggageScope request(std::make_shared<Baggage>());
  CAUSEWAY_TRACEPOINT(tp_other, "x", 2);
  CAUSEWAY_TRACEPOINT(tp_other, "x", 4);
  CAUSEWAY_TRACEPOINT(tp_other, "y", 10);
  CAUSEWAY_TRACEPOINT(tp_bytes, 0);
  CAUSEWAY_TRACEPOINT(tp_bytes, 0);
  // Two b firings, each joined with the three o tuples.
  EXPECT_EQ(Results(*r), (std::map<std::string, std::vector<double>>{{"x", {12, 3, 4, 4}},
                                                                     {"y", {20, 10, 2, 10}}}));
  ASSERT_NE(Baggage::Current()->Find("t.o"), nullptr);
  EXPECT_EQ(Baggage::Current()->Find("t.o")->tuples.size(), 2u);  // one per group
}

// An outer aggregation over a nested query (an All join): it aggregates the nested query's
// rows where it emits. Pushed down into the nested query (whose root packs its columns, not
// partials), every group counted 0.
TEST(PivotInterpreter, AggregationOverANestedQueryCountsItsRows) {
  auto r = Weave(
      "From b In itest.bytes Join y In (From o In itest.other Select o.kind, o.n) On y -> b "
      "GroupBy y.kind Select y.kind, COUNT, SUM(y.n)");
  BaggageScope request(std::make_shared<Baggage>());
  CAUSEWAY_TRACEPOINT(tp_other, "x", 2);
  CAUSEWAY_TRACEPOINT(tp_other, "x", 4);
  CAUSEWAY_TRACEPOINT(tp_other, "y", 10);
  CAUSEWAY_TRACEPOINT(tp_bytes, 0);
  EXPECT_EQ(Results(*r),
            (std::map<std::string, std::vector<double>>{{"x", {2, 6}}, {"y", {1, 10}}}));
}

TEST(PivotInterpreter, UnaggregatedRows) {
  auto r = Weave("From o In itest.other Where o.n >= 2 Select o.kind, o.n");
  CAUSEWAY_TRACEPOINT(tp_other, "x", 1);
  CAUSEWAY_TRACEPOINT(tp_other, "y", 2);
  auto rows = r->TakeResults();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].group, (Tuple{Value::String("y"), Value::Int(2)}));
}

TEST(PivotInterpreter, TypeErrorsFilterOutAndAreCounted) {
  auto r = Weave("From o In itest.other Where o.kind > 3 Select COUNT");
  CAUSEWAY_TRACEPOINT(tp_other, "x", 1);
  EXPECT_TRUE(r->TakeResults().empty());
  EXPECT_EQ(r->stats().type_errors, 1u);
}

TEST(PivotInterpreter, UnknownFieldFailsToWeave) {
  auto q = Parse("From o In itest.other Select SUM(o.nope)");
  ASSERT_TRUE(q.ok());
  auto c = Compile(*q, "t");
  ASSERT_TRUE(c.ok());
  QueryRunner r(std::move(c).value());
  auto woven = r.Install();
  ASSERT_FALSE(woven.ok());
  EXPECT_EQ(woven.status().ToString(),
            "Cannot weave query t: CAUSED BY tracepoint itest:other has no field 'nope' (for "
            "o.nope)");
  EXPECT_FALSE(tp_other.enabled());
}

TEST(PivotInterpreter, BagsAreBounded) {
  auto r = Weave("From b In itest.bytes Join c In itest.client On c -> b Select c.name");
  BaggageScope request(std::make_shared<Baggage>());
  for (int i = 0; i < 300; ++i) CAUSEWAY_TRACEPOINT(tp_client, std::to_string(i));
  const Bag* bag = Baggage::Current()->Find("t.c");
  ASSERT_NE(bag, nullptr);
  EXPECT_EQ(bag->tuples.size(), kMaxTuplesPerBag);
  EXPECT_TRUE(bag->overflow);
  EXPECT_EQ(r->stats().dropped_tuples, 300 - kMaxTuplesPerBag);
  CAUSEWAY_TRACEPOINT(tp_bytes, 1);
  EXPECT_EQ(r->TakeResults().size(), kMaxTuplesPerBag);
}

TEST(PivotInterpreter, MostRecentNKeepsTheNewestInOrderAndFirstNTheOldest) {
  auto recent =
      Weave("From b In itest.bytes Join c In MostRecentN(2)(itest.client) On c -> b Select c.name");
  BaggageScope request(std::make_shared<Baggage>());
  for (const char* name : {"a", "b", "c", "d"}) CAUSEWAY_TRACEPOINT(tp_client, name);
  const Bag* bag = Baggage::Current()->Find("t.c");
  ASSERT_NE(bag, nullptr);
  ASSERT_EQ(bag->tuples.size(), 2u);
  EXPECT_EQ(bag->tuples[0][0].s, "c");
  EXPECT_EQ(bag->tuples[1][0].s, "d");
  recent->Uninstall();
  Baggage::Current()->Erase("t.c");
  auto first =
      Weave("From b In itest.bytes Join c In FirstN(2)(itest.client) On c -> b Select c.name");
  for (const char* name : {"a", "b", "c"}) CAUSEWAY_TRACEPOINT(tp_client, name);
  bag = Baggage::Current()->Find("t.c");
  ASSERT_NE(bag, nullptr);
  ASSERT_EQ(bag->tuples.size(), 2u);
  EXPECT_EQ(bag->tuples[0][0].s, "a");
  EXPECT_EQ(bag->tuples[1][0].s, "b");
  EXPECT_FALSE(bag->overflow);  // FirstN drops by design, not by overflow
}

TEST(PivotInterpreter, UnweavingWhileThreadsFireLosesNoCountedFiring) {
  // Four threads fire as fast as they can while the query is installed and removed; every
  // firing the runner counted reached the results, and nothing runs in it afterwards.
  for (int round = 0; round < 20; ++round) {
    auto r = Weave("From b In itest.bytes GroupBy b.host Select b.host, COUNT");
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        while (!stop.load(std::memory_order_relaxed)) CAUSEWAY_TRACEPOINT(tp_bytes, 1);
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    r->Uninstall();
    const QueryStats after_uninstall = r->stats();
    double counted = 0;
    for (const ResultRow& row : r->TakeResults())
      counted += row.partials.at(0).Result(Aggregate::kCount);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(r->stats().firings, after_uninstall.firings);  // nothing after Uninstall
    stop = true;
    for (auto& t : threads) t.join();
    EXPECT_EQ(counted, static_cast<double>(after_uninstall.firings));
    EXPECT_FALSE(tp_bytes.enabled());
  }
}

}  // namespace
}  // namespace causeway::pivot
