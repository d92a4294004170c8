#include "spans/otlp_fast_path.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "spans/span_reader.h"

namespace causeway::spans {
namespace {

// One span of the shape causeway-client writes, with `extra` members added to it.
std::string SpanJson(const std::string& span_id, const std::string& extra = "") {
  return fmt::format(
      R"({{"attributes":[{{"key":"http.method","value":{{"stringValue":"GET"}}}},)"
      R"({{"key":"thread.id","value":{{"intValue":"22712"}}}}],)"
      R"("endTimeUnixNano":"1795660287077573223","kind":2,"name":"GET /customer",)"
      R"("parentSpanId":"74753cdd02a79315","spanId":"{}",)"
      R"("startTimeUnixNano":"1795660287061195911","traceId":"bf4ff6f80ae045804153d7abb5c98efd"{}}})",
      span_id, extra);
}

// A causeway-client line: a resource, a scope, the given spans.
std::string Line(const std::vector<std::string>& spans, const std::string& resource_extra = "") {
  std::string list;
  for (const std::string& s : spans) list += (list.empty() ? "" : ",") + s;
  return fmt::format(
      R"({{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"customer"}}}},)"
      R"({{"key":"process.pid","value":{{"intValue":"22658"}}}}{}]}},)"
      R"("scopeSpans":[{{"scope":{{"name":"causeway-client","version":"0.1"}},"spans":[{}]}}]}}]}})",
      resource_extra, list);
}

bool Fast(const std::string& line, std::vector<Span>* spans) {
  static SpanNames names;  // the spans' names, for the whole test program
  simdjson::ondemand::parser parser;
  std::string padded = line;
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
  return ParseOtlpFast(parser, padded.data(), line.size(), padded.size(), &names, spans);
}

void ExpectSameSpans(const SpanSet& a, const SpanSet& b) {
  ASSERT_EQ(a.spans.size(), b.spans.size());
  for (size_t i = 0; i < a.spans.size(); ++i) {
    const Span &x = a.spans[i], &y = b.spans[i];
    SCOPED_TRACE(fmt::format("span {}", i));
    EXPECT_EQ(x.trace, y.trace);
    EXPECT_EQ(x.span_id, y.span_id);
    EXPECT_EQ(x.parent_span_id, y.parent_span_id);
    EXPECT_EQ(*x.service, *y.service);
    EXPECT_EQ(*x.operation, *y.operation);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.tid, y.tid);
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.peer_port, y.peer_port);
    EXPECT_EQ(x.host_port, y.host_port);
  }
  EXPECT_EQ(a.duplicates, b.duplicates);
  EXPECT_EQ(a.truncated_lines, b.truncated_lines);
  EXPECT_EQ(a.warnings, b.warnings);
}

// Reads `text` with the fast path and with the DOM reader alone: same spans, same error.
void ExpectSameAsDom(const std::string& text) {
  SCOPED_TRACE(text);
  SpanSet fast, dom;
  const Status a = ParseSpanDocument(text, "s.json", &fast, /*fast_path=*/true);
  const Status b = ParseSpanDocument(text, "s.json", &dom, /*fast_path=*/false);
  EXPECT_EQ(a.ToString(), b.ToString());
  ExpectSameSpans(fast, dom);
}

TEST(OtlpFastPath, ReadsTheClientsShape) {
  std::vector<Span> spans;
  ASSERT_TRUE(Fast(Line({SpanJson("1799f6ff77ee10b4"), SpanJson("40714c25a9b68b8b")}), &spans));
  ASSERT_EQ(spans.size(), 2u);
  const Span& s = spans[0];
  EXPECT_EQ(TraceIdHex(s.trace), "bf4ff6f80ae045804153d7abb5c98efd");
  EXPECT_EQ(s.span_id, 0x1799f6ff77ee10b4u);
  EXPECT_EQ(s.parent_span_id, 0x74753cdd02a79315u);
  EXPECT_EQ(*s.service, "customer");
  EXPECT_EQ(*s.operation, "GET /customer");
  EXPECT_EQ(s.kind, SpanKind::kServer);
  EXPECT_EQ(s.start_ns, 1795660287061195911);
  EXPECT_EQ(s.end_ns, 1795660287077573223);
  EXPECT_EQ(s.tid, 22712);
  EXPECT_EQ(s.pid, 22658);
  EXPECT_EQ(spans[1].span_id, 0x40714c25a9b68b8bu);
}

TEST(OtlpFastPath, ReadsNamesCloseToTheModelsAsOtherMembers) {
  std::vector<Span> plain, close;
  ASSERT_TRUE(Fast(Line({SpanJson("1799f6ff77ee10b4")}), &plain));
  ASSERT_TRUE(Fast(
      Line({SpanJson("1799f6ff77ee10b4", R"(,"nam":"x","names":"y","spanIdx":"1","traceid":"2",)"
                                         R"("kinds":3,"startTimeUnixNan":"4","attribute":[])")}),
      &close));
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(close.size(), 1u);
  EXPECT_EQ(close[0].trace, plain[0].trace);
  EXPECT_EQ(close[0].span_id, plain[0].span_id);
  EXPECT_EQ(*close[0].operation, *plain[0].operation);
  EXPECT_EQ(close[0].kind, plain[0].kind);
  EXPECT_EQ(close[0].start_ns, plain[0].start_ns);
  EXPECT_EQ(close[0].tid, plain[0].tid);
}

