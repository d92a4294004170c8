// make_kernel_trace: writes a synthetic LTTng-kernel-like CTF trace (lttng-modules 2.8
// event names and layouts) of about N MB of stream data.
//
//   make_kernel_trace OUT_DIR --size-mb N [--cpus 4] [--seed S] [--lost] [--packet-kb 256]
//                     [--plain-header] [--rotate-mb M]
//
// A small discrete-event simulation of a Linux machine drives the writer: per CPU a
// scheduler with a run queue and an idle task; threads with behaviours (CPU hogs, file I/O
// that blocks on the disk, network servers woken by NIC interrupts, futex ping-pong pairs
// with timeouts, sleepers woken by hrtimers, kworkers, a shell forking short-lived
// children that exec, run and exit); scheduler ticks with preemption; irq, softirq, block,
// timer, kmem, net and power events; an initial state dump. Timestamps increase per CPU
// with gaps of hundreds of ns to µs, and CPUs sometimes sleep for 140-500 ms (gaps above
// 2^27 ns, so the writer must use extended event headers). --lost drops bursts of events
// and records them as discarded (packet-context events_discarded). --plain-header writes
// perf's event header (u32 id, u64 timestamp) instead of LTTng's compact one, to measure
// the reader's plain-header path on the same events. --rotate-mb M cuts the recording into
// chunks every M MB, as `lttng rotate` does (CtfWriter::Rotate), to measure reading a
// rotated recording. Output is a pure function of the arguments (the trace UUID too).
//
// The simulation lives in make_kernel_trace/ (machine.h is its map); this file reads the
// arguments and drives the writer.
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ctf/writer/ctf_writer.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/machine.h"
#include "make_kernel_trace/trace_options.h"

namespace {

using causeway::Status;
using causeway::ctf::CtfWriter;

struct Args {
  std::string out_dir;
  uint64_t size_mb = 0, cpus = 4, seed = 1, packet_kb = 256, rotate_mb = 0;
  bool lost = false, plain_header = false;
};

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s OUT_DIR --size-mb N [--cpus 4] [--seed S] [--lost] [--packet-kb 256]\n"
               "       [--plain-header] [--rotate-mb M]\n"
               "Writes a synthetic LTTng-kernel-like CTF trace of about N MB of stream data.\n"
               "--plain-header: perf's event header (u32 id, u64 timestamp), not LTTng's.\n"
               "--rotate-mb M: a rotated recording, as `lttng rotate` every M MB writes it:\n"
               "  chunks OUT_DIR/chunk-0, chunk-1, ... that share the trace UUID.\n",
               argv0);
  return 2;
}

bool ParseU64(const char* s, uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || !end || *end || *s == '-' || end == s) return false;
  out = v;
  return true;
}

// Fills `args`; returns -1 to go on, else main's exit code (usage or help printed).
int ParseArgs(int argc, char** argv, Args& args) {
  bool have_size = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](uint64_t& v) {
      if (i + 1 >= argc || !ParseU64(argv[i + 1], v)) return false;
      ++i;
      return true;
    };
    if (a == "--size-mb") {
      if (!value(args.size_mb)) return Usage(argv[0]);
      have_size = true;
    } else if (a == "--cpus") {
      if (!value(args.cpus) || args.cpus < 1 || args.cpus > 256) return Usage(argv[0]);
    } else if (a == "--seed") {
      if (!value(args.seed)) return Usage(argv[0]);
    } else if (a == "--packet-kb") {
      if (!value(args.packet_kb) || args.packet_kb < 4 || args.packet_kb > 65536)
        return Usage(argv[0]);
    } else if (a == "--rotate-mb") {
      if (!value(args.rotate_mb) || args.rotate_mb < 1) return Usage(argv[0]);
    } else if (a == "--lost") {
      args.lost = true;
    } else if (a == "--plain-header") {
      args.plain_header = true;
    } else if (a == "-h" || a == "--help") {
      Usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] != '-' && args.out_dir.empty()) {
      args.out_dir = a;
    } else {
      return Usage(argv[0]);
    }
  }
  if (args.out_dir.empty() || !have_size) return Usage(argv[0]);
  return -1;
}

int Fail(const Status& st) {
  std::fprintf(stderr, "make_kernel_trace: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (int code = ParseArgs(argc, argv, args); code >= 0) return code;

  auto start = std::chrono::steady_clock::now();
  int chunk = 0;
  auto chunk_dir = [&] {
    return args.rotate_mb ? fmt::format("{}/chunk-{}", args.out_dir, chunk) : args.out_dir;
  };
  auto writer = CtfWriter::Create(
      chunk_dir(),
      make_kernel_trace::KernelTraceOptions(args.seed, args.packet_kb * 1024, args.plain_header));
  if (!writer.ok()) return Fail(writer.status());
  CtfWriter& w = **writer;
  make_kernel_trace::EventIds ids{};
  if (Status st = make_kernel_trace::DeclareEventClasses(w, ids); !st.ok()) return Fail(st);
  make_kernel_trace::Machine m(w, ids, static_cast<uint32_t>(args.cpus), args.seed, args.lost);
  m.Run(args.size_mb * 1024 * 1024, args.rotate_mb * 1024 * 1024, [&] {
    ++chunk;
    (void)w.Rotate(chunk_dir());  // an error is sticky: Run stops, Close reports it
  });
  uint64_t events = w.events_written();
  if (Status st = w.Close(); !st.ok()) return Fail(st);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t bytes = w.bytes_written();
  std::printf("events=%" PRIu64 " bytes=%" PRIu64 " discarded=%" PRIu64 " cpus=%" PRIu64
              " chunks=%d seconds=%.2f MB/s=%.0f\n",
              events, bytes, m.lost(), args.cpus, chunk + 1, secs,
              static_cast<double>(bytes) / 1048576.0 / secs);
  return 0;
}
