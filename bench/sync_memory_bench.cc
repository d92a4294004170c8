// sync_memory_bench: peak memory of trace synchronization when one trace is read far ahead
// of the other (seed 004 §3.6 reports 319x less with its two-step procedure).
//
// Writes two hosts' traces with our CTF writer: request/reply TCP segments every `interval`
// between alpha and beta, beta's clock an hour ahead and 50 ppm fast. Merged on raw
// timestamps (one step), all of alpha is read before any of beta, so every segment waits
// for its partner; two steps (starts aligned, then the coarse transform, with expiry)
// keep a few. Each run synchronizes in a fresh child process, so its peak RSS is its own.
//
//   sync_memory_bench [--messages N] [--runs R] [--dir DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/sync_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"

namespace {

using namespace causeway;
namespace fs = std::filesystem;

struct Seg {
  int64_t ts;
  bool send;
  uint32_t seq, ack;
};

int WriteHost(const std::string& dir, const std::string& host, std::vector<Seg>& segs) {
  std::sort(segs.begin(), segs.end(), [](const Seg& a, const Seg& b) { return a.ts < b.ts; });
  ctf::TraceOptions o;
  o.hostname = host;
  auto w = ctf::CtfWriter::Create(dir, o);
  if (!w.ok()) return std::fprintf(stderr, "%s\n", w.status().ToString().c_str()), 1;
  causeway::testing::LttngKernelWriter kernel(**w);
  if (!kernel.status().ok())
    return std::fprintf(stderr, "%s\n", kernel.status().ToString().c_str()), 1;
  for (const Seg& s : segs)
    kernel.Tcp(0, static_cast<uint64_t>(s.ts), s.send,
               {.seq = s.seq, .ack_seq = s.ack, .flags = 0x18});
  const Status st = (*w)->Close();
  if (!st.ok()) return std::fprintf(stderr, "%s\n", st.ToString().c_str()), 1;
  return 0;
}

struct Result {
  double seconds = 0;
  long max_rss_kb = 0;
  uint64_t peak_pending = 0, peak_bytes = 0, matched = 0;
};

// Synchronizes in a child; the child reports through a pipe, the kernel its peak RSS.
bool RunChild(const std::string& dir, bool two_step, Result* r) {
  int p[2];
  if (pipe(p) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    analysis::SyncOptions o;
    o.two_step = two_step;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = analysis::AnalyzeSync({dir}, o);
    Result x;
    x.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
      _exit(1);
    }
    x.peak_pending = std::max(s->coarse.peak_pending, s->fine.peak_pending);
    x.peak_bytes = std::max(s->coarse.peak_pending_bytes, s->fine.peak_pending_bytes);
    x.matched = s->fine.matched_across_hosts;
    (void)!write(p[1], &x, sizeof(x));
    _exit(0);
  }
  close(p[1]);
  const bool got = read(p[0], r, sizeof(*r)) == static_cast<ssize_t>(sizeof(*r));
  close(p[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r->max_rss_kb = ru.ru_maxrss;
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

template <typename T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int messages = 500'000, runs = 3;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--messages"))
      messages = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
  }
  if (messages < 100 || runs < 1) {
    std::fprintf(stderr, "usage: sync_memory_bench [--messages N>=100] [--runs R] [--dir DIR]\n");
    return 2;
  }
  const bool own_dir = dir.empty();
  if (own_dir)
    dir = fs::temp_directory_path() / ("causeway-sync-bench-" + std::to_string(getpid()));
  fs::remove_all(dir);

  const int64_t t0 = 1'795'337'846'000'000'000, hour = 3'600'000'000'000;
  auto beta_clock = [&](int64_t t) { return t + hour + (t - t0) / 20'000; };
  std::vector<Seg> alpha, beta;
  for (int i = 0; i < messages; ++i) {  // a request and its reply every 1 ms
    const int64_t send = t0 + i * 1'000'000LL;
    const auto seq = static_cast<uint32_t>(1000 + 64 * i);
    alpha.push_back({send, true, seq, 77});
    beta.push_back({beta_clock(send + 9000 + (i * 7919) % 4000), false, seq, 77});
    beta.push_back({beta_clock(send + 60'000), true, 77, seq + 64});
    alpha.push_back({send + 70'000 + (i * 104729) % 5000, false, 77, seq + 64});
  }
  if (WriteHost(dir + "/alpha", "alpha", alpha) || WriteHost(dir + "/beta", "beta", beta)) return 1;
  // Freed before forking, so the children's RSS is their own work.
  std::vector<Seg>().swap(alpha);
  std::vector<Seg>().swap(beta);
  uint64_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) bytes += e.file_size();
  std::printf(
      "Two hosts, %d request/reply pairs over %.0f s (%.1f MB of CTF), beta's clock "
      "1 h ahead; %d runs each, medians\n\n",
      messages, messages / 1000.0, bytes / 1e6, runs);

  std::vector<Result> one, two;
  for (int r = 0; r < runs; ++r) {  // interleaved, so drift on the machine hits both alike
    Result a, b;
    if (!RunChild(dir, false, &a) || !RunChild(dir, true, &b)) {
      std::fprintf(stderr, "synchronization failed\n");
      return 1;
    }
    one.push_back(a);
    two.push_back(b);
  }
  auto med = [](const std::vector<Result>& v, auto f) {
    std::vector<double> x;
    for (const Result& r : v) x.push_back(static_cast<double>(f(r)));
    return Median(x);
  };
  const double rss1 = med(one, [](const Result& r) { return r.max_rss_kb; });
  const double rss2 = med(two, [](const Result& r) { return r.max_rss_kb; });
  const double pend1 = med(one, [](const Result& r) { return r.peak_pending; });
  const double pend2 = med(two, [](const Result& r) { return r.peak_pending; });
  const double by1 = med(one, [](const Result& r) { return r.peak_bytes; });
  const double by2 = med(two, [](const Result& r) { return r.peak_bytes; });
  const double s1 = med(one, [](const Result& r) { return r.seconds; });
  const double s2 = med(two, [](const Result& r) { return r.seconds; });
  std::printf("%-10s %14s %16s %14s %10s %10s\n", "", "peak waiting", "waiting bytes", "peak RSS",
              "time", "matched");
  std::printf("%-10s %14.0f %14.1f MB %11.1f MB %8.2f s %10llu\n", "one step", pend1, by1 / 1e6,
              rss1 / 1024, s1, static_cast<unsigned long long>(one[0].matched));
  std::printf("%-10s %14.0f %14.1f KB %11.1f MB %8.2f s %10llu\n", "two steps", pend2, by2 / 1e3,
              rss2 / 1024, s2, static_cast<unsigned long long>(two[0].matched));
  std::printf(
      "\nTwo steps: %.0fx fewer segments waiting, %.0fx less memory for them, peak RSS "
      "%.1fx lower (RSS includes the process and the reader's mapped packets), time "
      "%.2fx\n",
      pend1 / std::max(pend2, 1.0), by1 / std::max(by2, 1.0), rss1 / std::max(rss2, 1.0), s2 / s1);
  if (own_dir) fs::remove_all(dir);
  return 0;
}