TEST(OtlpFastPath, LeavesOtherShapesAndErrorsToTheDomReaderUntouched) {
  const std::vector<std::string> others = {
      Line({SpanJson("1799f6ff77ee10b4", R"(,"name":"again")")}),         // a member twice
      Line({SpanJson("1799f6ff77ee10b4", R"(,"na\u006de":"escaped")")}),  // an escaped name
      Line({SpanJson("0000000000000000")}),                               // a zero id
      Line({SpanJson("1799f6ff77ee10bz")}),                               // not hex
      Line({SpanJson("1799f6ff77ee10b4", R"(,"startTimeUnixNano":"1")")}),
      Line({SpanJson("1799f6ff77ee10b4")}) + " " + Line({SpanJson("40714c25a9b68b8b")}),
      Line({SpanJson("1799f6ff77ee10b4")}) + "}",
      Line({SpanJson("1799f6ff77ee10b4")}).substr(0, 200),  // cut short
      R"({"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[]}]}]})",
      R"({"resourceSpans":[{"scopeSpans":[],"resource":{"attributes":[]}}]})",
      R"({"data":[]})",
      R"([1,2])",
      // Faults in values the model does not read: refused by the DOM reader, so not read.
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":{"code":1"x"})")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":[1,2,])")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":{"code":nul})")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":{"code":01})")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":"\q")")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":{"code":[1}})")}),
      Line({SpanJson("1799f6ff77ee10b4",
                     ",\"status\":" + std::string(2000, '[') + std::string(2000, ']'))}),
  };
  for (const std::string& line : others) {
    SCOPED_TRACE(line);
    static const std::string kBefore = "before";
    std::vector<Span> spans(1);  // one span already there: left as it was
    spans[0].operation = &kBefore;
    EXPECT_FALSE(Fast(line, &spans));
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(spans[0].operation, &kBefore);
  }
}

TEST(OtlpFastPath, GivesTheDomReadersSpansAndErrors) {
  const std::vector<std::string> docs = {
      Line({SpanJson("1799f6ff77ee10b4"), SpanJson("40714c25a9b68b8b")}),
      // Kinds as names, times as numbers, escapes in values, upper-case ids, members the
      // model does not read, thread ids as strings, twice (the last counts) or as doubles.
      Line({SpanJson("1799F6FF77EE10B4", R"(,"status":{"code":1},"events":[{"a":[1,{"b":2}]}])")}),
      Line(
          {R"({"traceId":"bf4ff6f80ae045804153d7abb5c98efd","spanId":"1","kind":"SPAN_KIND_CONSUMER","name":"caf\u00e9 \"q\"","startTimeUnixNano":5,"endTimeUnixNano":7,"attributes":[{"key":"tid","value":{"stringValue":"12"}},{"key":"thread.id","value":{"intValue":"13"}},{"key":"net.peer.port","value":{"intValue":"41234"}},{"key":"server.port","value":{"stringValue":"8080"}},{"key":"client.port","value":{"intValue":"70000"}}]})",
           R"({"traceId":"bf4ff6f80ae045804153d7abb5c98efd","spanId":"2","kind":9,"parentSpanId":"","startTimeUnixNano":"5","endTimeUnixNano":"5","attributes":[{"key":"thread.id","value":{"doubleValue":1.5}}]})"}),
      Line({SpanJson("1799f6ff77ee10b4")},
           R"(,{"key":"service.name","value":{"stringValue":"renamed"}})"),
      Line({SpanJson("1799f6ff77ee10b4")}) + "\r",
      // Names one letter from the model's (compared a word at a time, masked to length):
      // members the model does not read.
      Line({SpanJson("1799f6ff77ee10b4",
                     R"(,"nam":"x","names":"y","spanIdx":"1","traceid":"2","kinds":3,)"
                     R"("startTimeUnixNan":"4","endTimeUnixNanos":"5","attribute":[])")}),
      Line({SpanJson("1799f6ff77ee10b4")}, R"(,{"key":"service.nam","value":{"stringValue":"x"}})"),
      // Duplicate span ids across and within lines.
      Line({SpanJson("1799f6ff77ee10b4"), SpanJson("1799f6ff77ee10b4")}) + "\n" +
          Line({SpanJson("1799f6ff77ee10b4"), SpanJson("40714c25a9b68b8b")}),
      // Shapes the fast path leaves to the DOM reader, beside lines it reads.
      Line({SpanJson("1799f6ff77ee10b4", R"(,"name":"again")")}) + "\n" +
          Line({SpanJson("40714c25a9b68b8b")}),
      Line({SpanJson("1799f6ff77ee10b4")}) + "\n" +
          R"({"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[)" +
          SpanJson("40714c25a9b68b8b") + "]}]}]}",
      // Errors, named the same way.
      Line({SpanJson("1799f6ff77ee10b4")}) + "\n" + Line({SpanJson("0000000000000000")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"startTimeUnixNano":"x")")}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"endTimeUnixNano":"1")")}),
      Line({SpanJson("1799f6ff77ee10b4")}) + "\n" + Line({SpanJson("40714c25a9b68b8b")}) + " x",
      // A stray quote in a value the model does not read turns the rest of the line inside
      // out (found by the span reader fuzzer): refused, as the DOM reader refuses it.
      Line(
          {R"({"traceId":"bf4ff6f80ae045804153d7abb5c98efd","spanId":"1","startTimeUnixNano":"5","endTimeUnixNano":"7","attributes":[{"key":"customer.id","value":{"intValue":"4"ustomer"}},{"key":"x","value":{"intValue":"1"}}]})"}),
      Line({SpanJson("1799f6ff77ee10b4", R"(,"status":[1,2,])")}) + "\n" +
          Line({SpanJson("40714c25a9b68b8b")}),
      // A last line cut short: skipped and reported.
      Line({SpanJson("1799f6ff77ee10b4")}) + "\n" +
          Line({SpanJson("40714c25a9b68b8b")}).substr(0, 300),
  };
  for (const std::string& doc : docs) ExpectSameAsDom(doc);
}

}  // namespace
}  // namespace causeway::spans
