// The report files under a memory cap: `requests --format html` and `export --format chrome`
// on 2,100 requests overlapping on one thread (2.2 M path pieces, past the 2 M a report
// draws) are refused with what to do instead, and written with --limit; under a cap too
// small for the analysis, the command says it ran out of memory and exits 1. Never an abort
// (134), never a file left half written.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

namespace fs = std::filesystem;

constexpr int32_t kTid = 4242;
constexpr uint64_t kStart = 1'000'000'000;

// One thread running throughout; n root spans on it, span i from i x 10 µs to the end.
void WriteOverlappingRecording(const std::string& dir, uint64_t n) {
  const uint64_t end = kStart + n * 10'000 + 1'000'000;
  ctf::TraceOptions o;
  o.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir + "/kernel", o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  {
    LttngKernelWriter k(**w);
    ASSERT_TRUE(k.status().ok());
    k.Begin(0, kernel::LttngEvent::kStatedumpProcessState, kStart - 1000)
        .S32(kTid)
        .S32(kTid)
        .S32(1)
        .Chars16("server")
        .S32(0)
        .S32(0);
    k.SchedSwitch(0, kStart - 500, "swapper/0", 0, 0, "server", kTid);
    k.SchedSwitch(0, end + 1000, "server", kTid, 1, "swapper/0", 0);
  }
  ASSERT_TRUE((*w)->Close().ok());
  fs::create_directories(dir + "/spans");
  std::ofstream spans(dir + "/spans/spans.json");
  spans << "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
           "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"server\"}},"
           "{\"key\":\"process.pid\",\"value\":{\"intValue\":\"4242\"}}]},"
           "\"scopeSpans\":[{\"spans\":[";
  for (uint64_t i = 0; i < n; ++i)
    spans << fmt::format(
        "{}{{\"traceId\":\"{:032x}\",\"spanId\":\"{:016x}\",\"name\":\"GET /item\",\"kind\":2,"
        "\"startTimeUnixNano\":\"{}\",\"endTimeUnixNano\":\"{}\",\"attributes\":[{{\"key\":"
        "\"thread.id\",\"value\":{{\"intValue\":\"{}\"}}}}]}}",
        i ? "," : "", i + 1, i + 1, kStart + i * 10'000, end, kTid);
  spans << "]}]}]}\n";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CappedRun {
  int exit_code;
  std::string out, err;
};

CappedRun Capped(const std::string& tmp, long kb, const std::string& args) {
  const CommandResult r = RunCommand(
      fmt::format("{}'{}' {}", MemoryCapPrefix(kb), CAUSEWAY_CLI, args), tmp + "/stderr");
  return {r.exit_code, r.out, ReadFile(tmp + "/stderr")};
}

TEST(ReportBounds, ReportsPastTheBoundAreRefusedAndWrittenWithALimit) {
  TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  WriteOverlappingRecording(rec, 2100);
  const std::string html = tmp.path() + "/r.html", chrome = tmp.path() + "/t.json";
  for (const auto& [args, file] :
       {std::pair{"requests '" + rec + "' --format html -o '" + html + "'", html},
        std::pair{"export '" + rec + "' --format chrome -o '" + chrome + "'", chrome}}) {
    const CappedRun refused = Capped(tmp.path(), 2'000'000, args);
    EXPECT_EQ(refused.exit_code, 1) << args << "\n" << refused.err;
    EXPECT_NE(refused.err.find("2206050 pieces, more than the 2000000 a report draws"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("--limit N"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(fs::exists(file + ".partial"));
    // The 100 slowest: written whole, under the same cap.
    const CappedRun limited = Capped(tmp.path(), 2'000'000, args + " --limit 100");
    EXPECT_EQ(limited.exit_code, 0) << args << "\n" << limited.err;
    EXPECT_TRUE(fs::exists(file));
    EXPECT_FALSE(fs::exists(file + ".partial"));
    const std::string text = ReadFile(file);
    EXPECT_TRUE(text.ends_with("</html>\n") || text.ends_with("]}"))
        << text.substr(text.size() - 20);
  }
}

TEST(ReportBounds, OutOfMemoryIsAnErrorNotAnAbort) {
  // AddressSanitizer's operator new reports running out of memory and aborts: it never
  // throws std::bad_alloc, which is what this test is about.
  if (kAddressSanitizer)
    GTEST_SKIP() << "Skipped under AddressSanitizer (its allocator aborts instead of throwing "
                    "std::bad_alloc); the release build runs it: ctest --preset release -R "
                    "ReportBounds";
  TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  WriteOverlappingRecording(rec, 2100);
  const std::string html = tmp.path() + "/r.html";
  // 30 MB of address space: past the program's own mappings, too little for its threads and
  // its heap.
  const CappedRun r =
      Capped(tmp.path(), 30'000, "requests '" + rec + "' --format html -o '" + html + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("causeway requests: out of ", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(html));
  EXPECT_FALSE(fs::exists(html + ".partial"));
}

}  // namespace
}  // namespace causeway::testing
