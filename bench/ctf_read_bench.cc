// Benchmark: decode a CTF trace with Causeway's reader and with babeltrace2, side by side.
//
//   ctf_read_bench TRACE_DIR [--runs N] [--no-babeltrace]
//   ctf_read_bench --child events|fields|fields-1cpu|events-next|fields-next|scan|bound|open|
//                  count-fields DIR THREADS
//                                                                  (one measurement)
//
// Causeway is measured eight times per run, each in a child process so that peak RSS and
// CPU time are its own:
//   events: every event decoded (header, id, timestamp, layout walk) in merged order,
//           taken through EventReader::ForEach;
//   fields: the same, plus every scalar field value and every text field read (through
//           the compact refs of field_ref.h, made once per event class);
// each with the stream files decoded in the merging thread (1 thread) and on decoding
// threads (ReaderOptions::decode_threads, the default of DefaultDecodeThreads() unless
// CAUSEWAY_DECODE_THREADS says otherwise); events-next: the events with decoding threads,
// taken one EventReader::Next() call each; fields-1cpu: every field with decoding threads,
// all held on one CPU, whose CPU time is the read's work with nothing lost between cores
// (the work any split over the machine's CPUs must share out); and twice more:
//   scan: every event decoded, each stream on its own without the merge
//         (EventReader::ScanUnordered, what `causeway stats` does), on 1 thread and on one
//         per CPU. Not the same job as babeltrace2's, which merges: its line is printed
//         apart from the merged reads.
// Then once more per run, the lower bound of any merged read with today's decoder on this
// machine's CPUs (ChildBound: decoding, merging and consuming measured apart, then spread
// over the CPUs with nothing lost between them), so that a goal can be checked against
// what is reachable at all.
// And once per run the open alone (open: metadata parsed, streams opened, the chunks of a
// rotated recording linked), before any event is read; it is part of every read above.
// babeltrace2 runs as `babeltrace2 -c sink.utils.dummy TRACE_DIR` (it decodes every field,
// in one thread). Prints medians of wall time, events/s, MB/s, CPU time, the ratios, and
// peak RSS.
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/loser_tree.h"
#include "ctf/reader/merge_tree.h"

namespace {

using Clock = std::chrono::steady_clock;
using causeway::ctf::Event;
using causeway::ctf::EventReader;
using causeway::ctf::ScalarRef;
using causeway::ctf::TextRef;

struct Result {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system
  uint64_t events = 0;
  uint64_t bytes = 0;
  long max_rss_kb = 0;
  uint64_t checksum = 0;
};

// Opens the trace at `dir`; null, with the error on stderr, when it cannot.
std::unique_ptr<EventReader> OpenOrSay(const std::string& dir,
                                       const causeway::ctf::ReaderOptions& options) {
  auto reader = EventReader::Open({dir}, options);
  if (!reader.ok()) {
    std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
    return nullptr;
  }
  return std::move(reader).value();
}

// The child's report: "seconds events bytes checksum" on stdout.
void PrintChildResult(Clock::time_point t0, uint64_t events, uint64_t bytes, uint64_t sum) {
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("%.6f %lu %lu %lu\n", s, static_cast<unsigned long>(events),
              static_cast<unsigned long>(bytes), static_cast<unsigned long>(sum));
}

// Holds this process, and the threads it starts from now on, on the CPU it runs on (the
// fields-1cpu child: its CPU time is then the read's work without any crossing between
// cores).
bool PinToOneCpu() {
  const int cpu = sched_getcpu();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu < 0 ? 0 : cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    std::perror("sched_setaffinity");
    return false;
  }
  return true;
}

