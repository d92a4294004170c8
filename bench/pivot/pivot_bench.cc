// Pivot Tracing's costs on the firing path, one process, Google Benchmark:
//   a tracepoint with no advice (disabled), one advice invocation (OBSERVE+EMIT, OBSERVE+PACK),
//   and the baggage's wire form with 1 and 60 tuples (encode, decode).
// Seed 001's figures are for the Java prototype on HDFS (REFERENCE.md): there is no C++ Pivot
// Tracing to run beside this one; the goals are the anchor: disabled <= 1 ns,
// advice <= 50 ns. Run through scripts/bench_pivot.sh, which prints the medians and the goals.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "causeway/tracepoint.h"
#include "pivot/baggage.h"
#include "pivot/baggage_codec.h"
#include "pivot/interpreter.h"
#include "pivot/parser.h"

namespace {

using causeway::pivot::Baggage;
using causeway::pivot::BaggageScope;
using causeway::pivot::Value;

constexpr int kRepetitions = 9;

causeway::client::Tracepoint<std::string_view, int64_t> tp_off("pbench", "off", {"kind", "bytes"});
causeway::client::Tracepoint<std::string_view, int64_t> tp_io("pbench", "io", {"kind", "bytes"});
causeway::client::Tracepoint<std::string_view> tp_client("pbench", "client", {"name"});

std::unique_ptr<causeway::pivot::QueryRunner> Weave(const char* text) {
  auto q = causeway::pivot::Parse(text);
  auto c = q.ok() ? causeway::pivot::Compile(*q, "b")
                  : causeway::StatusOr<causeway::pivot::CompiledQuery>(q.status());
  if (!c.ok()) {
    std::fprintf(stderr, "pivot_bench: %s\n", c.status().ToString().c_str());
    std::exit(1);
  }
  auto r = std::make_unique<causeway::pivot::QueryRunner>(std::move(*c));
  if (auto w = r->Install(); !w.ok()) {
    std::fprintf(stderr, "pivot_bench: %s\n", w.status().ToString().c_str());
    std::exit(1);
  }
  return r;
}

void TracepointDisabled(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    CAUSEWAY_TRACEPOINT(tp_off, "read", i);
    benchmark::DoNotOptimize(++i);
  }
}

// OBSERVE kind, bytes; EMIT grouped SUM (one group).
void AdviceObserveEmit(benchmark::State& state) {
  auto r = Weave("From x In pbench:io GroupBy x.kind Select x.kind, SUM(x.bytes)");
  int64_t i = 0;
  for (auto _ : state) {
    CAUSEWAY_TRACEPOINT(tp_io, "read", i);
    benchmark::DoNotOptimize(++i);
  }
  r->Uninstall();
  benchmark::DoNotOptimize(r->TakeResults());
}

// OBSERVE name; PACK FIRST into the request's baggage (already holding its first tuple, the
// steady state of a request that passes the tracepoint again).
void AdviceObservePackFirst(benchmark::State& state) {
  auto r = Weave(
      "From x In pbench:io Join c In First(pbench:client) On c -> x GroupBy c.name "
      "Select c.name, COUNT");
  BaggageScope scope(std::make_shared<Baggage>());
  for (auto _ : state) CAUSEWAY_TRACEPOINT(tp_client, "web");
  r->Uninstall();
}

// OBSERVE name; PACK RECENT: replaces the bag's tuple on every firing.
void AdviceObservePackRecent(benchmark::State& state) {
  auto r = Weave(
      "From x In pbench:io Join c In MostRecent(pbench:client) On c -> x GroupBy c.name "
      "Select c.name, COUNT");
  BaggageScope scope(std::make_shared<Baggage>());
  for (auto _ : state) CAUSEWAY_TRACEPOINT(tp_client, "web");
  r->Uninstall();
}

// The whole join at the consumer: OBSERVE, UNPACK the client's tuple, EMIT grouped COUNT.
void AdviceUnpackEmit(benchmark::State& state) {
  auto r = Weave(
      "From x In pbench:io Join c In First(pbench:client) On c -> x GroupBy c.name "
      "Select c.name, COUNT");
  BaggageScope scope(std::make_shared<Baggage>());
  CAUSEWAY_TRACEPOINT(tp_client, "web");
  int64_t i = 0;
  for (auto _ : state) {
    CAUSEWAY_TRACEPOINT(tp_io, "read", i);
    benchmark::DoNotOptimize(++i);
  }
  r->Uninstall();
}

Baggage MakeBaggage(int tuples) {
  Baggage b;
  auto& bag = b.Get("q1.c");
  for (int i = 0; i < tuples; ++i) {
    bag.tuples.push_back({Value::String("client-" + std::to_string(i % 7)), Value::Int(1000 + i)});
  }
  return b;
}

void BaggageEncode(benchmark::State& state) {
  const Baggage b = MakeBaggage(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string s = causeway::pivot::EncodeBaggageHeader(b);
    bytes = s.size();
    benchmark::DoNotOptimize(s);
  }
  state.counters["header_bytes"] = static_cast<double>(bytes);
}

void BaggageDecode(benchmark::State& state) {
  const std::string s =
      causeway::pivot::EncodeBaggageHeader(MakeBaggage(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto b = causeway::pivot::DecodeBaggageHeader(s);
    benchmark::DoNotOptimize(b);
  }
  state.counters["header_bytes"] = static_cast<double>(s.size());
}

BENCHMARK(TracepointDisabled)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(AdviceObserveEmit)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(AdviceObservePackFirst)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(AdviceObservePackRecent)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(AdviceUnpackEmit)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(BaggageEncode)->Arg(1)->Arg(60)->Repetitions(kRepetitions)->ReportAggregatesOnly();
BENCHMARK(BaggageDecode)->Arg(1)->Arg(60)->Repetitions(kRepetitions)->ReportAggregatesOnly();

// Console output as usual, then the medians against the goals.
class GoalReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        medians_[r.run_name.function_name +
                 (r.run_name.args.empty() ? "" : "/" + r.run_name.args)] = r.GetAdjustedCPUTime();
      }
    }
  }
  void Summary() const {
    auto get = [&](const std::string& k) {
      auto it = medians_.find(k);
      return it == medians_.end() ? -1.0 : it->second;
    };
    std::printf("\nmedians (ns per call)             measured   goal\n");
    std::printf("disabled tracepoint              %9.2f   <= 1\n", get("TracepointDisabled"));
    std::printf("advice OBSERVE+EMIT              %9.1f   <= 50\n", get("AdviceObserveEmit"));
    std::printf("advice OBSERVE+PACK FIRST        %9.1f   <= 50\n", get("AdviceObservePackFirst"));
    std::printf("advice OBSERVE+PACK RECENT       %9.1f   <= 50\n", get("AdviceObservePackRecent"));
    std::printf("advice OBSERVE+UNPACK+EMIT       %9.1f\n", get("AdviceUnpackEmit"));
    std::printf("baggage encode, 1 tuple          %9.1f\n", get("BaggageEncode/1"));
    std::printf("baggage encode, 60 tuples        %9.1f\n", get("BaggageEncode/60"));
    std::printf("baggage decode, 1 tuple          %9.1f\n", get("BaggageDecode/1"));
    std::printf("baggage decode, 60 tuples        %9.1f\n", get("BaggageDecode/60"));
  }

 private:
  std::map<std::string, double> medians_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  GoalReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.Summary();
  benchmark::Shutdown();
  return 0;
}
