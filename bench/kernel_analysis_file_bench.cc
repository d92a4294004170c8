// Benchmark: the kernel analysis cached in a file (analysis/kernel_analysis_file.h) against
// building it from the trace.
//
//   kernel_analysis_file_bench TRACE_DIR OUT_FILE [--runs N]
//   kernel_analysis_file_bench TRACE_DIR --write-index [CACHE_DIR]
//
// Builds the analysis once from the trace (timed), writes it to OUT_FILE (timed), then
// reads it back N times (default 5; the file warm in the page cache) and prints the median
// load time, its speed in file MB/s, the file's size against the trace's, and the ratio of
// building to loading. With --write-index, writes the graph file where the commands look for
// it (LocateIndex, KernelSourceKey with the default clock options), as `causeway index`
// does, and prints its path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <filesystem>

#include "analysis/index_location.h"
#include "analysis/kernel_analysis.h"
#include "analysis/kernel_analysis_file.h"

namespace {
using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TRACE_DIR OUT_FILE [--runs N]\n", argv[0]);
    return 2;
  }
  const std::string trace = argv[1], out = argv[2];
  if (out == "--write-index") {
    auto where = causeway::analysis::LocateIndex({trace}, argc > 3 ? argv[3] : "");
    auto a = causeway::analysis::AnalyzeKernel({trace});
    if (!where.ok() || !a.ok()) return std::fprintf(stderr, "cannot analyze %s\n", argv[1]), 1;
    std::filesystem::create_directories(where->dir);
    const causeway::Status s = causeway::analysis::WriteKernelAnalysisFile(
        **a, where->graph_path, causeway::analysis::KernelSourceKey({trace}, {}));
    if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
    std::printf("%s\n", where->graph_path.c_str());
    return 0;
  }
  int runs = 5;
  if (argc >= 5 && std::strcmp(argv[3], "--runs") == 0) runs = std::max(1, std::atoi(argv[4]));
  auto t0 = Clock::now();
  auto a = causeway::analysis::AnalyzeKernel({trace});
  if (!a.ok()) return std::fprintf(stderr, "%s\n", a.status().ToString().c_str()), 1;
  const double build = Since(t0);
  t0 = Clock::now();
  const causeway::Status written = causeway::analysis::WriteKernelAnalysisFile(**a, out, "bench");
  if (!written.ok()) return std::fprintf(stderr, "%s\n", written.ToString().c_str()), 1;
  const double write = Since(t0);
  std::vector<double> loads;
  uint64_t file_bytes = 0;
  for (int i = 0; i < runs; ++i) {
    causeway::analysis::KernelAnalysisFileInfo info;
    t0 = Clock::now();
    auto b = causeway::analysis::ReadKernelAnalysisFile(out, "bench", &info);
    loads.push_back(Since(t0));
    if (!b.ok() || !*b) return std::fprintf(stderr, "cannot read back %s\n", out.c_str()), 1;
    file_bytes = info.bytes;
  }
  std::sort(loads.begin(), loads.end());
  const double load = loads[loads.size() / 2];
  const double mb = 1e6;
  std::printf(
      "trace %.0f MB: build %.2f s (%.0f MB/s); file %.1f MB (%.1f%% of the trace), written in "
      "%.2f s; load median of %d %.3f s (%.0f MB/s of file); build / load %.1fx\n",
      static_cast<double>((*a)->bytes) / mb, build, static_cast<double>((*a)->bytes) / mb / build,
      static_cast<double>(file_bytes) / mb,
      100.0 * static_cast<double>(file_bytes) / static_cast<double>((*a)->bytes), write, runs, load,
      static_cast<double>(file_bytes) / mb / load, build / load);
  return 0;
}
