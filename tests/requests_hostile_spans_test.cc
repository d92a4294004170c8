// `causeway requests` / `request` / `export` on span files a hostile or broken service could
// write: names with control bytes, NUL or HTML in them, and span sets that lose spans unless
// the reader says so (duplicate ids, parent cycles, several roots, negative times). The
// recording is written with Causeway's CTF writer; no root needed.
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::RunCli;
using testing::TempDir;

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time

// A kernel trace where thread 1 ("app") runs from kBase to kBase + 900 us, and `spans` as
// the recording's OTLP file.
void WriteRecording(const std::string& dir, const std::string& spans) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir + "/kernel", opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter kernel(**w);
  ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
  kernel.SchedSwitch(0, kBase, "swapper", 0, 0, "app", 1);
  kernel.SchedSwitch(0, kBase + 900'000, "app", 1, 0, "swapper", 0);
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
  std::ofstream(dir + "/spans.json") << spans;
}

// One OTLP span of service "app" on thread 1; `name` is JSON string content.
std::string Span(const std::string& trace, const std::string& id, const std::string& name,
                 int64_t start_us, int64_t end_us, const std::string& parent = "") {
  std::string s = R"({"traceId":")" + trace + R"(","spanId":")" + id + R"(","name":")" + name +
                  R"(","startTimeUnixNano":")" + std::to_string(kBase + start_us * 1000) +
                  R"(","endTimeUnixNano":")" + std::to_string(kBase + end_us * 1000) + "\"";
  if (!parent.empty()) s += R"(,"parentSpanId":")" + parent + "\"";
  return s + R"(,"attributes":[{"key":"thread.id","value":{"intValue":"1"}}]})";
}

std::string ResourceSpans(const std::string& spans) {
  return R"({"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"app"}}]},)"
         R"("scopeSpans":[{"spans":[)" +
         spans + "]}]}";
}

std::string OtlpFile(const std::string& spans) {
  return R"({"resourceSpans":[)" + ResourceSpans(spans) + "]}";
}

