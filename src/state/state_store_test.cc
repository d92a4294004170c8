// A store written by hand answers known queries.
#include "state/state_store.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::state {
namespace {

namespace fs = std::filesystem;

std::vector<StateInterval> Collect(const StateStore& store, std::vector<AttributeId> attributes,
                                   int64_t t1, int64_t t2, int64_t step) {
  std::vector<StateInterval> got;
  store.Range(attributes, t1, t2, step, [&](const StateInterval& i) { got.push_back(i); });
  return got;
}

class StateStoreTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  causeway::testing::TempDir dir_;
};

TEST_F(StateStoreTest, AtAnswersAtBoundariesBeforeAndAfter) {
  auto w = StateWriter::Create(Path("a.cws"));
  ASSERT_TRUE(w.ok());
  const AttributeId a = (*w)->Attribute("threads/1/state");
  const AttributeId b = (*w)->Attribute("threads/2/state");
  const StringRef run = (*w)->Intern("RUNNING"), blk = (*w)->Intern("BLOCKED");
  (*w)->Set(a, 100, StateValue::String(run));
  (*w)->Set(a, 200, StateValue::String(blk));
  (*w)->Set(a, 250, StateValue::String(run));
  (*w)->Set(a, 400, StateValue::Null());
  (*w)->Set(a, 500, StateValue::String(run));
  (*w)->Add(b, 150, 160, StateValue::Int(7));
  (*w)->Add(b, 170, 180, StateValue::Int(-8));
  EXPECT_EQ((*w)->intervals_written(), 4u + 2u - 1u);  // the last RUNNING closes at Finish
  ASSERT_TRUE((*w)->Finish(600).ok());
  auto s = StateStore::Open(Path("a.cws"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const StateStore& store = **s;
  EXPECT_EQ(store.start(), 100);
  EXPECT_EQ(store.end(), 600);
  EXPECT_EQ(store.num_intervals(), 6u);

  auto at = [&](AttributeId id, int64_t t) { return store.At(id, t); };
  EXPECT_TRUE(at(a, 99).value.is_null());
  EXPECT_EQ(store.Format(at(a, 100).value), "RUNNING");
  EXPECT_EQ(at(a, 100).start, 100);
  EXPECT_EQ(at(a, 100).end, 200);
  EXPECT_EQ(at(a, 100).attribute, a);
  EXPECT_EQ(store.Format(at(a, 199).value), "RUNNING");
  EXPECT_EQ(store.Format(at(a, 200).value), "BLOCKED");
  EXPECT_EQ(at(a, 249).end, 250);
  EXPECT_EQ(store.Format(at(a, 250).value), "RUNNING");
  EXPECT_EQ(at(a, 399).end, 400);
  // The gap (the thread exited) reads as null, with the gap's bounds.
  const StateInterval gap = at(a, 450);
  EXPECT_TRUE(gap.value.is_null());
  EXPECT_EQ(gap.start, 400);
  EXPECT_EQ(gap.end, 500);
  EXPECT_EQ(store.Format(at(a, 599).value), "RUNNING");
  EXPECT_EQ(at(a, 599).end, 600);
  EXPECT_TRUE(at(a, 600).value.is_null());
  EXPECT_TRUE(at(a, 10'000).value.is_null());

  EXPECT_TRUE(at(b, 149).value.is_null());
  EXPECT_EQ(at(b, 150).value, StateValue::Int(7));
  EXPECT_TRUE(at(b, 160).value.is_null());
  EXPECT_EQ(at(b, 165).start, 160);
  EXPECT_EQ(at(b, 165).end, 170);
  EXPECT_EQ(at(b, 175).value, StateValue::Int(-8));
  EXPECT_EQ(store.Format(at(b, 175).value), "-8");
  EXPECT_TRUE(at(b, 180).value.is_null());
  EXPECT_EQ(store.Format(StateValue::Null()), "null");
  // An attribute that does not exist reads as null.
  EXPECT_TRUE(at(12345, 150).value.is_null());

  // AtAll: the non-null ones, by attribute id.
  const auto all = store.AtAll(155);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].attribute, a);
  EXPECT_EQ(all[1].attribute, b);
  EXPECT_EQ(all[1].value, StateValue::Int(7));
  EXPECT_EQ(store.AtAll(450).size(), 0u);
}

TEST_F(StateStoreTest, TheAttributeTreeFindsPathsAndChildren) {
  auto w = StateWriter::Create(Path("t.cws"), {.source_key = "trace@42"});
  ASSERT_TRUE(w.ok());
  for (const char* p : {"hosts/h0/threads/812/state", "hosts/h0/threads/9/state",
                        "hosts/h0/threads/100/name", "hosts/h0/cpus/1/thread", "requests/ab/cause"})
    (*w)->Attribute(p);
  const AttributeId again = (*w)->Attribute("hosts/h0/threads/9/state");
  ASSERT_TRUE((*w)->Finish(0).ok());
  auto s = StateStore::Open(Path("t.cws"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const StateStore& store = **s;
  EXPECT_EQ(store.source_key(), "trace@42");
  EXPECT_EQ(store.num_intervals(), 0u);
  auto found = store.Find("hosts/h0/threads/9/state");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, again);
  EXPECT_EQ(store.path(*found), "hosts/h0/threads/9/state");
  EXPECT_FALSE(store.Find("hosts/h0/threads/10/state").has_value());
  EXPECT_FALSE(store.Find("hosts/h1").has_value());
  EXPECT_TRUE(store.Find("hosts/h0/threads").has_value());
  // Numbers in value order, then names.
  EXPECT_EQ(store.Children("hosts/h0/threads"), (std::vector<std::string_view>{"9", "100", "812"}));
  EXPECT_EQ(store.Children("hosts/h0"), (std::vector<std::string_view>{"cpus", "threads"}));
  EXPECT_EQ(store.Children(""), (std::vector<std::string_view>{"hosts", "requests"}));
  EXPECT_TRUE(store.Children("nowhere").empty());
  // Every prefix is an attribute: 5 leaves, hosts, h0, threads, 812, 9, 100, cpus, 1,
  // requests, ab.
  EXPECT_EQ(store.num_attributes(), 15u);
  EXPECT_TRUE(store.At(*found, 0).value.is_null());
  EXPECT_TRUE(store.AtAll(0).empty());
}

TEST_F(StateStoreTest, RangeGivesLongIntervalsWholeAndSamplesShortOnes) {
  auto w = StateWriter::Create(Path("r.cws"));
  ASSERT_TRUE(w.ok());
  const AttributeId a = (*w)->Attribute("a");
  const AttributeId b = (*w)->Attribute("b");
  // a: 0..100 changes every 1 ns (values 0..99), then one long interval [100, 1000).
  for (int i = 0; i < 100; ++i) (*w)->Set(a, i, StateValue::Int(i));
  (*w)->Set(a, 100, StateValue::Int(1000));
  // b: [0, 50) = 5, gap, [60, 61) = 6, [61, 1000) = 7.
  (*w)->Add(b, 0, 50, StateValue::Int(5));
  (*w)->Add(b, 60, 61, StateValue::Int(6));
  (*w)->Add(b, 61, 1000, StateValue::Int(7));
  ASSERT_TRUE((*w)->Finish(1000).ok());
  auto s = StateStore::Open(Path("r.cws"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const StateStore& store = **s;

  // step 0: every interval overlapping [t1, t2), whole.
  auto all = Collect(store, {a}, 10, 20, 0);
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all.front().start, 10);
  EXPECT_EQ(all.back().value, StateValue::Int(19));
  all = Collect(store, {b}, 40, 200, 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].start, 0);  // whole, not clipped
  EXPECT_EQ(all[1].value, StateValue::Int(6));
  EXPECT_EQ(all[2].end, 1000);

  // step 25 over [5, 1000): boundaries 5, 30, 55, 80, 105, ...: a's short intervals
  // holding 5, 30, 55, 80, then the long one.
  auto sampled = Collect(store, {a, b}, 5, 1000, 25);
  std::vector<int64_t> a_values, b_values;
  for (const auto& i : sampled) (i.attribute == a ? a_values : b_values).push_back(i.value.i);
  EXPECT_EQ(a_values, (std::vector<int64_t>{5, 30, 55, 80, 1000}));
  // b: [0, 50) is long; [60, 61) holds no boundary (55, 80); [61, 1000) is long.
  EXPECT_EQ(b_values, (std::vector<int64_t>{5, 7}));
  // Attributes come one after another, each in time order.
  EXPECT_EQ(sampled.front().attribute, a);
  EXPECT_EQ(sampled.back().attribute, b);

  // A range that ends before the data, and an empty one.
  EXPECT_TRUE(Collect(store, {a}, -100, -50, 10).empty());
  EXPECT_TRUE(Collect(store, {a}, 50, 50, 0).empty());
  // A huge step: only the interval holding t1.
  sampled = Collect(store, {a}, 7, 1000, 1'000'000);
  // Only the interval holding t1: the long one, 900 ns, is shorter than the step and holds
  // no boundary.
  ASSERT_EQ(sampled.size(), 1u);
  EXPECT_EQ(sampled[0].value, StateValue::Int(7));
}

TEST_F(StateStoreTest, SetWithAnUnchangedValueExtendsTheInterval) {
  auto w = StateWriter::Create(Path("e.cws"));
  ASSERT_TRUE(w.ok());
  const AttributeId a = (*w)->Attribute("a");
  (*w)->Set(a, 10, StateValue::Int(1));
  (*w)->Set(a, 20, StateValue::Int(1));
  (*w)->Set(a, 30, StateValue::Int(1));
  (*w)->Set(a, 40, StateValue::Int(2));
  // A value that lasted no time is dropped; going back to the previous value extends it.
  (*w)->Set(a, 50, StateValue::Int(3));
  (*w)->Set(a, 50, StateValue::Int(2));
  ASSERT_TRUE((*w)->Finish(60).ok());
  auto s = StateStore::Open(Path("e.cws"));
  ASSERT_TRUE(s.ok());
  const StateInterval i = (*s)->At(a, 15);
  EXPECT_EQ(i.start, 10);
  EXPECT_EQ(i.end, 40);
  EXPECT_EQ((*s)->At(a, 45).start, 40);
  EXPECT_EQ((*s)->At(a, 45).end, 60);
  EXPECT_EQ((*s)->num_intervals(), 2u);
}

TEST_F(StateStoreTest, AnAbandonedWriterLeavesNoFile) {
  {
    auto w = StateWriter::Create(Path("gone.cws"));
    ASSERT_TRUE(w.ok());
    const AttributeId a = (*w)->Attribute("a");
    for (int i = 0; i < 100000; ++i) (*w)->Set(a, i, StateValue::Int(i % 7));
    EXPECT_GT((*w)->bytes_written(), 16u);
    EXPECT_TRUE(fs::exists(Path("gone.cws.partial")));
  }
  EXPECT_FALSE(fs::exists(Path("gone.cws.partial")));
  EXPECT_FALSE(fs::exists(Path("gone.cws")));
  auto s = StateStore::Open(Path("gone.cws"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().ToString().find("gone.cws"), std::string::npos);
}

TEST_F(StateStoreTest, AWriterInAMissingDirectoryFailsWithThePath) {
  auto w = StateWriter::Create(Path("no/such/dir/x.cws"));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().ToString().find("no/such/dir/x.cws.partial"), std::string::npos);
}

}  // namespace
}  // namespace causeway::state
