// make_overlapping_requests: writes a recording of N requests that all overlap on one
// thread, the shape whose analysis once took memory in N² (issue 57): a kernel trace (our
// LTTng layout) where one server thread runs throughout, and OTLP JSON spans of N root
// spans on that thread (thread.id, process.pid), request i from i x 10 µs to the end.
//
//   make_overlapping_requests OUT_DIR --requests N
//
// Every request is blocked by every later one: `causeway requests OUT_DIR` measures the
// analysis' memory and time as N grows (scripts/stress.sh).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"

namespace {

using namespace causeway;
namespace fs = std::filesystem;

constexpr int32_t kTid = 4242;
constexpr uint64_t kStart = 1'000'000'000;  // ns: the kernel trace and the spans alike
constexpr uint64_t kStep = 10'000;          // between two requests' starts

int WriteKernel(const std::string& dir, uint64_t end) {
  ctf::TraceOptions o;
  o.hostname = "bench";
  auto w = ctf::CtfWriter::Create(dir, o);
  if (!w.ok()) return std::fprintf(stderr, "%s\n", w.status().ToString().c_str()), 1;
  testing::LttngKernelWriter k(**w);
  if (!k.status().ok()) return std::fprintf(stderr, "%s\n", k.status().ToString().c_str()), 1;
  // The thread and its process, then it runs from the start to the end.
  k.Begin(0, kernel::LttngEvent::kStatedumpProcessState, kStart - 1000)
      .S32(kTid)
      .S32(kTid)
      .S32(1)
      .Chars16("server")
      .S32(0)
      .S32(0);
  k.SchedSwitch(0, kStart - 500, "swapper/0", 0, 0, "server", kTid);
  k.SchedSwitch(0, end + 1000, "server", kTid, 1, "swapper/0", 0);
  const Status st = (*w)->Close();
  if (!st.ok()) return std::fprintf(stderr, "%s\n", st.ToString().c_str()), 1;
  return 0;
}

int WriteSpans(const std::string& path, uint64_t n, uint64_t end) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return std::fprintf(stderr, "cannot write %s\n", path.c_str()), 1;
  constexpr uint64_t kPerLine = 1000;
  for (uint64_t first = 0; first < n; first += kPerLine) {
    std::string line =
        "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
        "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"server\"}},"
        "{\"key\":\"process.pid\",\"value\":{\"intValue\":\"4242\"}}]},"
        "\"scopeSpans\":[{\"spans\":[";
    for (uint64_t i = first; i < std::min(n, first + kPerLine); ++i) {
      fmt::format_to(
          std::back_inserter(line),
          "{}{{\"traceId\":\"{:016x}{:016x}\",\"spanId\":\"{:016x}\",\"name\":\"GET /item\","
          "\"kind\":2,\"startTimeUnixNano\":\"{}\",\"endTimeUnixNano\":\"{}\","
          "\"attributes\":[{{\"key\":\"thread.id\",\"value\":{{\"intValue\":\"{}\"}}}}]}}",
          i == first ? "" : ",", i + 1, i + 1, i + 1, kStart + i * kStep, end, kTid);
    }
    line += "]}]}]}\n";
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size())
      return std::fprintf(stderr, "cannot write %s\n", path.c_str()), 1;
  }
  return std::fclose(f) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[2]) != "--requests") {
    std::fprintf(stderr, "usage: %s OUT_DIR --requests N\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const uint64_t n = std::strtoull(argv[3], nullptr, 10);
  if (n == 0) return std::fprintf(stderr, "--requests must be at least 1\n"), 2;
  std::error_code ec;
  if (fs::exists(out, ec)) return std::fprintf(stderr, "%s exists\n", out.c_str()), 2;
  fs::create_directories(out + "/spans", ec);
  // Every request ends after the last one started: all of them overlap.
  const uint64_t end = kStart + n * kStep + 1'000'000;
  if (int rc = WriteKernel(out + "/kernel", end); rc != 0) return rc;
  return WriteSpans(out + "/spans/spans.json", n, end);
}
