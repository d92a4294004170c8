// One application tracepoint, Causeway's client against LTTng-UST, on the same event
// (int64 i, string name, uint64 span), disabled and enabled, in one process.
//
// Run through scripts/bench_client.sh, which starts an LTTng session with cwbench:event
// enabled (and cwbench:disabled_event not) before this program starts. Each case fires a
// fixed batch of events per repetition, so that neither tracer's buffers overflow (the
// client's buffers are drained before each repetition; LTTng's channel is sized by the
// script); the medians of the repetitions are compared at the end.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "causeway/client.h"
#include "causeway/tracepoint.h"
#include "cwbench_tp.h"

namespace {

constexpr int64_t kBatch = 100000;
constexpr int kRepetitions = 15;
const char kName[] = "GET /dispatch";

causeway::client::Tracepoint<int64_t, std::string_view, uint64_t> tp_event("cwbench", "event",
                                                                           {"i", "name", "span"});
causeway::client::Tracepoint<int64_t, std::string_view, uint64_t> tp_disabled(
    "cwbench", "disabled_event", {"i", "name", "span"});

void CausewayDisabled(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    CAUSEWAY_TRACEPOINT(tp_disabled, i, kName, uint64_t{42});
    benchmark::DoNotOptimize(++i);
  }
}

void CausewayEnabled(benchmark::State& state) {
  causeway::client::Tracer::Get().Flush();  // empty buffers: a batch never overflows
  if (!tp_event.enabled()) {
    state.SkipWithError("the client's user-space trace is not open");
    return;
  }
  int64_t i = 0;
  for (auto _ : state) {
    CAUSEWAY_TRACEPOINT(tp_event, i, kName, uint64_t{42});
    benchmark::DoNotOptimize(++i);
  }
}

void LttngDisabled(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    lttng_ust_tracepoint(cwbench, disabled_event, i, kName, 42);
    benchmark::DoNotOptimize(++i);
  }
}

void LttngEnabled(benchmark::State& state) {
  if (!lttng_ust_tracepoint_enabled(cwbench, event)) {
    state.SkipWithError(
        "cwbench:event is not enabled in an LTTng session: run scripts/bench_client.sh");
    return;
  }
  int64_t i = 0;
  for (auto _ : state) {
    lttng_ust_tracepoint(cwbench, event, i, kName, 42);
    benchmark::DoNotOptimize(++i);
  }
}

BENCHMARK(CausewayDisabled)->Iterations(kBatch)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(LttngDisabled)->Iterations(kBatch)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(CausewayEnabled)->Iterations(kBatch)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(LttngEnabled)->Iterations(kBatch)->Repetitions(kRepetitions)->ReportAggregatesOnly();

// Console output as usual, and the medians kept for the comparison table.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.aggregate_name == "median" && !r.error_occurred)
        medians[r.run_name.function_name] = r.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> medians;  // ns per event
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* out = std::getenv("CW_BENCH_TRACE_DIR");
  const std::string dir = out && *out ? out : "/tmp/causeway-tracepoint-bench";
  std::filesystem::remove_all(dir);
  causeway::client::TracerOptions options;
  options.service_name = "tracepoint_bench";
  options.ust_trace_dir = dir;
  options.record_tracepoints = "cwbench:event";
  options.thread_buffer_bytes = 16u << 20;  // a whole batch (100k × 48 bytes) fits
  causeway::client::Tracer::Init(options);

  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  causeway::client::Tracer::Get().Shutdown();
  const auto stats = causeway::client::Tracer::Get().stats();

  auto get = [&](const char* name) {
    auto it = reporter.medians.find(name);
    return it == reporter.medians.end() ? -1.0 : it->second;
  };
  std::printf("\ntracepoint, median ns per event (%d repetitions of %lld events)\n", kRepetitions,
              static_cast<long long>(kBatch));
  std::printf("%-10s %10s %10s %14s\n", "case", "causeway", "lttng-ust", "lttng/causeway");
  for (const char* c : {"Disabled", "Enabled"}) {
    const double cw = get((std::string("Causeway") + c).c_str());
    const double lt = get((std::string("Lttng") + c).c_str());
    if (cw > 0 && lt > 0) {
      std::printf("%-10s %10.2f %10.2f %13.1fx\n", c, cw, lt, lt / cw);
    } else {
      std::printf("%-10s %10.2f %10s %14s\n", c, cw, "n/a", "n/a");
    }
  }
  std::printf("causeway events written %llu, lost %llu (trace: %s/ust)\n",
              static_cast<unsigned long long>(stats.ust_events_written),
              static_cast<unsigned long long>(stats.ust_events_lost), dir.c_str());
  std::printf("lttng-ust events fired %lld (count the session's trace to see how many it kept)\n",
              static_cast<long long>(kBatch) * kRepetitions);
  return 0;
}
