// Random stores (Set and Add styles, many attributes, integers and strings, nodes filled
// and cut by time span) answer random queries as a brute-force scan of what was written.
#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "state/state_store.h"
#include "support/test_util.h"

namespace causeway::state {
namespace {

// What an attribute holds: maximal runs of one non-null value, in time order.
struct ValueRun {
  int64_t start, end;
  StateValue value;
};

struct Model {
  std::vector<AttributeId> ids;
  std::vector<std::vector<ValueRun>> runs;  // by position in ids
};

void Push(std::vector<ValueRun>* runs, int64_t start, int64_t end, StateValue v) {
  if (v.is_null() || end <= start) return;
  if (!runs->empty() && runs->back().end == start && runs->back().value == v) {
    runs->back().end = end;
    return;
  }
  runs->push_back({start, end, v});
}

const ValueRun* Holding(const std::vector<ValueRun>& runs, int64_t t) {
  auto it = std::upper_bound(runs.begin(), runs.end(), t,
                             [](int64_t x, const ValueRun& r) { return x < r.start; });
  if (it == runs.begin()) return nullptr;
  --it;
  return t < it->end ? &*it : nullptr;
}

class RandomStoreTest : public ::testing::TestWithParam<int> {
 protected:
  std::string Path() const { return dir_.path() + "/random.cws"; }

  // Writes a random store, returns what it must answer.
  Model Write(std::mt19937_64& rng) {
    auto w = StateWriter::Create(Path());
    EXPECT_TRUE(w.ok());
    StateWriter& writer = **w;
    std::vector<StringRef> strings;
    for (int i = 0; i < 20; ++i) strings.push_back(writer.Intern("s" + std::to_string(i * 37)));
    auto random_value = [&]() -> StateValue {
      switch (rng() % 8) {
        case 0:
          return StateValue::Null();
        case 1:
          return StateValue::Int(static_cast<int64_t>(rng()));  // big, either sign
        case 2:
          return StateValue::Int(std::numeric_limits<int64_t>::min() + int64_t(rng() % 3));
        case 3:
        case 4:
          return StateValue::Int(static_cast<int64_t>(rng() % 5) - 2);
        default:
          return StateValue::String(strings[rng() % strings.size()]);
      }
    };
    // Per attribute its calls; then interleaved at random, each attribute's in order.
    struct Call {
      bool add;
      int64_t start, end;
      StateValue v;
    };
    const int num_attributes = 5 + static_cast<int>(rng() % 40);
    Model m;
    std::vector<std::vector<Call>> calls(num_attributes);
    int64_t end_ts = 0;
    for (int a = 0; a < num_attributes; ++a) {
      m.ids.push_back(writer.Attribute("hosts/h" + std::to_string(a % 3) + "/things/" +
                                       std::to_string(a) + "/value"));
      const bool add = rng() % 2;
      const int n = static_cast<int>(rng() % 3000);
      // Time scale: some attributes change every few ns, others rarely, one jumps by
      // more than a node's largest span.
      const int64_t scale = a == 0 ? (int64_t{1} << 46) : int64_t{1} << (rng() % 20);
      int64_t t = static_cast<int64_t>(rng() % 1000) - 500;
      for (int i = 0; i < n; ++i) {
        const int64_t advance = static_cast<int64_t>(rng() % (2 * scale));
        if (add) {
          const int64_t start = t + (rng() % 3 == 0 ? advance / 2 : 0);
          const int64_t end = start + 1 + static_cast<int64_t>(rng() % scale);
          calls[a].push_back({true, start, end, random_value()});
          t = end;
        } else {
          // Sometimes the same ts twice, sometimes the same value again.
          calls[a].push_back(
              {false, t, 0, rng() % 5 == 0 && i > 0 ? calls[a].back().v : random_value()});
          t += rng() % 7 == 0 ? 0 : advance;
        }
      }
      end_ts = std::max(end_ts, t);
    }
    end_ts += 10;
    std::vector<size_t> next(num_attributes, 0);
    std::vector<int> pending;
    for (int a = 0; a < num_attributes; ++a)
      for (size_t i = 0; i < calls[a].size(); ++i) pending.push_back(a);
    std::shuffle(pending.begin(), pending.end(), rng);
    for (int a : pending) {
      const Call& c = calls[a][next[a]++];
      if (c.add)
        writer.Add(m.ids[a], c.start, c.end, c.v);
      else
        writer.Set(m.ids[a], c.start, c.v);
    }
    EXPECT_TRUE(writer.Finish(end_ts).ok());

    // The brute force: Add()ed intervals as given, Set() values from their ts to the next
    // Set's (the last one's to end_ts); then equal neighbours merged.
    m.runs.resize(num_attributes);
    for (int a = 0; a < num_attributes; ++a) {
      const auto& cs = calls[a];
      for (size_t i = 0; i < cs.size(); ++i) {
        if (cs[i].add) {
          Push(&m.runs[a], cs[i].start, cs[i].end, cs[i].v);
        } else {
          const int64_t end = i + 1 < cs.size() ? cs[i + 1].start : end_ts;
          Push(&m.runs[a], cs[i].start, end, cs[i].v);
        }
      }
    }
    return m;
  }

