// Benchmark: the state store (src/state) beside PostgreSQL and SQLite's R*-tree, on the
// same intervals, in one run (issue 58, item 6).
//
//   store_compare_bench TRACE_DIR --work DIR [--pg CONNINFO] [--no-sqlite] [--runs 3]
//       [--singles 2000] [--fulls 100] [--views 10] [--threads 500] [--steps 2000]
//       [--window F]... [--seed 1]
//
// The intervals are the thread states of every worker and who ran on each CPU, from the
// kernel analysis of TRACE_DIR (store_compare/intervals.h). Measured:
//   analysis: the kernel analysis alone, and analysis + extracting the intervals + writing
//     the store, in CPU time (every thread): MB of trace per second per core; `--runs`
//     interleaved runs, medians;
//   construction, CPU (the benchmark's and PostgreSQL's backend process') and wall: the
//     store written by StateWriter; PostgreSQL's COPY + CREATE INDEX + ANALYZE
//     (store_compare/postgres_backend.h); SQLite's inserts into the R*-tree in one
//     transaction (store_compare/sqlite_backend.h); each from the same intervals in memory;
//   disk size: the store file; PostgreSQL's tables with their indexes; SQLite's file;
//   queries, warm (each list run once untimed first), medians of per-query wall times:
//     single: one random attribute's value at a random time;
//     full: every attribute's value at a random time;
//     view: the `--threads` thread-state attributes with the most intervals over random windows of
//       a fraction F of the trace (`--window`, default 1 and 0.01) at `--steps` steps; the
//       store answers at that resolution, the databases return every interval overlapping
//       the window (what a user's SQL does).
// Every answer of the single and full queries, and the views of a few windows (the store
// at full resolution), are compared across the systems: the mismatch count must be 0.
// Without --pg, PostgreSQL is left out (scripts/bench_store.sh runs a private server).
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/kernel_analysis.h"
#include "store_compare/backend.h"
#include "store_compare/intervals.h"
#include "store_compare/postgres_backend.h"
#include "store_compare/sqlite_backend.h"
#include "store_compare/store_backend.h"

