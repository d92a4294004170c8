// MergeTreeSteps (a record at a time, or the rest of the run in a loop that may stop)
// against a stable sort by (timestamp, leaf), on every tree size, with runs that tie all
// the time, runs left empty, times at the largest the keys hold, and records past the
// merged part that must stay put.
#include "ctf/reader/merge_tree.h"

#include <algorithm>
#include <array>
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

template <size_t P>
void CheckRandomMerges(std::mt19937_64& rng) {
  const Record past_every{UINT64_MAX, UINT32_MAX};
  int stepped_rounds = 0;
  for (int round = 0; round < 200; ++round) {
    // Up to P runs; timestamps drawn from a small range so that runs tie often, from a
    // wide one (UINT64_MAX - 1 included) so that large values are compared too, or from
    // just below the largest time MergeTreeSteps keys exactly.
    const size_t runs = 1 + rng() % P;
    const int range = static_cast<int>(rng() % 3);
    constexpr uint64_t kMaxTime = MergeTreeSteps<P, Record>::kMaxTime;
    std::vector<std::vector<Record>> data(runs);
    std::vector<std::pair<std::pair<uint64_t, size_t>, uint32_t>> expected;  // ((ts, leaf), id)
    uint32_t id = 0;
    size_t count = 0;
    for (size_t leaf = 0; leaf < runs; ++leaf) {
      const size_t n = rng() % 40;  // some runs empty
      std::vector<uint64_t> ts(n);
      for (uint64_t& t : ts)
        t = range == 0   ? rng() % 8
            : range == 1 ? std::min(rng(), UINT64_MAX - 1)
                         : kMaxTime - 1 - rng() % 4;
      std::sort(ts.begin(), ts.end());
      for (const uint64_t t : ts) data[leaf].push_back({t, id++});
      count += n;
    }
    for (size_t leaf = 0; leaf < runs; ++leaf)
      for (const Record& r : data[leaf]) expected.push_back({{r.timestamp, leaf}, r.id});
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Take only a prefix of the merged order: whatever it leaves in a run comes after every
    // record taken (the bound MergeTreeSteps requires), and each run ends in a sentinel.
    const size_t take = count == 0 ? 0 : rng() % (count + 1);
    std::array<const Record*, P> first;
    for (size_t leaf = 0; leaf < runs; ++leaf) data[leaf].push_back(past_every);
    for (size_t i = 0; i < P; ++i) first[i] = i < runs ? data[i].data() : &past_every;
    std::vector<std::pair<size_t, uint32_t>> want;  // (leaf, id) of the records to take
    for (size_t k = 0; k < take; ++k)
      want.push_back({expected[k].first.second, expected[k].second});
    // For the runs its keys hold: a record at a time, then the rest in TakeRest stopped
    // once at a random point, then the rest again, a record at a time and in TakeRest.
    const bool fits = take == 0 || MergeTreeSteps<P, Record>::Fits(expected[take - 1].first.first);
    ASSERT_EQ(fits, range != 1 || take == 0 || expected[take - 1].first.first < kMaxTime);
    if (!fits) continue;
    ++stepped_rounds;
    std::vector<std::pair<size_t, uint32_t>> stepped;
    MergeTreeSteps<P, Record> steps;
    steps.Start(first);
    const size_t one_by_one = take == 0 ? 0 : rng() % (take + 1);
    for (size_t k = 0; k < one_by_one; ++k) {
      size_t leaf = P;
      const Record* r = steps.Take(&leaf);
      stepped.push_back({leaf, r->id});
    }
    const size_t rest = take - one_by_one;
    const size_t stop_after = rest == 0 ? 0 : 1 + rng() % rest;
    auto collect = [&](size_t leaf, const Record* r) {
      stepped.push_back({leaf, r->id});
      return stepped.size() != one_by_one + stop_after;
    };
    const size_t first_part = steps.TakeRest(rest, collect);
    ASSERT_EQ(first_part, stop_after) << "P=" << P;
    if (first_part < rest) {
      const size_t more = rng() % (rest - first_part + 1);
      for (size_t k = 0; k < more; ++k) {
        size_t leaf = P;
        const Record* r = steps.Take(&leaf);
        stepped.push_back({leaf, r->id});
      }
      const size_t last = rest - first_part - more;
      ASSERT_EQ(steps.TakeRest(last, collect), last) << "P=" << P;
    }
    ASSERT_EQ(stepped, want) << "P=" << P;
  }
  // Every kind of range came up, and the steps were checked on most rounds.
  EXPECT_GT(stepped_rounds, 100);
}

TEST(MergeTreeTest, StepsLikeAStableSortOnEveryTreeSize) {
  std::mt19937_64 rng(11);
  CheckRandomMerges<2>(rng);
  CheckRandomMerges<4>(rng);
  CheckRandomMerges<8>(rng);
  CheckRandomMerges<16>(rng);
}

TEST(MergeTreeTest, EqualTimestampsComeOutInLeafOrder) {
  // Every record at the same time: the leftmost run empties first, then the next.
  const Record past_every{UINT64_MAX, UINT32_MAX};
  std::vector<Record> a = {{5, 0}, {5, 1}, past_every};
  std::vector<Record> b = {{5, 2}, past_every};
  std::vector<Record> c = {{4, 3}, {5, 4}, past_every};
  std::vector<uint32_t> ids;
  MergeTreeSteps<4, Record> steps;
  steps.Start(std::array<const Record*, 4>{a.data(), b.data(), c.data(), &past_every});
  EXPECT_EQ(steps.TakeRest(5,
                           [&](size_t, const Record* r) {
                             ids.push_back(r->id);
                             return true;
                           }),
            5u);
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 0, 1, 2, 4}));
}

}  // namespace
}  // namespace causeway::ctf