// One stream decoded as `causeway stats` reads it: after each event, the events that
// follow in the static layout as records (StreamCursor::NextStaticRun). Adds the stream's
// records to *events and returns their checksum (time ^ class, summed).
uint64_t ScanStream(causeway::ctf::StreamCursor& cursor, uint64_t* events) {
  uint64_t n_events = 0, sum = 0;
  std::array<causeway::ctf::EventRecord, 256> run;
  while (cursor.Next()) {
    ++n_events;
    sum += cursor.event().timestamp ^ cursor.event().class_index;
    const uint32_t n = cursor.NextStaticRun(run.data(), run.size());
    n_events += n;
    for (uint32_t i = 0; i < n; ++i)
      sum += run[i].timestamp ^ (cursor.class_base() + run[i].plan_index);
  }
  *events += n_events;
  return sum;
}

// Runs in the child: decodes each stream on its own (no merge) on `threads` threads and
// prints "seconds events bytes checksum"; the checksum is a sum, so it equals the merged
// read's.
int ChildScan(const std::string& dir, unsigned threads) {
  const auto t0 = Clock::now();
  causeway::ctf::ReaderOptions options;
  options.decode_threads = 0;
  const std::unique_ptr<EventReader> reader = OpenOrSay(dir, options);
  if (!reader) return 1;
  struct alignas(64) Sums {
    uint64_t events = 0, sum = 0;
  };
  std::vector<Sums> sums(std::max(1u, threads));
  const causeway::Status status =
      reader->ScanUnordered(threads, [&](unsigned worker, causeway::ctf::StreamCursor& cursor) {
        uint64_t events = 0;
        const uint64_t sum = ScanStream(cursor, &events);
        sums[worker].events += events;
        sums[worker].sum += sum;
      });
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  uint64_t events = 0, sum = 0;
  for (const Sums& s : sums) {
    events += s.events;
    sum += s.sum;
  }
  PrintChildResult(t0, events, reader->total_bytes(), sum);
  return 0;
}

