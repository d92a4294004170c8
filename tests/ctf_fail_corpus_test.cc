// The broken traces of tests/data/fail/ (see README.md there): each must be refused with a
// message naming the file and the offset (or metadata line and column) of the damage, and
// without a crash (this binary runs under ASan and UBSan). One case, a metadata-only trace,
// must read as zero events without error. Files that are not regular files (a FIFO, a link
// to /dev/zero) and a metadata file over the size limit are made at test time (git keeps
// neither) and refused by the CLI within a timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "report/event_format.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

namespace fs = std::filesystem;

std::string FailDir() { return (fs::path(CAUSEWAY_TEST_DATA) / "fail").string(); }

// Every case directory, sorted.
std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(FailDir(), ec))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The file's text without trailing newlines; "" when it cannot be read.
std::string ReadTrimmed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct Outcome {
  Status status;
  uint64_t events = 0;
};

// Opens the case's trace and reads it to the end, formatting every event as text and as
// JSON so that the field walker runs over whatever was decoded before the damage.
Outcome ReadCase(const std::string& name) {
  Outcome o;
  auto reader = ctf::EventReader::Open({FailDir() + "/" + name + "/trace"});
  if (!reader.ok()) {
    o.status = reader.status();
    return o;
  }
  report::EventFormatter text({.time = report::TimeFormat::kSeconds});
  report::EventFormatter json;
  std::string line;
  while (const ctf::Event* e = (*reader)->Next()) {
    line.clear();
    text.AppendText(*e, &line);
    json.AppendJson(*e, &line);
    if (++o.events > 1'000'000) {
      o.status = Internal("more than a million events: the reader does not stop");
      return o;
    }
  }
  o.status = (*reader)->status();
  return o;
}

// The same trace through EventReader::ScanUnordered (what `causeway stats` reads with):
// each stream decoded on its own, on two threads, no merge.
Outcome ScanCase(const std::string& name) {
  Outcome o;
  ctf::ReaderOptions options;
  options.decode_threads = 0;
  auto reader = ctf::EventReader::Open({FailDir() + "/" + name + "/trace"}, options);
  if (!reader.ok()) {
    o.status = reader.status();
    return o;
  }
  std::atomic<uint64_t> events{0};
  o.status = (*reader)->ScanUnordered(2, [&](unsigned, ctf::StreamCursor& cursor) {
    uint64_t n = 0;
    while (cursor.Next() && n <= 1'000'000) ++n;
    events += n;
  });
  o.events = events;
  return o;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

class CtfFailCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CtfFailCorpusTest, ReaderReportsTheExpectedError) {
  const std::string dir = FailDir() + "/" + GetParam();
  const bool want_error = fs::exists(dir + "/expected_error.txt");
  const bool want_events = fs::exists(dir + "/expected_events.txt");
  ASSERT_NE(want_error, want_events)
      << dir << " needs exactly one of expected_error.txt, expected_events.txt";

  const Outcome o = ReadCase(GetParam());
  // The scan without merge stops at the same error, or reads as many events.
  const Outcome scanned = ScanCase(GetParam());
  EXPECT_EQ(scanned.status.ToString(), o.status.ToString());
  if (want_events) {
    EXPECT_TRUE(o.status.ok()) << o.status.ToString();
    EXPECT_EQ(std::to_string(o.events), ReadTrimmed(dir + "/expected_events.txt"));
    EXPECT_EQ(scanned.events, o.events);
    return;
  }
  const std::string expected = ReadTrimmed(dir + "/expected_error.txt");
  ASSERT_FALSE(expected.empty());
  ASSERT_FALSE(o.status.ok()) << "read " << o.events << " events without error";
  EXPECT_NE(o.status.code(), StatusCode::kInternal) << o.status.ToString();
  EXPECT_NE(o.status.ToString().find(expected), std::string::npos)
      << "message: " << o.status.ToString() << "\nexpected to contain: " << expected;
}

INSTANTIATE_TEST_SUITE_P(Cases, CtfFailCorpusTest, ::testing::ValuesIn(CaseNames()), TestName);

