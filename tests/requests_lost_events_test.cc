// `causeway requests` counts what the tracers lost: kernel events discarded (their time is
// UNKNOWN on the paths) and user-space events discarded (a span whose sync events were among
// them keeps its own times), in the text footer and the JSON counters. The recording is
// written with Causeway's CTF writer: a kernel trace, a user-space trace with sync events,
// and OTLP spans; no root needed.
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/sync_event_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::RunCli;
using testing::TempDir;

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time

void WriteRecording(const std::string& dir) {
  {
    ctf::TraceOptions opts;
    opts.hostname = "h";
    auto w = ctf::CtfWriter::Create(dir + "/kernel", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    testing::LttngKernelWriter kernel(**w);
    ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
    kernel.SchedSwitch(0, kBase, "swapper", 0, 0, "app", 1);
    ASSERT_TRUE((*w)->SetDiscarded(0, 7).ok());
    kernel.SchedSwitch(0, kBase + 900'000, "app", 1, 0, "swapper", 0);
    const Status closed = (*w)->Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  {
    testing::SyncEventTrace ust(dir + "/ust/app-1", "h", "app", 1);
    ASSERT_TRUE(ust.status().ok()) << ust.status().ToString();
    // Span 7: both sync events. Span 8: its start only; its end was among the 3 events the
    // tracer discarded.
    ust.Start(kBase + 1'000, 1, 7, "a");
    ust.End(kBase + 400'000, 1, 7, "a");
    ust.Start(kBase + 500'000, 2, 8, "b");
    ASSERT_TRUE(ust.writer().SetDiscarded(0, 3).ok());
    const Status closed = ust.Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  std::ofstream spans(dir + "/spans.json");
  spans << R"({"resourceSpans":[{"resource":{"attributes":[
  {"key":"service.name","value":{"stringValue":"app"}}]},
 "scopeSpans":[{"spans":[
  {"traceId":"00000000000000010000000000000001","spanId":"0000000000000007","name":"a",
   "startTimeUnixNano":"1000000001000","endTimeUnixNano":"1000000400000",
   "attributes":[{"key":"thread.id","value":{"intValue":"1"}}]},
  {"traceId":"00000000000000010000000000000002","spanId":"0000000000000008","name":"b",
   "startTimeUnixNano":"1000000500000","endTimeUnixNano":"1000000800000",
   "attributes":[{"key":"thread.id","value":{"intValue":"1"}}]}]}]}]})";
}

TEST(RequestsLostEventsTest, DiscardedKernelAndUserSpaceEventsAreCounted) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  WriteRecording(dir);
  if (::testing::Test::HasFatalFailure()) return;
  std::string err;
  auto json_out = RunCli("requests " + dir + " --spans " + dir + "/spans.json --format json", &err);
  ASSERT_EQ(json_out.exit_code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(json_out.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json_out.out;
  const nlohmann::json& c = j["counters"];
  EXPECT_EQ(c["requests"], 2);
  EXPECT_EQ(c["spans_synced"], 1) << c.dump();
  EXPECT_EQ(c["kernel_events_discarded"], 7) << c.dump();
  EXPECT_EQ(c["sync_events_discarded"], 3) << c.dump();

  auto text = RunCli("requests " + dir + " --spans " + dir + "/spans.json", &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("7 kernel events were discarded by the tracer"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("3 user-space events were discarded by the tracer"), std::string::npos)
      << text.out;

  // The HTML report's data holds both counts (its header says them).
  const std::string html_path = tmp.path() + "/r.html";
  auto html = RunCli(
      "requests " + dir + " --spans " + dir + "/spans.json --format html -o " + html_path, &err);
  ASSERT_EQ(html.exit_code, 0) << err;
  std::ifstream page(html_path);
  const std::string content((std::istreambuf_iterator<char>(page)),
                            std::istreambuf_iterator<char>());
  EXPECT_NE(content.find("\"kernel_discarded\":7"), std::string::npos);
  EXPECT_NE(content.find("\"sync_discarded\":3"), std::string::npos);
}

}  // namespace
}  // namespace causeway