// Runs in the child: measures, in this process, what any merged read of this trace must
// spend on this machine with today's decoder, and prints
// "decode merge consume fused events checksum" (seconds for the first four):
//   decode:  every stream decoded on its own on one thread (the scan; the floor of the
//            decoding, pread's copy included);
//   merge:   the streams' timestamps, already in arrays, merged into one order without
//            branches (MergeTree up to 4 streams, LoserTree beyond, as the decoding
//            pipeline merges its runs);
//   consume: the consumer's least work, following that order over the arrays (timestamp and
//            class of every event into the checksum);
//   fused:   merge and consume in one loop.
// Nothing is handed between threads here, no Event view is built and no field is read, so
// a merged read spread over T threads cannot beat max(consume, (decode + min(fused, merge +
// consume)) / T): main() prints it as the bound, with today's merges (up to 256 streams).
// The arrays hold every event (16 bytes each): this child's memory grows with the trace,
// unlike the reader's.
int ChildBound(const std::string& dir) {
  causeway::ctf::ReaderOptions options;
  options.decode_threads = 0;
  auto timed_scan = [&](auto&& per_stream) -> double {
    const std::unique_ptr<EventReader> reader = OpenOrSay(dir, options);
    if (!reader) return -1;
    const auto t0 = Clock::now();
    const causeway::Status status = reader->ScanUnordered(
        1, [&](unsigned, causeway::ctf::StreamCursor& cursor) { per_stream(cursor); });
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      return -1;
    }
    return s;
  };
  uint64_t scan_sum = 0;
  // The scan as ChildScan runs it, static runs included: the decoder's floor.
  const double decode = timed_scan([&](causeway::ctf::StreamCursor& cursor) {
    uint64_t events = 0;
    scan_sum += ScanStream(cursor, &events);
  });
  if (decode < 0) return 1;

  // Every event of every stream, in stream order (the scan's callbacks come largest file
  // first), each stream ending in a record at UINT64_MAX.
  struct Record {
    uint64_t timestamp;
    uint64_t class_index;
  };
  std::vector<std::pair<uint32_t, std::vector<Record>>> by_stream;
  if (timed_scan([&](causeway::ctf::StreamCursor& cursor) {
        by_stream.emplace_back(cursor.event().stream_index, std::vector<Record>{});
        auto& records = by_stream.back().second;
        while (cursor.Next())
          if (cursor.event().kind == Event::Kind::kEvent)
            records.push_back({cursor.event().timestamp, cursor.event().class_index});
      }) < 0)
    return 1;
  std::sort(by_stream.begin(), by_stream.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<Record>> streams;
  uint64_t events = 0;
  for (auto& [index, records] : by_stream) {
    if (records.empty()) continue;
    if (records.back().timestamp == UINT64_MAX) {
      std::fprintf(stderr, "bound: an event at UINT64_MAX\n");
      return 1;
    }
    events += records.size();
    records.push_back({UINT64_MAX, 0});
    streams.push_back(std::move(records));
  }
  // The merges the pipeline uses: the 4-leaf tree up to 4 streams, the tree of losers up
  // to 256 (loser_tree.h).
  using Losers = causeway::ctf::LoserTree<Record>;
  if (streams.empty() || streams.size() > Losers::kMaxLeaves) {
    std::fprintf(stderr, "bound: measured for 1 to %zu streams with events, not %zu\n",
                 Losers::kMaxLeaves, streams.size());
    return 1;
  }
  const Record past_every{UINT64_MAX, 0};
  const size_t leaves = Losers::LeavesFor(streams.size());
  std::vector<const Record*> first(leaves, &past_every);
  uint64_t base = UINT64_MAX, latest = 0;
  for (size_t i = 0; i < streams.size(); ++i) {
    first[i] = streams[i].data();
    base = std::min(base, streams[i].front().timestamp);
    latest = std::max(latest, streams[i][streams[i].size() - 2].timestamp);
  }
  if (streams.size() <= 4 ? !causeway::ctf::MergeTreeSteps<4, Record>::Fits(latest)
                          : !Losers::Fits(leaves, base, latest)) {
    std::fprintf(stderr, "bound: times too far apart for the trees' keys\n");
    return 1;
  }
  auto merge = [&](auto&& take) {  // over the next power of two of the streams
    auto run = [&]<size_t P>() {
      std::array<const Record*, P> at;
      for (size_t i = 0; i < P; ++i) at[i] = first[i];
      causeway::ctf::MergeTreeSteps<P, Record> tree;
      tree.Start(at);
      tree.TakeRest(events, [&](size_t leaf, const Record* r) {
        take(leaf, r);
        return true;
      });
    };
    if (streams.size() <= 2) return run.template operator()<2>();
    if (streams.size() <= 4) return run.template operator()<4>();
    Losers tree;
    tree.Start(first.data(), leaves, base);
    tree.TakeRest(events, [&](size_t leaf, const Record* r) {
      take(leaf, r);
      return true;
    });
  };
  std::vector<uint8_t> order;
  order.reserve(events);
  auto t0 = Clock::now();
  merge([&](size_t leaf, const Record*) { order.push_back(static_cast<uint8_t>(leaf)); });
  const double merge_s = std::chrono::duration<double>(Clock::now() - t0).count();

  uint64_t sum = 0;
  t0 = Clock::now();
  {
    std::vector<const Record*> at(first);
    for (const uint8_t leaf : order) {
      const Record* r = at[leaf]++;
      sum += r->timestamp ^ r->class_index;
    }
  }
  const double consume = std::chrono::duration<double>(Clock::now() - t0).count();

  uint64_t fused_sum = 0;
  t0 = Clock::now();
  merge([&](size_t, const Record* r) { fused_sum += r->timestamp ^ r->class_index; });
  const double fused = std::chrono::duration<double>(Clock::now() - t0).count();
  if (order.size() != events || sum != fused_sum) {
    std::fprintf(stderr, "bound: the merge lost events\n");
    return 1;
  }
  (void)scan_sum;  // only there so that the decoding phase cannot be optimized away
  std::printf("%.6f %.6f %.6f %.6f %lu %lu\n", decode, merge_s, consume, fused,
              static_cast<unsigned long>(events), static_cast<unsigned long>(sum));
  return 0;
}

