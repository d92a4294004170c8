#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "causeway/client.h"
#include "client_test_util.h"
#include "span_export.h"

namespace causeway::client {
namespace {

using nlohmann::json;
using testing::ReadFile;
using testing::TempDir;

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016lx", static_cast<unsigned long>(v));
  return buf;
}

// The OTLP file format: one ExportTraceServiceRequest per line, each with at most
// spans_per_line spans, every span once and in order; no spans is one line with none.
TEST(SpanExport, OtlpJsonLinesSplitsSpansIntoWholeDocuments) {
  std::vector<FinishedSpan> spans(2500);
  for (size_t i = 0; i < spans.size(); ++i) {
    spans[i].context.trace_id_low = 7;
    spans[i].context.span_id = i + 1;
    spans[i].name = "op";
    spans[i].start_unix_ns = 1000 + i;
    spans[i].end_unix_ns = 2000 + i;
  }
  const std::string text = ToOtlpJsonLines("svc", 42, spans, 1000);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::vector<size_t> per_line;
  uint64_t next_id = 1;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    ASSERT_NE(end, std::string::npos);
    const json doc = json::parse(text.substr(begin, end - begin));
    begin = end + 1;
    const json& rs = doc["resourceSpans"][0];
    EXPECT_EQ(rs["resource"]["attributes"][0]["value"]["stringValue"], "svc");
    const json& line_spans = rs["scopeSpans"][0]["spans"];
    per_line.push_back(line_spans.size());
    for (const json& sp : line_spans) EXPECT_EQ(sp["spanId"], Hex16(next_id++));
  }
  EXPECT_EQ(per_line, (std::vector<size_t>{1000, 1000, 500}));
  EXPECT_EQ(next_id, 2501u);

  const std::string none = ToOtlpJsonLines("svc", 42, {}, 1000);
  EXPECT_EQ(std::count(none.begin(), none.end(), '\n'), 1);
  EXPECT_TRUE(json::parse(none)["resourceSpans"][0]["scopeSpans"][0]["spans"].empty());
}

