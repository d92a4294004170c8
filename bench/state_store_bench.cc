// The state store on synthetic intervals: threads changing state at random times (the bulk),
// plus short-lived request attributes, written in one time-ordered pass; then the queries a
// view makes. Prints the writer's cost per interval, the file's bytes per interval, and the
// median time of At, AtAll and Range (a 2000-step view of every thread), in CPU time.
//
//   state_store_bench [--threads N] [--changes N] [--attributes N] [--dir DIR] [--keep]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "state/state_store.h"

namespace {

using causeway::state::AttributeId;
using causeway::state::StateInterval;
using causeway::state::StateStore;
using causeway::state::StateValue;
using causeway::state::StateWriter;
// CPU time of this thread: the machine the figures come from is shared, and wall time
// would count the other programs' turns.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
};

double Seconds(double a, double b) { return b - a; }

// splitmix64: cheap enough not to hide the writer's cost.
struct Rng {
  uint64_t s;
  uint64_t operator()() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t threads = 500, changes = 200000, attributes = 20000;
  std::string dir = std::filesystem::temp_directory_path().string();
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--threads")
      threads = std::atoll(next());
    else if (a == "--changes")
      changes = std::atoll(next());
    else if (a == "--attributes")
      attributes = std::atoll(next());
    else if (a == "--dir")
      dir = next();
    else if (a == "--keep")
      keep = true;
    else {
      std::fprintf(stderr,
                   "usage: state_store_bench [--threads N] [--changes N] [--attributes N] "
                   "[--dir DIR] [--keep]\n");
      return 2;
    }
  }
  const int64_t requests = std::max<int64_t>(1, attributes - threads);
  const std::string path = dir + "/state_store_bench.cws";

  auto created = StateWriter::Create(path);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  StateWriter& w = **created;
  std::vector<AttributeId> thread_ids, request_ids;
  for (int64_t t = 0; t < threads; ++t)
    thread_ids.push_back(w.Attribute("hosts/h0/threads/" + std::to_string(1000 + t) + "/state"));
  for (int64_t r = 0; r < requests; ++r)
    request_ids.push_back(w.Attribute("requests/" + std::to_string(r) + "/cause"));
  const char* labels[] = {"RUNNING", "PREEMPTED", "BLOCKED(futex)", "BLOCKED(disk)", "BLOCKED(net)",
                          "WAKING",  "IRQ",       "SOFTIRQ"};
  std::vector<causeway::state::StringRef> refs;
  for (const char* l : labels) refs.push_back(w.Intern(l));

  // One event per thread state change, every 0..199 ns; one in 8 also changes the cause of
  // the request of its time window (each request lives for 1/requests of the trace).
  const int64_t events = threads * changes;
  auto generate = [&](auto&& sink) {
    Rng rng{42};
    int64_t t = 0;
    int64_t request = -1;
    for (int64_t e = 0; e < events; ++e) {
      const uint64_t r = rng();
      t += static_cast<int64_t>(r % 200);
      sink.Thread(thread_ids[(r >> 8) % threads], t, refs[(r >> 24) % 6]);
      if (((r >> 40) & 7) == 0) {
        const int64_t now = e * requests / events;
        if (now != request) {
          if (request >= 0) sink.Request(request_ids[request], t, StateValue::Null());
          request = now;
        }
        sink.Request(request_ids[request], t, StateValue::String(refs[(r >> 48) % 8]));
      }
    }
    return t;
  };
  struct Discard {
    uint64_t sum = 0;
    void Thread(AttributeId a, int64_t t, uint32_t v) { sum += a + t + v; }
    void Request(AttributeId a, int64_t t, StateValue v) { sum += a + t + v.i; }
  } discard;
  auto t0 = Clock::now();
  generate(discard);
  const double generation = Seconds(t0, Clock::now());
  struct Write {
    StateWriter& w;
    void Thread(AttributeId a, int64_t t, uint32_t v) { w.Set(a, t, StateValue::String(v)); }
    void Request(AttributeId a, int64_t t, StateValue v) { w.Set(a, t, v); }
  } sink{w};
  t0 = Clock::now();
  const int64_t end = generate(sink) + 1000;
  const auto st = w.Finish(end);
  const double writing = Seconds(t0, Clock::now());
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  t0 = Clock::now();
  auto opened = StateStore::Open(path);
  const double open_s = Seconds(t0, Clock::now());
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  const StateStore& store = **opened;
  const double n = static_cast<double>(store.num_intervals());
  std::printf(
      "store: %lld threads x %lld changes, %zu attributes, %.0f intervals, %.1f s of "
      "trace, %.1f MB\n",
      static_cast<long long>(threads), static_cast<long long>(changes), store.num_attributes(), n,
      end / 1e9, store.file_bytes() / 1e6);
  std::printf("writer: %.1f ns/interval (%.1f with event generation %.1f), %.2f bytes/interval\n",
              (writing - generation) * 1e9 / n, writing * 1e9 / n, generation * 1e9 / n,
              store.file_bytes() / n);
  std::printf("open (checksums of every node): %.1f ms\n", open_s * 1e3);

  Rng rng{7};
  uint64_t checksum = 0;
  std::vector<double> at_us, at_all_us, range_ms, zoom_ms;
  for (int rep = 0; rep < 5; ++rep) {
    const int queries = 100000;
    t0 = Clock::now();
    for (int q = 0; q < queries; ++q) {
      const uint64_t r = rng();
      const StateInterval i =
          store.At(thread_ids[r % threads], static_cast<int64_t>((r >> 16) % end));
      checksum += i.start;
    }
    at_us.push_back(Seconds(t0, Clock::now()) * 1e6 / queries);
    t0 = Clock::now();
    for (int q = 0; q < 20; ++q) checksum += store.AtAll(static_cast<int64_t>(rng() % end)).size();
    at_all_us.push_back(Seconds(t0, Clock::now()) * 1e6 / 20);
    uint64_t outputs = 0;
    t0 = Clock::now();
    store.Range(thread_ids, 0, end, end / 2000, [&](const StateInterval& i) {
      ++outputs;
      checksum += i.end;
    });
    range_ms.push_back(Seconds(t0, Clock::now()) * 1e3);
    if (rep == 0) {
      uint64_t all = 0;
      t0 = Clock::now();
      store.Range(thread_ids, 0, end, 0, [&](const StateInterval& i) {
        ++all;
        checksum += i.end;
      });
      const double every = Seconds(t0, Clock::now());
      std::printf(
          "Range (%lld threads, whole trace, every interval): %llu intervals, %.1f ms, "
          "%.1f ns/interval\n",
          static_cast<long long>(threads), static_cast<unsigned long long>(all), every * 1e3,
          every * 1e9 / static_cast<double>(all));
    }
    // A view zoomed on 1% of the trace.
    const int64_t from = static_cast<int64_t>(rng() % (end - end / 100));
    t0 = Clock::now();
    store.Range(thread_ids, from, from + end / 100, end / 100 / 2000,
                [&](const StateInterval& i) { checksum += i.end; });
    zoom_ms.push_back(Seconds(t0, Clock::now()) * 1e3);
    if (rep == 0)
      std::printf("range: %llu intervals out for %lld threads x 2000 steps\n",
                  static_cast<unsigned long long>(outputs), static_cast<long long>(threads));
  }
  std::printf("At (one thread, random time): %.2f us median of 5 x 100000\n", Median(at_us));
  std::printf("AtAll (%zu attributes): %.1f us median of 5 x 20\n", store.num_attributes(),
              Median(at_all_us));
  std::printf("Range (%lld threads, whole trace, 2000 steps): %.1f ms median of 5\n",
              static_cast<long long>(threads), Median(range_ms));
  std::printf("Range (%lld threads, 1%% of the trace, 2000 steps): %.1f ms median of 5\n",
              static_cast<long long>(threads), Median(zoom_ms));
  std::printf("(checksum %llu)\n", static_cast<unsigned long long>(checksum + discard.sum));
  if (!keep) std::filesystem::remove(path);
  return 0;
}