// Runs in the child: opens the reader and reads no event; prints "seconds 0 bytes streams".
int ChildOpen(const std::string& dir) {
  const auto t0 = Clock::now();
  const std::unique_ptr<EventReader> reader = OpenOrSay(dir, causeway::ctf::ReaderOptions{});
  if (!reader) return 1;
  PrintChildResult(t0, 0, reader->total_bytes(), reader->stream_stats().size());
  return 0;
}

// Runs in the child: decodes the trace and prints "seconds events bytes checksum".
// The merged read, every event taken through EventReader::ForEach, or through Next()
// when `next` is set (the same events, one call each).
int Child(const std::string& dir, bool fields, unsigned threads, bool next) {
  const auto t0 = Clock::now();
  causeway::ctf::ReaderOptions options;
  options.decode_threads = threads;
  const std::unique_ptr<EventReader> reader = OpenOrSay(dir, options);
  if (!reader) return 1;
  // Per event class, the scalar and text fields to read, as compact refs (field_ref.h) in
  // two arrays shared by every class.
  struct ClassFields {
    bool prepared = false;
    uint32_t scalars_begin = 0, scalars_end = 0, texts_begin = 0, texts_end = 0;
  };
  std::vector<ClassFields> classes(reader->num_event_classes());
  std::vector<ScalarRef> scalars;
  std::vector<TextRef> texts;
  uint64_t events = 0, sum = 0;
  auto prepare = [&](const Event& e) {
    ClassFields& c = classes[e.class_index];
    c.prepared = true;
    c.scalars_begin = static_cast<uint32_t>(scalars.size());
    c.texts_begin = static_cast<uint32_t>(texts.size());
    for (int i = 0; i < static_cast<int>(e.plan->fields.size()); ++i) {
      if (auto r = causeway::ctf::ScalarRefOf(*e.plan, i))
        scalars.push_back(*r);
      else if (auto t = causeway::ctf::TextRefOf(*e.plan, i))
        texts.push_back(*t);
    }
    c.scalars_end = static_cast<uint32_t>(scalars.size());
    c.texts_end = static_cast<uint32_t>(texts.size());
  };
  auto read_fields = [&](const Event& e) __attribute__((always_inline)) {
    const ClassFields* c = &classes[e.class_index];
    if (!c->prepared) [[unlikely]]
      prepare(e);
    // Summed in a local: `sum` would be stored at every field, the rare out-of-line read
    // being a call that might read it.
    uint64_t acc = 0;
    const ScalarRef* s = scalars.data();
    for (uint32_t i = c->scalars_begin; i < c->scalars_end; ++i) acc += e.GetUnsigned(s[i]);
    const TextRef* t = texts.data();
    for (uint32_t i = c->texts_begin; i < c->texts_end; ++i) acc += e.GetString(t[i]).size();
    sum += acc;
  };
  if (next) {
    while (const Event* e = reader->Next()) {
      ++events;
      sum += e->timestamp ^ e->class_index;
      if (fields && e->kind == Event::Kind::kEvent) read_fields(*e);
    }
  } else if (fields) {
    reader->ForEach([&](const Event& e) {
      ++events;
      sum += e.timestamp ^ e.class_index;
      if (e.kind == Event::Kind::kEvent) read_fields(e);
    });
  } else {
    reader->ForEach([&](const Event& e) {
      ++events;
      sum += e.timestamp ^ e.class_index;
    });
  }
  if (!reader->status().ok()) {
    std::fprintf(stderr, "%s\n", reader->status().ToString().c_str());
    return 1;
  }
  PrintChildResult(t0, events, reader->total_bytes(), sum);
  return 0;
}

