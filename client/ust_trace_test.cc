// The user-space trace: what the threads' buffers hold ends up, exactly, in a CTF trace that
// our reader and babeltrace2 read, with the same ids and times as the exported spans.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "causeway/client.h"
#include "causeway/tracepoint.h"
#include "client_test_util.h"
#include "ctf/reader/event_reader.h"
#include "support/read_all.h"

namespace causeway::client {
namespace {

using nlohmann::json;
using testing::TempDir;

Tracepoint<std::string_view, int64_t, double, bool> tp_io("usttest", "io",
                                                          {"file", "bytes", "ratio", "ok"});
Tracepoint<int64_t> tp_flood("usttest", "flood", {"i"});
Tracepoint<int64_t> tp_unrecorded("other", "thing", {"i"});

std::string UstDir(const std::string& root) {
  const std::string ust = root + "/ust";
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(ust)) dirs.push_back(e.path().string());
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.empty() ? "" : dirs[0];
}

using UstEvent = causeway::testing::ReadEvent;

// Every event of the trace in `dir`; *lost: the events its streams say they discarded.
std::vector<UstEvent> ReadAll(const std::string& dir, uint64_t* lost) {
  causeway::testing::ReadAllResult r = causeway::testing::ReadAllExpectOk(dir);
  *lost = 0;
  for (const ctf::StreamStats& st : r.streams) *lost += st.discarded_events;
  return std::move(r.events);
}

TEST(UstTrace, SpanEventsCarryTheExportedIdsTimesAndThreads) {
  TempDir dir;
  ::setenv("CAUSEWAY_CLOCK_OFFSET_NS", "1700000000000000000", 1);
  TracerOptions o;
  o.service_name = "route";
  o.otlp_json_file = dir / "route.otlp.json";
  o.ust_trace_dir = dir.path();
  o.record_tracepoints = "usttest:io";
  Tracer& tracer = Tracer::Init(o);
  auto work = [&](int n) {
    for (int i = 0; i < n; ++i) {
      Span outer = tracer.StartSpan("outer");
      SpanContext c = outer.context();
      Span inner = tracer.StartSpan("inner", &c);
      CAUSEWAY_TRACEPOINT(tp_io, "/tmp/x", int64_t{i}, 0.5, i % 2 == 0);
      CAUSEWAY_TRACEPOINT(tp_unrecorded, int64_t{i});
      { ScopedActivation a(c); }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(work, 50);
  work(20);
  for (auto& t : threads) t.join();
  tracer.Shutdown();
  ::unsetenv("CAUSEWAY_CLOCK_OFFSET_NS");
  const TracerStats stats = tracer.stats();
  EXPECT_EQ(stats.spans_finished, 2u * 170);
  EXPECT_EQ(stats.ust_events_lost, 0u);
  // start + end per span, one io, activate + deactivate per iteration.
  EXPECT_EQ(stats.ust_events_written, 170u * (4 + 1 + 2));

  const std::string ust = UstDir(dir.path());
  EXPECT_NE(ust.find("/ust/"), std::string::npos);
  uint64_t discarded = 0;
  const std::vector<UstEvent> events = ReadAll(ust, &discarded);
  EXPECT_EQ(discarded, 0u);
  EXPECT_EQ(events.size(), stats.ust_events_written);

  // Exported spans, by span id.
  struct Exported {
    uint64_t start, end, parent;
    std::string name, trace;
    int64_t tid;
  };
  std::map<uint64_t, Exported> spans;
  for (const json& s : testing::ReadOtlpSpans(o.otlp_json_file)) {
    Exported x;
    x.start = std::stoull(s["startTimeUnixNano"].get<std::string>());
    x.end = std::stoull(s["endTimeUnixNano"].get<std::string>());
    x.parent = s.contains("parentSpanId")
                   ? std::stoull(s["parentSpanId"].get<std::string>(), nullptr, 16)
                   : 0;
    x.name = s["name"];
    x.trace = s["traceId"];
    x.tid = 0;
    for (const json& a : s["attributes"])
      if (a["key"] == "thread.id") x.tid = std::stoll(a["value"]["intValue"].get<std::string>());
    spans[std::stoull(s["spanId"].get<std::string>(), nullptr, 16)] = x;
  }
  ASSERT_EQ(spans.size(), 340u);

  std::set<uint64_t> started, ended;
  std::set<uint64_t> tids;
  size_t io = 0, activations = 0;
  for (const UstEvent& e : events) {
    if (e.name == "jaeger_ust:start_span" || e.name == "jaeger_ust:end_span") {
      const uint64_t id = e.u.at("span_id");
      auto it = spans.find(id);
      ASSERT_NE(it, spans.end()) << "span event for an unexported span " << id;
      const Exported& x = it->second;
      char trace[33];
      std::snprintf(trace, sizeof(trace), "%016lx%016lx",
                    static_cast<unsigned long>(e.u.at("trace_id_high")),
                    static_cast<unsigned long>(e.u.at("trace_id_low")));
      EXPECT_EQ(x.trace, trace);
      EXPECT_EQ(e.u.at("parent_span_id"), x.parent);
      EXPECT_EQ(e.str.at("op_name"), x.name);
      EXPECT_EQ(static_cast<int64_t>(e.u.at("tid")), x.tid);
      EXPECT_EQ(static_cast<int64_t>(e.u.at("vtid")), x.tid);  // LTTng-UST's context
      // Same instant, same time scale: the exported times are the events' times.
      if (e.name == "jaeger_ust:start_span") {
        EXPECT_EQ(e.ts, x.start);
        EXPECT_TRUE(started.insert(id).second);
      } else {
        EXPECT_EQ(e.ts, x.end);
        EXPECT_TRUE(ended.insert(id).second);
      }
      tids.insert(e.u.at("tid"));
    } else if (e.name == "usttest:io") {
      ++io;
      EXPECT_EQ(e.str.at("file"), "/tmp/x");
      EXPECT_DOUBLE_EQ(e.real.at("ratio"), 0.5);
      EXPECT_EQ(e.u.at("ok"), e.u.at("bytes") % 2 == 0 ? 1u : 0u);
    } else if (e.name == "causeway_ust:activate" || e.name == "causeway_ust:deactivate") {
      ++activations;
      EXPECT_TRUE(spans.count(e.u.at("span_id")));
    } else {
      ADD_FAILURE() << "unexpected event " << e.name;
    }
  }
  EXPECT_EQ(started.size(), 340u);
  EXPECT_EQ(ended.size(), 340u);
  EXPECT_EQ(tids.size(), 4u);
  EXPECT_EQ(io, 170u);
  EXPECT_EQ(activations, 340u);
  // The clock offset came from the recorder's environment.
  for (const auto& [id, x] : spans) EXPECT_GT(x.start, 1700000000000000000u);
}

TEST(UstTrace, Babeltrace2ReadsItToTheEnd) {
  TempDir dir;
  TracerOptions o;
  o.ust_trace_dir = dir.path();
  o.record_tracepoints = "usttest:*";
  Tracer& tracer = Tracer::Init(o);
  for (int i = 0; i < 100; ++i) {
    Span s = tracer.StartSpan("op with spaces");
    CAUSEWAY_TRACEPOINT(tp_io, "name", int64_t{i}, 1.5, true);
  }
  tracer.Shutdown();
  const std::string ust = UstDir(dir.path());
  const std::string cmd = "babeltrace2 '" + ust + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << out.substr(0, 2000);
  size_t lines = 0, starts = 0;
  for (size_t pos = 0; (pos = out.find('\n', pos)) != std::string::npos; ++pos) ++lines;
  for (size_t pos = 0; (pos = out.find("jaeger_ust:start_span", pos)) != std::string::npos; ++pos)
    ++starts;
  EXPECT_EQ(lines, 300u);
  EXPECT_EQ(starts, 100u);
  EXPECT_NE(out.find("op_name = \"op with spaces\""), std::string::npos) << out.substr(0, 500);
  EXPECT_NE(out.find("usttest:io"), std::string::npos);
}

TEST(UstTrace, AFullThreadBufferCountsItsLossesInTheTrace) {
  TempDir dir;
  TracerOptions o;
  o.ust_trace_dir = dir.path();
  o.record_tracepoints = "usttest:flood";
  o.thread_buffer_bytes = 4096;     // 128 records of 32 bytes
  o.flush_interval_ms = 60 * 1000;  // no drain while flooding
  Tracer& tracer = Tracer::Init(o);
  constexpr int kFired = 1000;
  // A new thread: the buffer size applies to threads' first events after Init.
  std::thread flooder([&] {
    for (int i = 0; i < kFired; ++i) CAUSEWAY_TRACEPOINT(tp_flood, int64_t{i});
    tracer.Flush();
    for (int i = 0; i < 10; ++i) CAUSEWAY_TRACEPOINT(tp_flood, int64_t{kFired + i});
  });
  flooder.join();
  tracer.Shutdown();
  const TracerStats stats = tracer.stats();
  EXPECT_GT(stats.ust_events_lost, 0u);
  EXPECT_EQ(stats.ust_events_written + stats.ust_events_lost, uint64_t{kFired} + 10);
  uint64_t discarded = 0;
  const auto events = ReadAll(UstDir(dir.path()), &discarded);
  EXPECT_EQ(events.size(), stats.ust_events_written);
  EXPECT_EQ(discarded, stats.ust_events_lost);
  // What was kept is in order and complete up to the loss: the first records, then the ten
  // after the drain.
  ASSERT_GE(events.size(), 10u);
  for (size_t i = 0; i + 10 < events.size(); ++i) EXPECT_EQ(events[i].u.at("i"), i);
  EXPECT_EQ(events.back().u.at("i"), uint64_t{kFired} + 9);
}

TEST(UstTrace, ExitedThreadsStreamsAreReused) {
  TempDir dir;
  TracerOptions o;
  o.ust_trace_dir = dir.path();
  o.record_tracepoints = "usttest:flood";
  o.thread_buffer_bytes = 4096;
  o.flush_interval_ms = 60 * 1000;
  Tracer& tracer = Tracer::Init(o);
  // 40 short-lived threads one after the other, each losing some events: a thread per
  // request must not mean a stream (and a packet buffer) per thread ever.
  std::set<int64_t> tids;
  for (int t = 0; t < 40; ++t) {
    std::thread worker([&] {
      for (int i = 0; i < 200; ++i) CAUSEWAY_TRACEPOINT(tp_flood, int64_t{t * 1000 + i});
    });
    worker.join();
    tracer.Flush();  // drains the exited thread's ring and releases it
  }
  tracer.Shutdown();
  const TracerStats stats = tracer.stats();
  EXPECT_GT(stats.ust_events_lost, 0u);
  EXPECT_EQ(stats.ust_events_written + stats.ust_events_lost, 40u * 200);
  const std::string ust = UstDir(dir.path());
  size_t streams = 0;
  for (const auto& f : std::filesystem::directory_iterator(ust))
    streams += f.path().filename().string().rfind("channel0_", 0) == 0;
  EXPECT_LE(streams, 2u);
  uint64_t discarded = 0;
  const auto events = ReadAll(ust, &discarded);
  EXPECT_EQ(events.size(), stats.ust_events_written);
  EXPECT_EQ(discarded, stats.ust_events_lost);
  for (const auto& e : events) tids.insert(static_cast<int64_t>(e.u.at("vtid")));
  EXPECT_EQ(tids.size(), 40u);
}

TEST(UstTrace, WithoutATraceDirectoryNothingIsWritten) {
  TempDir dir;
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  Tracer& tracer = Tracer::Init({});
  tracer.StartSpan("x").End();
  EXPECT_FALSE(tp_io.enabled());
  tracer.Shutdown();
  EXPECT_EQ(tracer.stats().ust_events_written, 0u);
}

TEST(UstTrace, TheTraceDirectoryComesFromTheRecorderEnvironment) {
  TempDir dir;
  ::setenv("CAUSEWAY_TRACE_DIR", dir.path().c_str(), 1);
  Tracer& tracer = Tracer::Init({});
  tracer.StartSpan("x").End();
  tracer.Shutdown();
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  uint64_t discarded = 0;
  EXPECT_EQ(ReadAll(UstDir(dir.path()), &discarded).size(), 2u);
}

}  // namespace
}  // namespace causeway::client
