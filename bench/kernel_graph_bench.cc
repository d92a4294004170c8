// Benchmark: kernel execution graph + critical path of every thread that ran.
//
//   kernel_graph_bench TRACE_DIR [TRACE_DIR...] [--runs N] [--flat]
//
// Each trace is measured in child processes (so peak RSS is their own), interleaved:
//   read:  the reader alone, every event decoded in merged order (the floor);
//   graph: reader + kernel model + execution graph, then the critical path of every thread
//          that ran, over its whole life, as its time by state (PathStateTimes: summed
//          over the threads' resolved timelines, each wait's resolution summed once);
//   flat:  (--flat) the same paths walked one by one by CriticalPathFinder, for comparison;
//   verify: (--verify) both, checking that they agree on every thread (once, not timed).
// Prints medians of wall and CPU time, MB/s and events/s per core (CPU time), the graph's
// size, peak RSS as a share of the trace size, and the ratio to Trace Compass's published
// figure (seed 000 §4.2: 500 MB in about 15 s, 33 MB/s; Trace Compass does not run here).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/kernel_analysis.h"
#include "ctf/reader/event_reader.h"
#include "graph/critical_path.h"
#include "graph/path_state_times.h"
#include "graph/thread_times.h"

namespace {

using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Child: prints "wall cpu events bytes threads paths segments vertices links graph_bytes".
int Child(const std::string& mode, const std::string& dir) {
  const auto t0 = Clock::now();
  const double c0 = CpuSeconds();
  if (mode == "read") {
    auto reader = causeway::ctf::EventReader::Open({dir});
    if (!reader.ok()) return std::fprintf(stderr, "%s\n", reader.status().ToString().c_str()), 1;
    uint64_t n = 0, sum = 0;
    while (const auto* e = (*reader)->Next()) {
      ++n;
      sum += e->timestamp;
    }
    if (!(*reader)->status().ok()) return 1;
    std::printf("%.6f %.6f %lu %lu 0 0 %lu 0 0 0\n",
                std::chrono::duration<double>(Clock::now() - t0).count(), CpuSeconds() - c0,
                static_cast<unsigned long>(n), static_cast<unsigned long>((*reader)->total_bytes()),
                static_cast<unsigned long>(sum & 1));
    return 0;
  }
  auto a = causeway::analysis::AnalyzeKernel({dir});
  if (!a.ok()) return std::fprintf(stderr, "%s\n", a.status().ToString().c_str()), 1;
  const causeway::graph::ExecutionGraph& g = (*a)->graph;
  const double build_cpu = CpuSeconds() - c0;
  const auto times = causeway::graph::ComputeThreadTimes(g);
  uint64_t paths = 0, segments = 0, check = 0;
  if (mode == "verify") {
    // Both ways on every thread that ran: the summed times must equal the walked paths'.
    causeway::graph::CriticalPathFinder finder(g);
    causeway::graph::CriticalPath path;
    causeway::graph::PathStateTimes sums(g);
    uint64_t mismatches = 0;
    for (causeway::graph::WorkerId w = 0; w < g.num_workers(); ++w) {
      if (times[w].by_state[static_cast<int>(causeway::graph::State::kRunning)] == 0) continue;
      finder.Compute(w, INT64_MIN, INT64_MAX, &path);
      const causeway::graph::PathSummary walked = causeway::graph::Summarize(path);
      const causeway::graph::StateTimesArray summed = sums.Of(w, INT64_MIN, INT64_MAX);
      mismatches += !std::equal(summed.begin(), summed.end(), walked.by_state);
      ++paths;
      segments += path.segments.size();
    }
    std::fprintf(stderr, "verify: %lu paths, %lu segments walked, %lu mismatches\n",
                 static_cast<unsigned long>(paths), static_cast<unsigned long>(segments),
                 static_cast<unsigned long>(mismatches));
    if (mismatches) return 1;
    check = 1;
  } else if (mode == "flat") {
    // Each thread's path walked on its own (CriticalPathFinder), as `causeway critpath` does.
    causeway::graph::CriticalPathFinder finder(g);
    causeway::graph::CriticalPath path;
    for (causeway::graph::WorkerId w = 0; w < g.num_workers(); ++w) {
      if (times[w].by_state[static_cast<int>(causeway::graph::State::kRunning)] == 0) continue;
      finder.Compute(w, INT64_MIN, INT64_MAX, &path);
      const causeway::graph::PathSummary sum = causeway::graph::Summarize(path);
      ++paths;
      segments += path.segments.size();
      check += static_cast<uint64_t>(sum.total);
    }
  } else {
    // Every path's time by state, summed over the resolved timelines (PathStateTimes)
    // instead of walked; "segments" stays 0.
    causeway::graph::PathStateTimes sums(g);
    sums.ComputeAll();
    for (causeway::graph::WorkerId w = 0; w < g.num_workers(); ++w) {
      if (times[w].by_state[static_cast<int>(causeway::graph::State::kRunning)] == 0) continue;
      for (int64_t t : sums.Of(w, INT64_MIN, INT64_MAX)) check += static_cast<uint64_t>(t);
      ++paths;
    }
    if (std::getenv("CAUSEWAY_BENCH_SPLIT"))
      std::fprintf(stderr, "path sums: %.1f MB\n", static_cast<double>(sums.memory_bytes()) / 1e6);
  }
  if (check == 0 && paths > 0) std::fprintf(stderr, "no path time\n");
  // Where the time goes, for profiling: CAUSEWAY_BENCH_SPLIT=1 prints it on stderr.
  if (std::getenv("CAUSEWAY_BENCH_SPLIT"))
    std::fprintf(stderr, "build %.3f s CPU, paths %.3f s CPU\n", build_cpu,
                 CpuSeconds() - c0 - build_cpu);
  std::printf(
      "%.6f %.6f %lu %lu %zu %lu %lu %lu %lu %lu\n",
      std::chrono::duration<double>(Clock::now() - t0).count(), CpuSeconds() - c0,
      static_cast<unsigned long>((*a)->events_read), static_cast<unsigned long>((*a)->bytes),
      g.num_workers(), static_cast<unsigned long>(paths), static_cast<unsigned long>(segments),
      static_cast<unsigned long>(g.num_vertices()), static_cast<unsigned long>(g.num_links()),
      static_cast<unsigned long>(g.memory_bytes()));
  return 0;
}

struct Sample {
  double wall = 0, cpu = 0;
  unsigned long events = 0, bytes = 0, threads = 0, paths = 0, segments = 0, vertices = 0,
                links = 0, graph_bytes = 0;
  long rss_kb = 0;
};

bool Run(const std::string& mode, const std::string& dir, Sample* s) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl("/proc/self/exe", "kernel_graph_bench", "--child", mode.c_str(), dir.c_str(), nullptr);
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  s->rss_kb = ru.ru_maxrss;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         std::sscanf(out.c_str(), "%lf %lf %lu %lu %lu %lu %lu %lu %lu %lu", &s->wall, &s->cpu,
                     &s->events, &s->bytes, &s->threads, &s->paths, &s->segments, &s->vertices,
                     &s->links, &s->graph_bytes) == 10;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) return Child(argv[2], argv[3]);
  std::vector<std::string> dirs;
  int runs = 3;
  bool flat = false, verify = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--flat") == 0)
      flat = true;
    else if (std::strcmp(argv[i], "--verify") == 0)
      verify = true;
    else
      dirs.push_back(argv[i]);
  }
  if (dirs.empty()) {
    std::fprintf(
        stderr,
        "usage: kernel_graph_bench TRACE_DIR [TRACE_DIR...] [--runs N] [--flat] [--verify]\n");
    return 2;
  }
  constexpr double kTraceCompassMBs = 500.0 / 15.0;
  std::printf("%-28s %9s %9s %9s %10s %9s %8s %9s %7s %s\n", "trace", "MB", "M events", "read MB/s",
              "graph MB/s", "M ev/s", "x TC", "paths", "RSS MB", "RSS/trace");
  for (const std::string& dir : dirs) {
    if (verify) {
      Sample v;
      if (!Run("verify", dir, &v)) {
        std::fprintf(stderr,
                     "kernel_graph_bench: summed path times differ from the walked paths on %s\n",
                     dir.c_str());
        return 1;
      }
    }
    std::vector<double> read_cpu, graph_cpu, graph_wall, flat_cpu;
    Sample last, last_flat;
    long rss = 0, flat_rss = 0;
    for (int r = 0; r < runs; ++r) {
      Sample rd, gr;
      if (!Run("read", dir, &rd) || !Run("graph", dir, &gr) ||
          (flat && !Run("flat", dir, &last_flat))) {
        std::fprintf(stderr, "kernel_graph_bench: failed on %s\n", dir.c_str());
        return 1;
      }
      if (flat) {
        flat_cpu.push_back(last_flat.cpu);
        flat_rss = std::max(flat_rss, last_flat.rss_kb);
      }
      read_cpu.push_back(rd.cpu);
      graph_cpu.push_back(gr.cpu);
      graph_wall.push_back(gr.wall);
      rss = std::max(rss, gr.rss_kb);
      last = gr;
    }
    const double mb = static_cast<double>(last.bytes) / 1e6;
    const double gcpu = Median(graph_cpu);
    const double rss_mb = static_cast<double>(rss) / 1024.0;
    const std::string name = dir.size() > 28 ? dir.substr(dir.size() - 28) : dir;
    std::printf("%-28s %9.1f %9.2f %9.1f %10.1f %9.2f %7.1fx %9lu %7.1f %8.1f%%\n", name.c_str(),
                mb, static_cast<double>(last.events) / 1e6, mb / Median(read_cpu), mb / gcpu,
                static_cast<double>(last.events) / gcpu / 1e6, mb / gcpu / kTraceCompassMBs,
                last.paths, rss_mb, 100.0 * rss_mb / mb);
    std::printf(
        "  graph: %lu threads, %lu vertices, %lu links, %.1f MB; "
        "graph wall %.3f s, CPU %.3f s (medians of %d)\n",
        last.threads, last.vertices, last.links, static_cast<double>(last.graph_bytes) / 1e6,
        Median(graph_wall), gcpu, runs);
    if (flat)
      std::printf(
          "  flat (each thread's path walked alone, no sharing): %.1f MB/s per core, %lu path "
          "segments, RSS %.1f MB; shared is %.2fx faster\n",
          mb / Median(flat_cpu), last_flat.segments, static_cast<double>(flat_rss) / 1024.0,
          Median(flat_cpu) / gcpu);
  }
  std::printf(
      "MB/s and M ev/s are per core (CPU time); x TC: ratio to Trace Compass's published "
      "33 MB/s (goal >= 15x, i.e. >= 500 MB/s per core); RSS/trace goal <= 25%%\n");
  return 0;
}