// Runs in the child, untimed: prints how many field values the fields children read (the
// scalars and texts of every event, as Child's read_fields takes them), counted apart so
// that the count costs the timed reads nothing.
int ChildCountFieldReads(const std::string& dir) {
  causeway::ctf::ReaderOptions options;
  options.decode_threads = 0;
  const std::unique_ptr<EventReader> reader = OpenOrSay(dir, options);
  if (!reader) return 1;
  std::vector<int64_t> per_class(reader->num_event_classes(), -1);
  uint64_t reads = 0;
  reader->ForEach([&](const Event& e) {
    if (e.kind != Event::Kind::kEvent) return;
    int64_t& n = per_class[e.class_index];
    if (n < 0) {
      n = 0;
      for (int i = 0; i < static_cast<int>(e.plan->fields.size()); ++i)
        if (causeway::ctf::ScalarRefOf(*e.plan, i) || causeway::ctf::TextRefOf(*e.plan, i)) ++n;
    }
    reads += static_cast<uint64_t>(n);
  });
  if (!reader->status().ok()) {
    std::fprintf(stderr, "%s\n", reader->status().ToString().c_str());
    return 1;
  }
  std::printf("%lu\n", static_cast<unsigned long>(reads));
  return 0;
}

// Runs `argv` in a child process; returns wall time, stdout and the child's peak RSS.
bool Spawn(const std::vector<std::string>& args, Result* r, std::string* out) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return false;
  const auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    close(pipefd[0]);
    close(pipefd[1]);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  r->seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r->max_rss_kb = ru.ru_maxrss;
  r->cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

