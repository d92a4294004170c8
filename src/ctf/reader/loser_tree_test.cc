// LoserTree against a stable sort by (timestamp, leaf): every tree size up to kMaxLeaves,
// runs that tie all the time, runs left empty, bases far from zero, times at the largest a
// key holds relative to its base, records past the merged part that must stay put, and a
// merge stopped and resumed by Take() and TakeRest().
#include "ctf/reader/loser_tree.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace causeway::ctf {
namespace {

struct Record {
  uint64_t timestamp;
  uint32_t id;  // unique across every run
};

using Tree = LoserTree<Record>;

TEST(LoserTreeTest, MergesLikeAStableSortOnEveryTreeSize) {
  std::mt19937_64 rng(29);
  const Record past_every{UINT64_MAX, UINT32_MAX};
  int rounds_checked = 0;
  for (int round = 0; round < 600; ++round) {
    const size_t runs = 1 + rng() % (round % 3 == 0 ? Tree::kMaxLeaves : 20);
    const size_t leaves = Tree::LeavesFor(runs);
    ASSERT_GE(leaves, runs);
    ASSERT_EQ(leaves & (leaves - 1), 0u);
    // Times near a base: in a small range (ties all the time), spread over a second, or at
    // the largest relative time the keys of this tree size hold.
    const uint64_t base = round % 2 ? 0 : (uint64_t{1} << 62) + rng() % 1000;
    const int range = static_cast<int>(rng() % 3);
    const unsigned leaf_bits = static_cast<unsigned>(std::countr_zero(leaves));
    const uint64_t max_relative = (uint64_t{1} << (64 - leaf_bits)) - 1;
    auto draw = [&]() -> uint64_t {
      if (range == 0) return base + rng() % 8;
      if (range == 1) return base + rng() % 1000000000;
      return base + max_relative - 1 - rng() % 4;
    };
    std::vector<std::vector<Record>> data(runs);
    std::vector<std::pair<std::pair<uint64_t, size_t>, uint32_t>> expected;  // ((ts, leaf), id)
    uint32_t id = 0;
    size_t count = 0;
    for (size_t leaf = 0; leaf < runs; ++leaf) {
      const size_t n = rng() % 12;  // some runs empty
      std::vector<uint64_t> ts(n);
      for (uint64_t& t : ts) t = draw();
      std::sort(ts.begin(), ts.end());
      for (const uint64_t t : ts) data[leaf].push_back({t, id++});
      count += n;
    }
    for (size_t leaf = 0; leaf < runs; ++leaf)
      for (const Record& r : data[leaf]) expected.push_back({{r.timestamp, leaf}, r.id});
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Take a prefix of the merged order: what it leaves in a run comes after every record
    // taken, and each run ends in a sentinel.
    const size_t take = count == 0 ? 0 : rng() % (count + 1);
    if (take > 0) {
      ASSERT_TRUE(Tree::Fits(leaves, base, expected[take - 1].first.first));
    }
    for (size_t leaf = 0; leaf < runs; ++leaf) data[leaf].push_back(past_every);
    std::vector<const Record*> first(leaves, &past_every);
    for (size_t leaf = 0; leaf < runs; ++leaf) first[leaf] = data[leaf].data();

    Tree tree;
    tree.Start(first.data(), leaves, base);
    std::vector<std::pair<size_t, uint32_t>> got;
    const size_t one_by_one = take == 0 ? 0 : rng() % (take + 1);
    for (size_t k = 0; k < one_by_one; ++k) {
      size_t leaf = leaves;
      const Record* r = tree.Take(&leaf);
      got.push_back({leaf, r->id});
    }
    const size_t rest = take - one_by_one;
    const size_t stop_after = rest == 0 ? 0 : 1 + rng() % rest;
    auto collect = [&](size_t leaf, const Record* r) {
      got.push_back({leaf, r->id});
      return got.size() != one_by_one + stop_after;
    };
    const size_t first_part = tree.TakeRest(rest, collect);
    ASSERT_EQ(first_part, stop_after);
    ASSERT_EQ(tree.TakeRest(rest - first_part,
                            [&](size_t leaf, const Record* r) {
                              got.push_back({leaf, r->id});
                              return true;
                            }),
              rest - first_part);
    ASSERT_EQ(got.size(), take);
    for (size_t k = 0; k < take; ++k) {
      ASSERT_EQ(got[k].first, expected[k].first.second)
          << runs << " runs, range " << range << ", record " << k;
      ASSERT_EQ(got[k].second, expected[k].second)
          << runs << " runs, range " << range << ", record " << k;
    }
    ++rounds_checked;
  }
  EXPECT_EQ(rounds_checked, 600);
}

TEST(LoserTreeTest, EqualTimestampsComeOutInLeafOrder) {
  const Record past_every{UINT64_MAX, UINT32_MAX};
  std::vector<Record> a = {{5, 0}, {5, 1}, past_every};
  std::vector<Record> b = {{5, 2}, past_every};
  std::vector<Record> c = {{4, 3}, {5, 4}, past_every};
  const std::vector<const Record*> first = {a.data(),    b.data(),    c.data(),    &past_every,
                                            &past_every, &past_every, &past_every, &past_every};
  Tree tree;
  tree.Start(first.data(), first.size(), 4);
  std::vector<uint32_t> ids;
  tree.TakeRest(5, [&](size_t, const Record* r) {
    ids.push_back(r->id);
    return true;
  });
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 0, 1, 2, 4}));
}

TEST(LoserTreeTest, FitsOnlyTimesItsKeysHold) {
  // 16 leaves: 4 bits of leaf, 60 of relative time.
  const uint64_t limit = (uint64_t{1} << 60) - 1;
  EXPECT_TRUE(Tree::Fits(16, 1000, 1000 + limit - 1));
  EXPECT_FALSE(Tree::Fits(16, 1000, 1000 + limit));
  EXPECT_FALSE(Tree::Fits(16, 1000, 999));  // before the base
  EXPECT_TRUE(Tree::Fits(2, UINT64_MAX - 10, UINT64_MAX - 1));
  EXPECT_FALSE(Tree::Fits(256, 0, uint64_t{1} << 56));
  EXPECT_EQ(Tree::LeavesFor(1), 2u);
  EXPECT_EQ(Tree::LeavesFor(5), 8u);
  EXPECT_EQ(Tree::LeavesFor(16), 16u);
  EXPECT_EQ(Tree::LeavesFor(17), 32u);
}

}  // namespace
}  // namespace causeway::ctf