TEST(CtfFailCorpus, HasEveryCase) {
  const std::vector<std::string> names = CaseNames();
  for (const char* want :
       {"bad-packet-magic", "truncated-packet", "packet-size-beyond-file",
        "content-size-over-packet-size", "unknown-event-id", "undeclared-event-id-below-last",
        "unterminated-string", "huge-sequence-length", "tsdl-syntax-error",
        "metadata-packet-bad-content-size", "unknown-type-alias", "unresolved-variant-tag",
        "undeclared-stream-class", "empty-directory", "nonexistent-path", "metadata-only",
        "clock-freq-1", "clock-offset-s-max", "clock-offset-s-min"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

// The CLI prints the same message on stderr and exits non-zero.
class CtfFailCorpusCliTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CtfFailCorpusCliTest, EventsAndStatsFailWithTheMessage) {
  const std::string dir = FailDir() + "/" + GetParam();
  const std::string expected = ReadTrimmed(dir + "/expected_error.txt");
  ASSERT_FALSE(expected.empty());
  TempDir tmp;
  const std::string err_path = tmp.path() + "/stderr";
  for (const char* command : {"events", "stats"}) {
    const CommandResult r = RunCommand(
        std::string("'") + CAUSEWAY_CLI + "' " + command + " '" + dir + "/trace'", err_path);
    const std::string err = ReadTrimmed(err_path);
    EXPECT_NE(r.exit_code, 0) << command;
    EXPECT_NE(r.exit_code, -1) << command << ": killed by a signal";
    EXPECT_NE(err.find(expected), std::string::npos) << command << " stderr: " << err;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CtfFailCorpusCliTest,
                         ::testing::Values("unknown-event-id", "tsdl-syntax-error"), TestName);

TEST(CtfFailCorpusCli, MetadataOnlyTraceIsNotAnError) {
  const std::string dir = FailDir() + "/metadata-only/trace";
  for (const char* command : {"events", "stats"}) {
    const CommandResult r =
        RunCommand(std::string("'") + CAUSEWAY_CLI + "' " + command + " '" + dir + "'");
    EXPECT_EQ(r.exit_code, 0) << command;
  }
}

// A trace directory holding a copy of the metadata-only case's metadata (and, when
// `with_stream`, the unknown-event-id case's stream file); the test then replaces one file.
std::string CopyTrace(const TempDir& tmp, bool with_stream) {
  const std::string dir = tmp.path() + "/trace";
  fs::create_directory(dir);
  fs::copy_file(FailDir() + "/metadata-only/trace/metadata", dir + "/metadata");
  if (with_stream)
    fs::copy_file(FailDir() + "/unknown-event-id/trace/channel1_2", dir + "/channel1_2");
  return dir;
}

// Runs `causeway COMMAND DIR` under a timeout (a reader blocked on a FIFO would never
// return): it must fail on its own, in time, with `expected` on stderr.
void ExpectRefused(const std::string& command_args, const std::string& expected) {
  TempDir out;
  const std::string err_path = out.path() + "/stderr";
  // A memory cap: reading /dev/zero without a limit would take all the memory there is.
  const CommandResult r = RunCommand(
      MemoryCapPrefix(4'000'000) + "timeout 60 '" + std::string(CAUSEWAY_CLI) + "' " + command_args,
      err_path);
  const std::string err = ReadTrimmed(err_path);
  EXPECT_NE(r.exit_code, 124) << command_args << ": still reading after 60 s";
  EXPECT_EQ(r.exit_code, 1) << command_args << " stderr: " << err;
  EXPECT_NE(err.find(expected), std::string::npos) << command_args << " stderr: " << err;
}

TEST(CtfFailCorpusCli, MetadataFifoIsRefused) {
  TempDir tmp;
  const std::string dir = CopyTrace(tmp, false);
  fs::remove(dir + "/metadata");
  ASSERT_EQ(mkfifo((dir + "/metadata").c_str(), 0600), 0);
  for (const char* command : {"events", "stats"})
    ExpectRefused(
        std::string(command) + " '" + dir + "'",
        "Cannot open metadata: file=" + dir + "/metadata: not a regular file (it is a FIFO)");
}

TEST(CtfFailCorpusCli, MetadataLinkedToDevZeroIsRefused) {
  TempDir tmp;
  const std::string dir = CopyTrace(tmp, false);
  fs::remove(dir + "/metadata");
  fs::create_symlink("/dev/zero", dir + "/metadata");
  for (const char* command : {"events", "stats"})
    ExpectRefused(std::string(command) + " '" + dir + "'",
                  "not a regular file (it is a character device)");
}

TEST(CtfFailCorpusCli, MetadataOverTheSizeLimitIsRefused) {
  TempDir tmp;
  const std::string dir = CopyTrace(tmp, false);
  // A sparse file one byte over 64 MiB: refused from its size, before anything is read.
  fs::resize_file(dir + "/metadata", (uint64_t{64} << 20) + 1);
  ExpectRefused("stats '" + dir + "'", "Cannot read metadata: file=" + dir +
                                           "/metadata: 67108865 bytes, more than the "
                                           "64 MiB a metadata file may have");
}

TEST(CtfFailCorpusCli, StreamFifoIsRefused) {
  TempDir tmp;
  const std::string dir = CopyTrace(tmp, true);
  ASSERT_EQ(mkfifo((dir + "/channel0_0").c_str(), 0600), 0);
  for (const char* command : {"events", "stats"})
    ExpectRefused(std::string(command) + " '" + dir + "'",
                  dir + "/channel0_0: not a regular file (it is a FIFO)");
}

TEST(CtfFailCorpusCli, SpanFileFifoIsRefused) {
  TempDir tmp;
  // A kernel trace that reads (the spans are read beside it, on another thread).
  const std::string dir = std::string(CAUSEWAY_TEST_DATA) + "/traces/perf-sched";
  const std::string spans = tmp.path() + "/spans.json";
  ASSERT_EQ(mkfifo(spans.c_str(), 0600), 0);
  ExpectRefused("requests '" + dir + "' --spans '" + spans + "'",
                "Cannot read span file " + spans + ": not a regular file");
  // In a span directory too.
  ExpectRefused("requests '" + dir + "' --spans '" + tmp.path() + "'",
                "Cannot read span file " + spans + ": not a regular file");
}

// Nested arrays of empty elements that the decoder accepts but that repeat more often than
// an event walk visits (its bits plus 4096): the text output ends them with "...", and the
// JSON line says how many elements it left out.
TEST(CtfFailCorpusCli, ArraysCutShortAreCountedInJson) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/trace";
  fs::create_directory(dir);
  {
    std::ofstream m(dir + "/metadata", std::ios::binary);
    m << "/* CTF 1.8 */\n"
         "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
         "trace { major = 1; minor = 8; byte_order = le; };\n"
         "stream { event.header := struct { uint8_t id; }; };\n"
         "event { name = \"nested\"; id = 0; fields := struct { uint8_t a; uint8_t b;\n"
         "  struct { struct { } in[b]; } out[a]; }; };\n";
    std::ofstream st(dir + "/stream", std::ios::binary);
    st << std::string("\0\xc8\xc8", 3);  // id 0, a = b = 200: 40,200 elements
  }
  TempDir out;
  const std::string err_path = out.path() + "/stderr";
  const CommandResult json = RunCommand(
      "'" + std::string(CAUSEWAY_CLI) + "' events --format jsonl '" + dir + "'", err_path);
  ASSERT_EQ(json.exit_code, 0) << ReadTrimmed(err_path);
  const size_t at = json.out.find(",\"elements_cut\":");
  ASSERT_NE(at, std::string::npos) << json.out;
  const uint64_t cut = std::stoull(json.out.substr(at + 16));
  // The walk visits 24 + 4096 elements, 201 per outer element (itself and its 200): outer
  // elements 0-19 whole, 20 and 99 of its inner ones. Left out: 101 inner elements of outer
  // 20, and outer elements 21-199 (179; their own elements are not counted again).
  EXPECT_EQ(cut, 101u + 179u) << json.out.substr(at);
  const CommandResult text =
      RunCommand("'" + std::string(CAUSEWAY_CLI) + "' events '" + dir + "'", err_path);
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("..."), std::string::npos);
}

}  // namespace
}  // namespace causeway::testing