struct Contender {
  std::string label;
  std::string mode;  // the --child mode it runs (events, fields, fields-1cpu, ...)
  unsigned threads;
  std::vector<double> wall, cpu;
  Result last;
  long rss_kb = 0;
};

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "--child") == 0) {
    const auto threads = static_cast<unsigned>(std::atoi(argv[4]));
    if (std::strcmp(argv[2], "scan") == 0) return ChildScan(argv[3], threads);
    if (std::strcmp(argv[2], "bound") == 0) return ChildBound(argv[3]);
    if (std::strcmp(argv[2], "open") == 0) return ChildOpen(argv[3]);
    if (std::strcmp(argv[2], "count-fields") == 0) return ChildCountFieldReads(argv[3]);
    const std::string mode = argv[2];
    if (mode == "fields-1cpu" && !PinToOneCpu()) return 1;
    const bool next = mode == "events-next" || mode == "fields-next";
    return Child(argv[3], mode.starts_with("fields"), threads, next);
  }
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s TRACE_DIR [--runs N] [--no-babeltrace]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  int runs = 3;
  bool babeltrace = true;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--no-babeltrace") == 0)
      babeltrace = false;
  }
  const unsigned threads = std::max(1u, causeway::ctf::DefaultDecodeThreads());
  const std::string t = std::to_string(threads);
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Contender> contenders = {
      {"causeway events, 1 thread", "events", 0, {}, {}, {}, 0},
      {"causeway events, +" + t + " decoding", "events", threads, {}, {}, {}, 0},
      {"causeway every field, 1 thread", "fields", 0, {}, {}, {}, 0},
      {"causeway every field, +" + t + " decoding", "fields", threads, {}, {}, {}, 0},
      {"causeway every field, +" + t + " dec., 1 CPU", "fields-1cpu", threads, {}, {}, {}, 0},
      {"causeway events by Next(), +" + t + " dec.", "events-next", threads, {}, {}, {}, 0},
      {"causeway scan, no merge, 1 thread", "scan", 1, {}, {}, {}, 0},
      {"causeway scan, no merge, " + std::to_string(cpus) + " threads",
       "scan",
       cpus,
       {},
       {},
       {},
       0},
  };
  constexpr size_t kMerged = 6;  // the contenders before this one merge, like babeltrace2
  constexpr size_t kFieldsOneCpu = 4;
  const std::string self = "/proc/self/exe";
  std::vector<double> t_bt, cpu_bt;
  long rss_bt = 0;
  // The bound child's phases (see ChildBound), per run.
  std::vector<double> b_decode, b_merge, b_consume, b_fused, b_bound;
  unsigned long b_events = 0, b_sum = 0;
  bool b_failed = false;  // e.g. more streams than the tree takes: said once, not fatal
  std::vector<double> t_open, cpu_open;
  unsigned long open_streams = 0;
  for (int run = 0; run < runs; ++run) {
    {
      Result r;
      std::string out;
      double s = 0;
      unsigned long ev = 0, by = 0;
      if (!Spawn({self, "--child", "open", dir, "0"}, &r, &out) ||
          std::sscanf(out.c_str(), "%lf %lu %lu %lu", &s, &ev, &by, &open_streams) != 4) {
        std::fprintf(stderr, "causeway reader failed to open %s\n", dir.c_str());
        return 1;
      }
      t_open.push_back(r.seconds);
      cpu_open.push_back(r.cpu_seconds);
    }
    // Interleaved so that machine noise hits every contender alike.
    for (Contender& c : contenders) {
      Result r;
      std::string out;
      if (!Spawn({self, "--child", c.mode, dir, std::to_string(c.threads)}, &r, &out)) {
        std::fprintf(stderr, "causeway reader failed on %s\n", dir.c_str());
        return 1;
      }
      double s = 0;
      unsigned long ev = 0, by = 0, sum = 0;
      std::sscanf(out.c_str(), "%lf %lu %lu %lu", &s, &ev, &by, &sum);
      r.events = ev;
      r.bytes = by;
      r.checksum = sum;
      // Wall time of the whole process, like babeltrace2's below (s is the in-process part).
      c.wall.push_back(r.seconds);
      c.cpu.push_back(r.cpu_seconds);
      c.last = r;
      c.rss_kb = std::max(c.rss_kb, r.max_rss_kb);
    }
    if (!b_failed) {
      Result r;
      std::string out;
      double d = 0, m = 0, c = 0, f = 0;
      if (Spawn({self, "--child", "bound", dir, "0"}, &r, &out) &&
          std::sscanf(out.c_str(), "%lf %lf %lf %lf %lu %lu", &d, &m, &c, &f, &b_events, &b_sum) ==
              6) {
        b_decode.push_back(d);
        b_merge.push_back(m);
        b_consume.push_back(c);
        b_fused.push_back(f);
        b_bound.push_back(std::max(c, (d + std::min(f, m + c)) / cpus));
      } else {
        std::fprintf(stderr, "no lower bound for %s (the reason is above)\n", dir.c_str());
        b_failed = true;
      }
    }
    if (babeltrace) {
      Result r;
      std::string out;
      if (!Spawn({"babeltrace2", "-c", "sink.utils.dummy", dir}, &r, &out)) {
        std::fprintf(stderr, "babeltrace2 failed on %s\n", dir.c_str());
        return 1;
      }
      t_bt.push_back(r.seconds);
      cpu_bt.push_back(r.cpu_seconds);
      rss_bt = std::max(rss_bt, r.max_rss_kb);
    }
  }
  // Neither the decoding threads nor the scan may change what is read.
  for (const Contender& c : contenders) {
    const Contender& same = contenders[c.mode.starts_with("fields") ? 2 : 0];
    if (c.last.events != same.last.events || c.last.checksum != same.last.checksum) {
      std::fprintf(stderr, "%s read something else than %s\n", c.label.c_str(), same.label.c_str());
      return 1;
    }
  }
  // Without discarded events, the bound's arrays hold exactly what the merged read returns.
  if (b_events == contenders[0].last.events && b_sum != contenders[0].last.checksum) {
    std::fprintf(stderr, "the bound measurement read something else than the merged read\n");
    return 1;
  }
  const double events = static_cast<double>(contenders[0].last.events);
  const double mb = static_cast<double>(contenders[0].last.bytes) / 1e6;
  auto line = [&](const std::string& who, double s, double cpu, long rss) {
    std::printf(
        "%-38s median %7.3f s  %7.2f M events/s  %7.1f MB/s  CPU %7.3f s  peak RSS %6.1f MB\n",
        who.c_str(), s, events / s / 1e6, mb / s, cpu, static_cast<double>(rss) / 1024.0);
  };
  std::printf("trace: %s (%.1f MB, %.0f events), %d runs, medians; %u decoding threads\n",
              dir.c_str(), mb, events, runs, threads);
  for (const Contender& c : contenders) line(c.label, Median(c.wall), Median(c.cpu), c.rss_kb);
  std::printf("%-38s median %7.3f s  (%lu streams; part of every read above)  CPU %7.3f s\n",
              "causeway open alone", Median(t_open), open_streams, Median(cpu_open));
  if (babeltrace) {
    line("babeltrace2 -c sink.utils.dummy", Median(t_bt), Median(cpu_bt), rss_bt);
    const double bt = Median(t_bt);
    std::printf("ratio babeltrace2 / causeway (wall time, goal >= 50x):\n");
    for (size_t i = 0; i < contenders.size(); ++i) {
      const Contender& c = contenders[i];
      if (i == kMerged)
        std::printf("not the same job (no merge by time; babeltrace2 merges), for reference:\n");
      std::printf("  %-36s %6.1fx   (CPU time %6.1fx)\n", c.label.c_str(), bt / Median(c.wall),
                  Median(cpu_bt) / Median(c.cpu));
    }
  }
  {
    // Every field read with the decoding threads held on one CPU: its CPU time is the
    // read's work with nothing lost crossing between cores. No split of that work over
    // this machine's CPUs can take less than work / CPUs.
    const double work = Median(contenders[kFieldsOneCpu].cpu);
    std::printf(
        "every field: the read's work on 1 CPU (CPU median %.3f s), spread evenly over %u CPUs "
        "with nothing lost between them: %.3f s",
        work, cpus, work / cpus);
    if (babeltrace) {
      const double bt = Median(t_bt);
      std::printf(" = %.1fx babeltrace2; 50x needs at most %.3f s of work in all",
                  bt / (work / cpus), bt / 50 * cpus);
    }
    std::printf("\n");
  }
  if (b_failed) return 0;
  const double per_event = 1e9 / static_cast<double>(std::max<unsigned long>(1, b_events));
  std::printf(
      "lower bound of a merged read with this decoder on %u threads, nothing handed between "
      "them, no view built (median of %d; ns per event):\n"
      "  decode %.1f (the scan on 1 thread) + merge %.1f, consume %.1f, both in one loop %.1f\n"
      "  bound max(consume, (decode + merge and consume) / %u): %.3f s",
      cpus, runs, Median(b_decode) * per_event, Median(b_merge) * per_event,
      Median(b_consume) * per_event, Median(b_fused) * per_event, cpus, Median(b_bound));
  if (babeltrace) std::printf(" = %.1fx babeltrace2", Median(t_bt) / Median(b_bound));
  std::printf("\n");
  // What a 50x read of every field leaves for reading the values, once the bound's
  // decoding and merging (no view built, nothing handed over) are paid.
  unsigned long reads = 0;
  {
    Result r;
    std::string out;
    if (babeltrace && Spawn({self, "--child", "count-fields", dir, "0"}, &r, &out))
      std::sscanf(out.c_str(), "%lu", &reads);
  }
  if (reads > 0 && b_events > 0) {
    const double floor_work =
        Median(b_decode) + std::min(Median(b_fused), Median(b_merge) + Median(b_consume));
    const double budget = Median(t_bt) / 50 * cpus;
    std::printf(
        "every field: %.1f M field values read (%.2f per event); a 50x read may take %.3f s of "
        "work on %u CPUs, the bound's decoding and merging alone take %.3f s: ",
        static_cast<double>(reads) / 1e6, static_cast<double>(reads) / events, budget, cpus,
        floor_work);
    if (budget > floor_work)
      std::printf("%.2f ns of work left per field value",
                  (budget - floor_work) * 1e9 / static_cast<double>(reads));
    else
      std::printf("nothing left for the values");
    // Today's cost of the values: every field less events, both on 1 thread (CPU time).
    std::printf(
        "; reading them costs %.2f ns per value today\n",
        (Median(contenders[2].cpu) - Median(contenders[0].cpu)) * 1e9 / static_cast<double>(reads));
  }
  return 0;
}