namespace {

using causeway::bench::Backend;
using causeway::bench::Dataset;
using causeway::bench::Interval;
using causeway::bench::ValueKind;
using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void Die(const std::string& m) {
  std::fprintf(stderr, "store_compare_bench: %s\n", m.c_str());
  std::exit(1);
}
template <typename T>
T Must(causeway::StatusOr<T> v, const char* what) {
  if (!v.ok()) Die(std::string(what) + ": " + v.status().ToString());
  return std::move(*v);
}
void Must(const causeway::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

std::string WindowName(double fraction) {
  if (fraction >= 1) return "whole trace";
  char s[32];
  std::snprintf(s, sizeof s, "%.3g%% of trace", 100 * fraction);
  return s;
}

struct Options {
  std::string trace, work, pg;
  bool sqlite = true;
  int runs = 3, singles = 2000, fulls = 100, views = 10, threads = 500, steps = 2000;
  std::vector<double> windows;
  uint64_t seed = 1;
};

// An answer as compared: null answers carry no bounds (the store reports the gap's).
struct Answer {
  uint32_t attribute;
  int64_t start, end;
  ValueKind kind;
  int64_t value;
  bool operator==(const Answer&) const = default;
  bool operator<(const Answer& o) const {
    return std::tie(attribute, start, end) < std::tie(o.attribute, o.start, o.end);
  }
};
std::vector<Answer> Normalize(const std::vector<Interval>& v) {
  std::vector<Answer> out;
  for (const Interval& i : v)
    if (i.kind != ValueKind::kNull) out.push_back({i.attribute, i.start, i.end, i.kind, i.value});
  std::sort(out.begin(), out.end());
  return out;
}

struct Timed {
  std::vector<double> seconds;
  std::vector<std::vector<Answer>> answers;
  uint64_t rows = 0;
};

// Runs `query(i, &out)` for i in [0, warm) to warm up, then for i in [0, n) timed.
Timed RunQueries(size_t n, size_t warm, bool keep,
                 const std::function<causeway::Status(size_t, std::vector<Interval>*)>& query) {
  std::vector<Interval> out;
  for (size_t i = 0; i < std::min(n, warm); ++i) Must(query(i, &out), "query (warm-up)");
  Timed t;
  for (size_t i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    Must(query(i, &out), "query");
    t.seconds.push_back(Since(t0));
    t.rows += out.size();
    if (keep) t.answers.push_back(Normalize(out));
  }
  return t;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--work")
      o.work = next();
    else if (a == "--pg")
      o.pg = next();
    else if (a == "--no-sqlite")
      o.sqlite = false;
    else if (a == "--runs")
      o.runs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--singles")
      o.singles = std::max(1, std::atoi(next().c_str()));
    else if (a == "--fulls")
      o.fulls = std::max(1, std::atoi(next().c_str()));
    else if (a == "--views")
      o.views = std::max(1, std::atoi(next().c_str()));
    else if (a == "--threads")
      o.threads = std::max(1, std::atoi(next().c_str()));
    else if (a == "--steps")
      o.steps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--window")
      o.windows.push_back(std::atof(next().c_str()));
    else if (a == "--seed")
      o.seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (o.trace.empty() && a[0] != '-')
      o.trace = a;
    else
      Die("unknown argument " + a);
  }
  if (o.trace.empty() || o.work.empty())
    Die("usage: store_compare_bench TRACE_DIR --work DIR [--pg CONNINFO] [--no-sqlite] [--runs N] "
        "[--singles N] [--fulls N] [--views N] [--threads N] [--steps N] [--window F]... "
        "[--seed S]");
  if (o.windows.empty()) o.windows = {1.0, 0.01};
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = Parse(argc, argv);
  mkdir(opt.work.c_str(), 0755);

  // 1. The analysis alone, and with the store written from it (CPU time, every thread):
  // the intervals are extracted from the finished graph here (sorted by end, the order a
  // one-pass feed writes them in), which a feed inside the analysis does as it goes.
  std::vector<double> analysis_cpu, analysis2_cpu, extract_cpu, write_cpu;
  Dataset d;
  uint64_t trace_bytes = 0;
  for (int r = 0; r < opt.runs; ++r) {
    double c0 = CpuSeconds();
    {
      auto a = Must(causeway::analysis::AnalyzeKernel({opt.trace}), "analysis");
      trace_bytes = a->bytes;
    }
    analysis_cpu.push_back(CpuSeconds() - c0);
    c0 = CpuSeconds();
    {
      auto a = Must(causeway::analysis::AnalyzeKernel({opt.trace}), "analysis");
      analysis2_cpu.push_back(CpuSeconds() - c0);
      c0 = CpuSeconds();
      d = causeway::bench::ExtractIntervals(*a);
      extract_cpu.push_back(CpuSeconds() - c0);
    }
    c0 = CpuSeconds();
    auto store = causeway::bench::MakeStoreBackend(opt.work + "/analysis.store");
    Must(store->Build(d), "store");
    write_cpu.push_back(CpuSeconds() - c0);
    std::fprintf(stderr,
                 "analysis run %d: %.2f s CPU alone; %.2f s analysis + %.2f s extraction + %.2f s "
                 "writing the store\n",
                 r + 1, analysis_cpu.back(), analysis2_cpu.back(), extract_cpu.back(),
                 write_cpu.back());
  }
  const double trace_mb = static_cast<double>(trace_bytes) / 1e6;
  size_t thread_intervals = 0;
  {
    std::vector<bool> is_thread(d.attributes.size());
    for (uint32_t a : d.thread_state_attributes) is_thread[a] = true;
    for (const Interval& i : d.intervals) thread_intervals += is_thread[i.attribute];
  }
  std::printf(
      "trace %s: %.1f MB, %.3f s of time; %zu intervals (%zu thread states, %zu CPU), "
      "%zu attributes (%zu threads)\n",
      opt.trace.c_str(), trace_mb, static_cast<double>(d.end - d.begin) / 1e9, d.intervals.size(),
      thread_intervals, d.intervals.size() - thread_intervals, d.attributes.size(),
      d.thread_state_attributes.size());

  // 2. Construction and size, each system from the same intervals.
  std::vector<std::unique_ptr<Backend>> systems;
  systems.push_back(causeway::bench::MakeStoreBackend(opt.work + "/intervals.store"));
  if (!opt.pg.empty()) systems.push_back(Must(causeway::bench::ConnectPostgres(opt.pg), "pg"));
  if (opt.sqlite)
    systems.push_back(Must(causeway::bench::OpenSqlite(opt.work + "/intervals.sqlite"), "sqlite"));
  std::vector<double> build_s, build_cpu, size_mb;
  for (auto& s : systems) {
    std::fprintf(stderr, "building %s...\n", s->name().c_str());
    const auto t0 = Clock::now();
    const double c0 = CpuSeconds() + s->ServerCpuSeconds();
    Must(s->Build(d), s->name().c_str());
    build_s.push_back(Since(t0));
    build_cpu.push_back(CpuSeconds() + s->ServerCpuSeconds() - c0);
    size_mb.push_back(static_cast<double>(Must(s->DiskBytes(), "size")) / 1e6);
    std::fprintf(stderr, "  %.2f s wall, %.2f s CPU, %.1f MB\n", build_s.back(), build_cpu.back(),
                 size_mb.back());
  }

  // 3. Queries.
  std::mt19937_64 rng(opt.seed);
  auto random_time = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi - 1))(rng);
  };
  std::vector<std::pair<uint32_t, int64_t>> singles;
  for (int i = 0; i < opt.singles; ++i)
    singles.push_back({std::uniform_int_distribution<uint32_t>(0, d.attributes.size() - 1)(rng),
                       random_time(d.begin, d.end)});
  std::vector<int64_t> fulls;
  for (int i = 0; i < opt.fulls; ++i) fulls.push_back(random_time(d.begin, d.end));
  // The view's threads: the `--threads` with the most intervals (a trace of short-lived
  // threads has few alive at any time; a view shows the busy ones).
  std::vector<uint32_t> view_threads = d.thread_state_attributes;
  {
    std::vector<uint64_t> count(d.attributes.size());
    for (const Interval& i : d.intervals) ++count[i.attribute];
    std::stable_sort(view_threads.begin(), view_threads.end(),
                     [&](uint32_t a, uint32_t b) { return count[a] > count[b]; });
  }
  view_threads.resize(std::min<size_t>(view_threads.size(), opt.threads));
  std::sort(view_threads.begin(), view_threads.end());
  struct Window {
    int64_t t1, t2;
  };
  std::vector<std::vector<Window>> windows;
  for (double f : opt.windows) {
    const int64_t width = std::max<int64_t>(
        opt.steps, static_cast<int64_t>(static_cast<double>(d.end - d.begin) * f));
    std::vector<Window> w;
    // A whole-trace view has one position: a few repeats give its median (the databases
    // take seconds for it on a large trace).
    for (int i = 0; i < (f >= 1 ? std::min(opt.views, 3) : opt.views); ++i) {
      const int64_t t1 = random_time(d.begin, std::max(d.begin + 1, d.end - width + 1));
      w.push_back({t1, t1 + width});
    }
    windows.push_back(w);
  }

  const size_t n = systems.size();
  std::vector<Timed> single_t(n), full_t(n);
  std::vector<std::vector<Timed>> view_t(n);
  for (size_t s = 0; s < n; ++s) {
    Backend& b = *systems[s];
    std::fprintf(stderr, "querying %s...\n", b.name().c_str());
    single_t[s] =
        RunQueries(singles.size(), singles.size(), true, [&](size_t i, std::vector<Interval>* out) {
          out->resize(1);
          return b.At(singles[i].first, singles[i].second, &(*out)[0]);
        });
    full_t[s] =
        RunQueries(fulls.size(), fulls.size(), true,
                   [&](size_t i, std::vector<Interval>* out) { return b.AtAll(fulls[i], out); });
    // Whole-trace windows are all the same one: warmed once.
    for (const std::vector<Window>& w : windows)
      view_t[s].push_back(RunQueries(w.size(), w[0].t1 == w.back().t1 ? 1 : w.size(), false,
                                     [&](size_t i, std::vector<Interval>* out) {
                                       const int64_t step = (w[i].t2 - w[i].t1) / opt.steps;
                                       return b.Range(view_threads, w[i].t1, w[i].t2, step, out);
                                     }));
  }

  // 4. The same answers everywhere: every single and full query, and the first views of
  // each window size at full resolution.
  uint64_t mismatches = 0, compared = 0;
  for (size_t s = 1; s < n; ++s) {
    for (size_t i = 0; i < singles.size(); ++i, ++compared)
      mismatches += single_t[s].answers[i] != single_t[0].answers[i];
    for (size_t i = 0; i < fulls.size(); ++i, ++compared)
      mismatches += full_t[s].answers[i] != full_t[0].answers[i];
  }
  for (const std::vector<Window>& w : windows) {
    for (size_t i = 0; i < std::min<size_t>(w.size(), w[0].t1 == w.back().t1 ? 1 : 2); ++i) {
      std::vector<Interval> out;
      Must(systems[0]->Range(view_threads, w[i].t1, w[i].t2, 0, &out), "view");
      const std::vector<Answer> want = Normalize(out);
      for (size_t s = 1; s < n; ++s, ++compared) {
        Must(systems[s]->Range(view_threads, w[i].t1, w[i].t2, 0, &out), "view");
        const bool same = Normalize(out) == want;
        mismatches += !same;
        if (!same)
          std::fprintf(stderr, "view [%ld, %ld): %s %zu intervals, store %zu\n", (long)w[i].t1,
                       (long)w[i].t2, systems[s]->name().c_str(), Normalize(out).size(),
                       want.size());
      }
    }
  }

  // 5. The table.
  std::printf("\n%-34s", "");
  for (auto& s : systems) std::printf(" %12s", s->name().c_str());
  for (size_t s = 1; s < n; ++s) std::printf(" %12s", (systems[s]->name() + "/store").c_str());
  std::printf("\n");
  auto row = [&](const std::string& label, const std::vector<double>& v) {
    std::printf("%-34s", label.c_str());
    for (double x : v) std::printf(" %12.3f", x);
    for (size_t s = 1; s < n; ++s) std::printf(" %11.1fx", v[0] > 0 ? v[s] / v[0] : 0);
    std::printf("\n");
  };
  auto medians = [&](const std::vector<Timed>& t, double scale) {
    std::vector<double> v;
    for (const Timed& x : t) v.push_back(Median(x.seconds) * scale);
    return v;
  };
  row("construction, s CPU (ours + server)", build_cpu);
  row("construction, s wall", build_s);
  row("disk size, MB", size_mb);
  const std::vector<double> single_us = medians(single_t, 1e6);
  const std::vector<double> full_ms = medians(full_t, 1e3);
  row("single query, us (median)", single_us);
  row("full query (all attributes), ms", full_ms);
  std::vector<std::vector<double>> view_ms;
  for (size_t k = 0; k < windows.size(); ++k) {
    std::vector<Timed> t;
    for (size_t s = 0; s < n; ++s) t.push_back(view_t[s][k]);
    view_ms.push_back(medians(t, 1e3));
    row("view, " + WindowName(opt.windows[k]) + ", ms (median)", view_ms.back());
    std::printf("%-34s", "  intervals per view");
    for (size_t s = 0; s < n; ++s)
      std::printf(" %12.0f",
                  static_cast<double>(t[s].rows) / static_cast<double>(t[s].seconds.size()));
    std::printf("\n");
  }
  std::printf(
      "queries: %zu single, %zu full, %d views of %zu threads at %d steps per window; "
      "answers compared: %lu, mismatches: %lu\n",
      singles.size(), fulls.size(), opt.views, view_threads.size(), opt.steps,
      static_cast<unsigned long>(compared), static_cast<unsigned long>(mismatches));

  const double a_cpu = Median(analysis_cpu), e_cpu = Median(extract_cpu), w_cpu = Median(write_cpu);
  const double s_cpu = Median(analysis2_cpu) + e_cpu + w_cpu;
  std::printf(
      "\nanalysis alone: %.2f s CPU, %.1f MB/s per core; analysis + extracting the "
      "intervals (%.2f s) + writing the store (%.2f s): %.2f s CPU, %.1f MB/s per core; "
      "without the extraction: %.1f MB/s per core (medians of %d runs)\n",
      a_cpu, trace_mb / a_cpu, e_cpu, w_cpu, s_cpu, trace_mb / s_cpu,
      trace_mb / (Median(analysis2_cpu) + w_cpu), opt.runs);

  // 6. The goals of issue 58.
  std::printf("\n%-52s %14s  %s\n", "goal", "figure", "met");
  auto goal = [](const std::string& what, const std::string& figure, bool met) {
    std::printf("%-52s %14s  %s\n", what.c_str(), figure.c_str(), met ? "yes" : "NO");
  };
  char f[64];
  const bool pg = !opt.pg.empty();
  if (pg) {
    std::snprintf(f, sizeof f, "%.1fx", build_cpu[1] / build_cpu[0]);
    goal("build >= 10x faster than PostgreSQL (CPU)", f, build_cpu[1] / build_cpu[0] >= 10);
    std::snprintf(f, sizeof f, "%.1fx", build_s[1] / build_s[0]);
    goal("build >= 10x faster than PostgreSQL (wall)", f, build_s[1] / build_s[0] >= 10);
  }
  std::snprintf(f, sizeof f, "%.0f MB/s", trace_mb / s_cpu);
  goal("analysis + store >= 300 MB of trace/s per core", f, trace_mb / s_cpu >= 300);
  if (pg) {
    std::snprintf(f, sizeof f, "%.3f", size_mb[0] / size_mb[1]);
    goal("size <= 1/3 of PostgreSQL's", f, size_mb[0] / size_mb[1] <= 1.0 / 3);
  }
  std::snprintf(f, sizeof f, "%.1f%%", 100 * size_mb[0] / trace_mb);
  goal("size <= 25% of the trace", f, size_mb[0] / trace_mb <= 0.25);
  std::snprintf(f, sizeof f, "%.3g us", single_us[0]);
  goal("single query <= 100 us", f, single_us[0] <= 100);
  if (pg) {
    std::snprintf(f, sizeof f, "%.1fx", single_us[1] / single_us[0]);
    goal("single query >= 10x faster than PostgreSQL", f, single_us[1] / single_us[0] >= 10);
    std::snprintf(f, sizeof f, "%.1fx", full_ms[1] / full_ms[0]);
    goal("full query >= 10x faster than PostgreSQL", f, full_ms[1] / full_ms[0] >= 10);
  }
  for (size_t k = 0; k < windows.size(); ++k) {
    std::snprintf(f, sizeof f, "%.3g ms", view_ms[k][0]);
    goal("view (" + WindowName(opt.windows[k]) + ") <= 30 ms", f, view_ms[k][0] <= 30);
    if (pg) {
      std::snprintf(f, sizeof f, "%.1fx", view_ms[k][1] / view_ms[k][0]);
      goal("view (" + WindowName(opt.windows[k]) + ") >= 10x faster than PostgreSQL", f,
           view_ms[k][1] / view_ms[k][0] >= 10);
    }
  }
  if (trace_mb < 900)
    std::printf("(the goals are set for a 1 GB trace; this one is %.0f MB)\n", trace_mb);
  return mismatches == 0 ? 0 : 1;
}