TEST(SpanExport, OtlpAndJaegerFilesHoldParentChildAndAttributes) {
  TempDir dir;
  TracerOptions o;
  o.service_name = "frontend";
  o.otlp_json_file = dir / "frontend.otlp.json";
  o.jaeger_json_file = dir / "frontend.jaeger.json";
  o.ust_trace_dir = "";
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  Tracer& tracer = Tracer::Init(o);
  SpanContext root_ctx, child_ctx;
  {
    Span root = tracer.StartSpan("GET /dispatch", nullptr, kServer);
    root.SetAttribute("http.method", "GET");
    root.SetAttribute("customer", int64_t{123});
    root.SetAttribute("ratio", 0.25);
    root.SetAttribute("cached", true);
    root_ctx = root.context();
    Span child = tracer.StartSpan("GET /customer", &root_ctx, kClient);
    child_ctx = child.context();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }  // both end here, child first
  tracer.Shutdown();
  EXPECT_EQ(tracer.stats().spans_finished, 2u);
  EXPECT_TRUE(root_ctx.valid());
  EXPECT_EQ(child_ctx.trace_id_high, root_ctx.trace_id_high);
  EXPECT_EQ(child_ctx.trace_id_low, root_ctx.trace_id_low);
  EXPECT_NE(child_ctx.span_id, root_ctx.span_id);

  // The worker may have appended the child before the root ended: any number of lines.
  for (const json& doc : testing::ReadJsonLines(o.otlp_json_file)) {
    const json& rs = doc["resourceSpans"][0];
    EXPECT_EQ(rs["resource"]["attributes"][0]["key"], "service.name");
    EXPECT_EQ(rs["resource"]["attributes"][0]["value"]["stringValue"], "frontend");
  }
  const std::vector<json> spans = testing::ReadOtlpSpans(o.otlp_json_file);
  ASSERT_EQ(spans.size(), 2u);
  std::map<std::string, json> by_name;
  for (const json& s : spans) by_name[s["name"]] = s;
  const json& root = by_name.at("GET /dispatch");
  const json& child = by_name.at("GET /customer");
  EXPECT_EQ(root["spanId"], Hex16(root_ctx.span_id));
  EXPECT_EQ(root["traceId"], Hex16(root_ctx.trace_id_high) + Hex16(root_ctx.trace_id_low));
  EXPECT_FALSE(root.contains("parentSpanId"));
  EXPECT_EQ(child["parentSpanId"], Hex16(root_ctx.span_id));
  EXPECT_EQ(root["kind"], kServer);
  EXPECT_EQ(child["kind"], kClient);
  const uint64_t rs_ns = std::stoull(root["startTimeUnixNano"].get<std::string>());
  const uint64_t re_ns = std::stoull(root["endTimeUnixNano"].get<std::string>());
  const uint64_t cs_ns = std::stoull(child["startTimeUnixNano"].get<std::string>());
  const uint64_t ce_ns = std::stoull(child["endTimeUnixNano"].get<std::string>());
  EXPECT_LE(rs_ns, cs_ns);
  EXPECT_LE(ce_ns, re_ns);
  EXPECT_GE(ce_ns - cs_ns, 2000000u);  // the 2 ms sleep
  // Unix time: within a minute of now.
  const uint64_t now =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
  EXPECT_LT(now - re_ns, 60'000'000'000u);
  std::map<std::string, json> attrs;
  for (const json& a : root["attributes"]) attrs[a["key"]] = a["value"];
  EXPECT_EQ(attrs.at("http.method")["stringValue"], "GET");
  EXPECT_EQ(attrs.at("customer")["intValue"], "123");
  EXPECT_DOUBLE_EQ(attrs.at("ratio")["doubleValue"].get<double>(), 0.25);
  EXPECT_EQ(attrs.at("cached")["boolValue"], true);
  EXPECT_EQ(attrs.at("thread.id")["intValue"], std::to_string(gettid()));

  const json jaeger = json::parse(ReadFile(o.jaeger_json_file));
  ASSERT_EQ(jaeger["data"].size(), 1u);
  const json& trace = jaeger["data"][0];
  EXPECT_EQ(trace["traceID"], root["traceId"]);
  EXPECT_EQ(trace["processes"]["p1"]["serviceName"], "frontend");
  ASSERT_EQ(trace["spans"].size(), 2u);
  for (const json& s : trace["spans"]) {
    if (s["operationName"] == "GET /customer") {
      EXPECT_EQ(s["references"][0]["refType"], "CHILD_OF");
      EXPECT_EQ(s["references"][0]["spanID"], Hex16(root_ctx.span_id));
      EXPECT_EQ(s["startTime"].get<uint64_t>(), cs_ns / 1000);
      EXPECT_EQ(s["duration"].get<uint64_t>(), (ce_ns - cs_ns) / 1000);
    } else {
      EXPECT_EQ(s["operationName"], "GET /dispatch");
      EXPECT_TRUE(s["references"].empty());
    }
  }
}

TEST(SpanExport, AChildOfAnExtractedContextJoinsItsTrace) {
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  Tracer& tracer = Tracer::Init({});
  Headers h{{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}};
  auto parent = Extract(h);
  ASSERT_TRUE(parent.has_value());
  Span s = tracer.StartSpan("handle", &*parent, kServer);
  EXPECT_EQ(s.context().trace_id_high, 0x4bf92f3577b34da6u);
  EXPECT_EQ(s.parent_span_id(), 0x00f067aa0ba902b7u);
  Headers out;
  Inject(s.context(), out);
  EXPECT_EQ(out.at("traceparent").substr(0, 36), "00-4bf92f3577b34da6a3ce929d0e0e4736-");
  s.End();
  s.End();  // twice: nothing more
  tracer.Shutdown();
  EXPECT_EQ(tracer.stats().spans_finished, 1u);
}

TEST(SpanExport, PostsOtlpJsonToAnHttpReceiver) {
  httplib::Server server;
  std::mutex mutex;
  std::vector<json> bodies;
  std::string path_seen;
  server.Post("/v1/traces", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mutex);
    bodies.push_back(json::parse(req.body));
    path_seen = req.path;
    res.set_content("{}", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread listener([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  ::unsetenv("CAUSEWAY_TRACE_DIR");
  TracerOptions o;
  o.service_name = "driver";
  o.otlp_endpoint = "http://127.0.0.1:" + std::to_string(port);
  Tracer& tracer = Tracer::Init(o);
  for (int i = 0; i < 5; ++i) tracer.StartSpan("op" + std::to_string(i)).End();
  tracer.Flush();
  tracer.StartSpan("late").End();
  tracer.Shutdown();
  server.stop();
  listener.join();

  std::set<std::string> names;
  for (const json& b : bodies) {
    EXPECT_EQ(b["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"], "driver");
    for (const json& s : b["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
      EXPECT_TRUE(names.insert(s["name"].get<std::string>()).second)
          << "posted twice: " << s["name"];
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"op0", "op1", "op2", "op3", "op4", "late"}));
  EXPECT_EQ(path_seen, "/v1/traces");
  EXPECT_EQ(tracer.stats().otlp_posts_failed, 0u);
}

TEST(SpanExport, AnUnreachableReceiverIsCountedNotFatal) {
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  // A port nobody listens on: bind one, note it, close it.
  httplib::Server probe;
  const int port = probe.bind_to_any_port("127.0.0.1");
  probe.stop();
  TracerOptions o;
  o.otlp_endpoint = "http://127.0.0.1:" + std::to_string(port) + "/v1/traces";
  Tracer& tracer = Tracer::Init(o);
  tracer.StartSpan("lost").End();
  tracer.Shutdown();
  EXPECT_GE(tracer.stats().otlp_posts_failed, 1u);
}

TEST(SpanExport, AnUnwritableFileIsReportedAndSpansStillWork) {
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  TracerOptions o;
  o.otlp_json_file = "/proc/causeway-no-such-dir/x.json";
  ::testing::internal::CaptureStderr();
  Tracer& tracer = Tracer::Init(o);
  tracer.StartSpan("x").End();
  tracer.Shutdown();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Cannot create span file: file=/proc/causeway-no-such-dir/x.json"),
            std::string::npos)
      << err;
  EXPECT_EQ(tracer.stats().spans_finished, 1u);
  EXPECT_EQ(tracer.stats().span_file_errors, 1u);
  EXPECT_EQ(tracer.stats().spans_not_in_file, 1u);
}

// The OTLP file grows while the program runs (a crash loses at most the last interval), every
// span lands in it exactly once and in the order spans ended, and Init starts a new file.
TEST(SpanExport, TheOtlpFileIsAppendedWhileTheProgramRuns) {
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  TempDir dir;
  TracerOptions o;
  o.service_name = "svc";
  o.otlp_json_file = dir / "svc.otlp.json";
  o.flush_interval_ms = 10;
  Tracer& tracer = Tracer::Init(o);
  for (int i = 0; i < 300; ++i) tracer.StartSpan("first" + std::to_string(i)).End();
  // Without any Flush(), the worker appends them.
  std::vector<json> spans;
  for (int tries = 0; tries < 500 && spans.size() < 300; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    spans = testing::ReadOtlpSpans(o.otlp_json_file, /*while_written=*/true);
  }
  ASSERT_EQ(spans.size(), 300u);
  for (int i = 0; i < 2500; ++i) tracer.StartSpan("second" + std::to_string(i)).End();
  tracer.Shutdown();
  EXPECT_EQ(tracer.stats().span_file_errors, 0u);
  EXPECT_EQ(tracer.stats().spans_not_in_file, 0u);
  spans = testing::ReadOtlpSpans(o.otlp_json_file);
  ASSERT_EQ(spans.size(), 2800u);
  std::set<std::string> ids;
  for (size_t i = 0; i < spans.size(); ++i) {
    const std::string want =
        i < 300 ? "first" + std::to_string(i) : "second" + std::to_string(i - 300);
    EXPECT_EQ(spans[i]["name"], want) << i;
    EXPECT_TRUE(ids.insert(spans[i]["spanId"].get<std::string>()).second) << "twice: " << i;
  }
  // Lines hold at most 1,000 spans, and every line names the service.
  const std::vector<json> lines = testing::ReadJsonLines(o.otlp_json_file);
  EXPECT_GE(lines.size(), 4u);
  for (const json& line : lines) {
    const json& rs = line["resourceSpans"][0];
    EXPECT_EQ(rs["resource"]["attributes"][0]["value"]["stringValue"], "svc");
    EXPECT_LE(rs["scopeSpans"][0]["spans"].size(), 1000u);
  }

  // A new Init starts the file over; a run without spans leaves one line that has none.
  Tracer::Init(o).Shutdown();
  const std::vector<json> empty = testing::ReadJsonLines(o.otlp_json_file);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0]["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"],
            "svc");
  EXPECT_TRUE(testing::ReadOtlpSpans(o.otlp_json_file).empty());
}

}  // namespace
}  // namespace causeway::client