// Ids of trace n and span n (n < 256), as OTLP writes them.
std::string TwoHex(int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  return {kHex[(n >> 4) & 15], kHex[n & 15]};
}
std::string TraceId(int n) { return std::string(30, '0') + TwoHex(n); }
std::string SpanId(int n) { return std::string(14, '0') + TwoHex(n); }

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(RequestsHostileSpansTest, ControlBytesAndNulInNamesAreEscapedNotCutOrRaw) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  // A NUL cut the text at the name (fputs); CR and an ESC sequence reached the terminal.
  WriteRecording(dir, OtlpFile(Span(TraceId(1), SpanId(1), R"(GET \u0000/hidden)", 1, 400) + "," +
                               Span(TraceId(2), SpanId(2), R"(x\r\u001b[2Jy)", 500, 800)));
  if (::testing::Test::HasFatalFailure()) return;
  std::string err;
  auto list = RunCli("requests " + dir + " --spans " + dir + "/spans.json", &err);
  ASSERT_EQ(list.exit_code, 0) << err;
  EXPECT_EQ(list.out.find('\0'), std::string::npos);
  EXPECT_EQ(list.out.find('\r'), std::string::npos);
  EXPECT_EQ(list.out.find('\x1b'), std::string::npos);
  EXPECT_NE(list.out.find(R"(GET \x00/hidden)"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(R"(x\r\e[2Jy)"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("2 requests (2 shown"), std::string::npos) << list.out;

  auto one = RunCli("request " + dir + " " + TraceId(1) + " --spans " + dir + "/spans.json", &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  EXPECT_EQ(one.out.find('\0'), std::string::npos);
  EXPECT_NE(one.out.find(R"(GET \x00/hidden)"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("Time by thread:"), std::string::npos) << one.out;

  // The JSON keeps the names exact.
  auto json = RunCli("requests " + dir + " --spans " + dir + "/spans.json --format json", &err);
  ASSERT_EQ(json.exit_code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  std::set<std::string> operations;
  for (const auto& r : j["requests"]) operations.insert(r["operation"].get<std::string>());
  EXPECT_EQ(operations, (std::set<std::string>{std::string("GET \0/hidden", 12), "x\r\x1b[2Jy"}));
}

// The text of the page's data element as an HTML parser sees it: from the start tag to the
// first "</script", which ends it only when no "<!--" came before (then the parser is in
// the script's escaped states, and the rest of the page can become script text).
TEST(RequestsHostileSpansTest, HtmlReportDataHoldsNoMarkupWhateverTheNames) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  const std::string name = R"(<!--<script>x</script><b>&amp;)";
  WriteRecording(dir, OtlpFile(Span(TraceId(1), SpanId(1), name, 1, 400)));
  if (::testing::Test::HasFatalFailure()) return;
  std::string err;
  const std::string path = tmp.path() + "/r.html";
  auto html =
      RunCli("requests " + dir + " --spans " + dir + "/spans.json --format html -o " + path, &err);
  ASSERT_EQ(html.exit_code, 0) << err;
  const std::string page = ReadFile(path);
  const std::string open = R"(<script type="application/json" id="data">)";
  const size_t begin = page.find(open);
  ASSERT_NE(begin, std::string::npos);
  const size_t start = begin + open.size();
  const size_t end = page.find("</script>", start);
  ASSERT_NE(end, std::string::npos);
  const std::string data = page.substr(start, end - start);
  EXPECT_EQ(data.find('<'), std::string::npos) << data;
  const nlohmann::json d = nlohmann::json::parse(data, nullptr, false);
  ASSERT_FALSE(d.is_discarded()) << data;
  ASSERT_EQ(d["requests"].size(), 1u);
  EXPECT_EQ(d["requests"][0]["operation"], name);
  // The page's own script follows the data element, whole.
  EXPECT_NE(page.find("const D = JSON.parse", end), std::string::npos);
}

// Spans that were dropped or lost their request without a word: a self-parent and a parent
// cycle (0 requests), a second root in a trace (one request kept), a span id used again in
// another trace (counted, never printed), a second resourceSpans member (ignored), a start
// before 1970 (ranked slowest). Each is read, counted and reported by requests, request and
// export, in text and JSON.
TEST(RequestsHostileSpansTest, LoopsRootsDuplicatesAndNegativeTimesAreKeptOrCounted) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  const std::string spans =
      R"({"resourceSpans":[)" +
      ResourceSpans(Span(TraceId(1), SpanId(1), "self", 10, 100, SpanId(1)) + "," +
                    Span(TraceId(2), SpanId(2), "cycle-a", 110, 200, SpanId(3)) + "," +
                    Span(TraceId(2), SpanId(3), "cycle-b", 120, 190, SpanId(2)) + "," +
                    Span(TraceId(3), SpanId(4), "root-1", 210, 300) + "," +
                    Span(TraceId(3), SpanId(5), "root-2", 310, 400) + "," +
                    Span(TraceId(4), SpanId(1), "same-id", 410, 500)) +
      R"(],"resourceSpans":[)" +
      ResourceSpans(Span(TraceId(5), SpanId(6), "second-member", 510, 600) + "," +
                    Span(TraceId(6), SpanId(7), "negative", -2'000'000'000'000, 700)) +
      "]}";
  WriteRecording(dir, spans);
  if (::testing::Test::HasFatalFailure()) return;
  const std::string spans_arg = " --spans " + dir + "/spans.json";
  const std::string args = dir + spans_arg;
  std::string err;
  auto json = RunCli("requests " + args + " --format json --limit -1", &err);
  ASSERT_EQ(json.exit_code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  std::set<std::string> operations;
  for (const auto& r : j["requests"]) operations.insert(r["operation"].get<std::string>());
  EXPECT_EQ(operations,
            (std::set<std::string>{"self", "cycle-a", "root-1", "root-2", "second-member"}));
  const nlohmann::json& c = j["counters"];
  EXPECT_EQ(c["parent_cycles"], 2) << c.dump();
  EXPECT_EQ(c["extra_roots"], 1) << c.dump();
  EXPECT_EQ(c["spans_duplicate_id"], 1) << c.dump();
  EXPECT_EQ(c["spans_negative_time"], 1) << c.dump();

  auto text = RunCli("requests " + args, &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  for (const char* line : {"1 spans dropped: their span id was already used",
                           "1 spans dropped: they start before 1970", "2 parent chains loop",
                           "1 more root spans in traces that have one already"})
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;

  // One request of a trace with two: its root span's id names it; the trace id is ambiguous.
  auto one = RunCli("request " + dir + " " + SpanId(5) + spans_arg, &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  EXPECT_NE(one.out.find("root-2"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("2 parent chains loop"), std::string::npos) << one.out;
  auto both = RunCli("request " + dir + " " + TraceId(3) + spans_arg, &err);
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(err.find("several root spans"), std::string::npos) << err;
  auto one_json = RunCli("request " + dir + " " + SpanId(4) + spans_arg + " --format json", &err);
  ASSERT_EQ(one_json.exit_code, 0) << err;
  const nlohmann::json r = nlohmann::json::parse(one_json.out, nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << one_json.out;
  EXPECT_EQ(r["counters"]["spans_duplicate_id"], 1) << r.dump();

  const std::string chrome = tmp.path() + "/t.json";
  auto exp = RunCli("export " + args + " --format chrome -o " + chrome, &err);
  ASSERT_EQ(exp.exit_code, 0) << err;
  EXPECT_NE(exp.out.find("2 parent chains loop"), std::string::npos) << exp.out;
  const nlohmann::json t = nlohmann::json::parse(ReadFile(chrome), nullptr, false);
  ASSERT_FALSE(t.is_discarded());
  EXPECT_EQ(t["otherData"]["counters"]["spans_negative_time"], 1) << t["otherData"].dump();
}

}  // namespace
}  // namespace causeway