  causeway::testing::TempDir dir_;
};

TEST_P(RandomStoreTest, AnswersAsABruteForceScan) {
  std::mt19937_64 rng(GetParam());
  const Model m = Write(rng);
  auto opened = StateStore::Open(Path());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const StateStore& store = **opened;
  uint64_t total = 0;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const auto& runs : m.runs) {
    total += runs.size();
    if (!runs.empty()) {
      lo = std::min(lo, runs.front().start);
      hi = std::max(hi, runs.back().end);
    }
  }
  EXPECT_EQ(store.num_intervals(), total);
  if (total == 0) return;
  EXPECT_EQ(store.start(), lo);

  // Times near interval ends are where mistakes hide: pick those half the time.
  auto random_time = [&]() -> int64_t {
    if (rng() % 2) {
      const auto& runs = m.runs[rng() % m.runs.size()];
      if (!runs.empty()) {
        const ValueRun& r = runs[rng() % runs.size()];
        switch (rng() % 4) {
          case 0:
            return r.start;
          case 1:
            return r.start - 1;
          case 2:
            return r.end;
          default:
            return r.end - 1;
        }
      }
    }
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 200;
    return lo - 100 + static_cast<int64_t>(rng() % span);
  };

  for (int q = 0; q < 3000; ++q) {
    const size_t k = rng() % m.ids.size();
    const int64_t t = random_time();
    const StateInterval got = store.At(m.ids[k], t);
    const ValueRun* want = Holding(m.runs[k], t);
    ASSERT_EQ(got.attribute, m.ids[k]);
    if (!want) {
      ASSERT_TRUE(got.value.is_null()) << "attribute " << k << " t " << t;
      ASSERT_LE(got.start, t);
      ASSERT_GT(got.end, t);
      continue;
    }
    ASSERT_EQ(got.value, want->value) << "attribute " << k << " t " << t;
    ASSERT_EQ(got.start, want->start) << "attribute " << k << " t " << t;
    ASSERT_EQ(got.end, want->end) << "attribute " << k << " t " << t;
  }

  for (int q = 0; q < 30; ++q) {
    const int64_t t = random_time();
    std::vector<StateInterval> want;
    for (size_t k = 0; k < m.ids.size(); ++k)
      if (const ValueRun* r = Holding(m.runs[k], t))
        want.push_back({r->start, r->end, m.ids[k], r->value});
    std::sort(want.begin(), want.end(),
              [](const auto& a, const auto& b) { return a.attribute < b.attribute; });
    const std::vector<StateInterval> got = store.AtAll(t);
    ASSERT_EQ(got.size(), want.size()) << "t " << t;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].attribute, want[i].attribute);
      ASSERT_EQ(got[i].start, want[i].start);
      ASSERT_EQ(got[i].end, want[i].end);
      ASSERT_EQ(got[i].value, want[i].value);
    }
  }

  for (int q = 0; q < 300; ++q) {
    int64_t t1 = random_time(), t2 = random_time();
    if (t2 < t1) std::swap(t1, t2);
    const int64_t step =
        rng() % 4 == 0 ? 0
                       : 1 + static_cast<int64_t>(
                                 rng() % std::max<uint64_t>(1, (t2 - t1) / (1 + rng() % 100)));
    std::vector<AttributeId> asked;
    std::vector<size_t> positions;
    for (size_t k = 0; k < m.ids.size(); ++k)
      if (rng() % 3 == 0) {
        asked.push_back(m.ids[k]);
        positions.push_back(k);
      }
    std::vector<StateInterval> want;
    if (t1 < t2)
      for (size_t k : positions)
        for (const ValueRun& r : m.runs[k]) {
          if (r.end <= t1 || r.start >= t2) continue;
          bool keep = step <= 0 || r.end - r.start >= step;
          if (!keep) {
            // The first boundary t1 + j * step at or after the run's start.
            const int64_t from = std::max(r.start, t1);
            const int64_t j = (from - t1 + step - 1) / step;
            const int64_t b = t1 + j * step;
            keep = b < r.end && b < t2;
          }
          if (keep) want.push_back({r.start, r.end, m.ids[k], r.value});
        }
    std::vector<StateInterval> got;
    store.Range(asked, t1, t2, step, [&](const StateInterval& i) { got.push_back(i); });
    ASSERT_EQ(got.size(), want.size()) << "t1 " << t1 << " t2 " << t2 << " step " << step;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].attribute, want[i].attribute) << i;
      ASSERT_EQ(got[i].start, want[i].start) << i << " step " << step;
      ASSERT_EQ(got[i].end, want[i].end) << i;
      ASSERT_EQ(got[i].value, want[i].value) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomStoreTest, ::testing::Range(1, 9));

}  // namespace
}  // namespace causeway::state
