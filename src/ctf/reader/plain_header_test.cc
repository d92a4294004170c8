// A plain event header (PlainHeader: perf's u32 id and u64 timestamp) is decoded on the
// cursor's static path and in static runs. The same bytes under a header the plan does not
// recognize (the id inside a one-field struct: the same layout and meaning) go through the
// interpreter. Both must read the same: every event with every field, the discarded
// records, each stream's statistics (with decoding threads, at a clean end) and the error
// with its place, on clean streams and on
// streams with bytes flipped (undeclared ids, timestamps that go back, broken sizes,
// content cut short).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"
#include "report/event_format.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kStreams = 3;

// A kernel-like trace under the plain header: static bodies, bodies a string ends, a
// string within a body, ids past 31, time steps past 2^27 ns, discarded events, many
// packets.
void WritePlainTrace(const std::string& dir) {
  TraceOptions o;
  o.packet_size = 2048;
  o.plain_event_header = true;
  auto w = CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<uint32_t> fixed;
  for (int i = 0; i < 40; ++i)
    fixed.push_back(*(*w)->AddEventClass(fmt::format("fixed_{}", i),
                                         {{"a", FieldKind::kU32}, {"b", FieldKind::kS64}}));
  const uint32_t tail =
      *(*w)->AddEventClass("tail", {{"n", FieldKind::kU32}, {"s", FieldKind::kString}});
  const uint32_t mid =
      *(*w)->AddEventClass("mid", {{"s", FieldKind::kString}, {"n", FieldKind::kU32}});
  const uint32_t comm =
      *(*w)->AddEventClass("comm", {{"comm", FieldKind::kCharArray16}, {"pid", FieldKind::kS32}});
  std::mt19937 rng(11);
  uint64_t ts[kStreams] = {1'000'000, 1'000'100, 1'000'200};
  for (uint32_t i = 0; i < 12000; ++i) {
    const uint32_t s = rng() % kStreams;
    ts[s] += rng() % 97 == 0 ? (uint64_t{1} << 28) : 1 + rng() % 2000;
    const uint32_t r = rng();
    if (r % 7 == 0) {
      (*w)->Begin(s, tail, ts[s]).U32(i).String(std::string(r % 13, 't'));
    } else if (r % 11 == 0) {
      (*w)->Begin(s, mid, ts[s]).String(std::string(r % 5, 'm')).U32(i);
    } else if (r % 13 == 0) {
      (*w)->Begin(s, comm, ts[s]).Chars16("worker").S32(static_cast<int32_t>(i));
    } else {
      (*w)->Begin(s, fixed[r % fixed.size()], ts[s]).U32(i).S64(-static_cast<int64_t>(r));
    }
    if (i % 3001 == 3000) {
      ASSERT_TRUE((*w)->SetDiscarded(s, i / 3000).ok());
    }
  }
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Copies `from` to `to`, with the event header's id wrapped in a struct when `nested_id`.
void CopyTrace(const std::string& from, const std::string& to, bool nested_id) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from))
    fs::copy_file(entry.path(), fs::path(to) / entry.path().filename());
  if (!nested_id) return;
  std::string metadata = ReadText(from + "/metadata");
  const std::string id = "\t\tuint32_t id;\n\t\tuint64_clock_";
  const size_t at = metadata.find(id);
  ASSERT_NE(at, std::string::npos) << "the writer's plain header changed";
  metadata.replace(at, id.size(), "\t\tstruct { uint32_t id; } wrapped;\n\t\tuint64_clock_");
  WriteText(to + "/metadata", metadata);
}

// Everything a read gives, with the trace's directory replaced by "DIR" in the messages.
struct Read {
  std::vector<std::string> records;
  std::vector<std::string> stats;
  std::string status;
  bool plain = false;  // the header was recognized
};

Read ReadTrace(const std::string& dir, unsigned decode_threads) {
  Read r;
  ReaderOptions o;
  o.decode_threads = decode_threads;
  o.decode_batch_events = 7;  // many batch ends
  auto reader = EventReader::Open({dir}, o);
  if (!reader.ok()) {
    r.status = reader.status().ToString();
  } else {
    r.plain = (*reader)->traces()[0]->plan().streams[0]->header_plain.enabled;
    report::EventFormatter f({.time = report::TimeFormat::kSeconds, .delta = false});
    std::string line;
    while (const Event* e = (*reader)->Next()) {
      line = fmt::format("{} s{} ", e->cycles, e->stream_index);
      if (e->kind == Event::Kind::kDiscarded)
        line += fmt::format("discarded {} [{}, {}]", e->discarded, e->discarded_begin,
                            e->discarded_end);
      else
        f.AppendText(*e, &line);
      r.records.push_back(line);
    }
    r.status = (*reader)->status().ToString();
    for (const StreamStats& s : (*reader)->stream_stats())
      r.stats.push_back(fmt::format("{} {} {} {} {} {} {} {} {}", s.path.substr(dir.size()),
                                    s.packets, s.events, s.discarded_events, s.lost_packets,
                                    s.clamped_events, s.max_backward_ns, s.first_ts, s.last_ts));
  }
  for (size_t at; (at = r.status.find(dir)) != std::string::npos;)
    r.status.replace(at, dir.size(), "DIR");
  return r;
}

// The plain path (inline, and through the decoding pipeline's static runs) against the
// interpreter on the same bytes.
void ExpectSameAsInterpreter(const std::string& plain_dir, const std::string& nested_dir,
                             const std::string& what) {
  SCOPED_TRACE(what);
  const Read want = ReadTrace(nested_dir, 0);
  ASSERT_FALSE(want.plain) << "the wrapped id was recognized: the interpreter is not compared";
  for (const unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(fmt::format("{} decoding threads", threads));
    const Read got = ReadTrace(plain_dir, threads);
    ASSERT_TRUE(got.plain);
    EXPECT_EQ(got.status, want.status);
    // After an error the decoding threads have read the other streams further ahead than
    // the inline read, so their statistics match at a clean end only (as DecodePipelineTest).
    if (threads == 0 || want.status == "OK") {
      EXPECT_EQ(got.stats, want.stats);
    }
    ASSERT_EQ(got.records.size(), want.records.size());
    for (size_t i = 0; i < got.records.size(); ++i)
      ASSERT_EQ(got.records[i], want.records[i]) << "record " << i;
  }
}

TEST(PlainHeaderTest, ReadsAsTheInterpreterDoes) {
  testing::TempDir tmp;
  const std::string clean = tmp.path() + "/clean";
  WritePlainTrace(clean);
  CopyTrace(clean, tmp.path() + "/plain", false);
  CopyTrace(clean, tmp.path() + "/nested", true);
  const Read read = ReadTrace(tmp.path() + "/plain", 0);
  EXPECT_EQ(read.status, "OK");
  EXPECT_GT(read.records.size(), 12000u);  // the events and the discarded records
  ExpectSameAsInterpreter(tmp.path() + "/plain", tmp.path() + "/nested", "clean");
}

TEST(PlainHeaderTest, DamagedStreamsReadAsTheInterpreterDoes) {
  testing::TempDir tmp;
  const std::string clean = tmp.path() + "/clean";
  WritePlainTrace(clean);
  std::vector<std::string> streams;
  for (const auto& entry : fs::directory_iterator(clean))
    if (entry.path().filename() != "metadata") streams.push_back(entry.path().filename());
  ASSERT_EQ(streams.size(), kStreams);
  std::mt19937 rng(5);
  size_t errors = 0;
  for (int round = 0; round < 24; ++round) {
    const std::string plain = fmt::format("{}/plain{}", tmp.path(), round);
    const std::string nested = fmt::format("{}/nested{}", tmp.path(), round);
    CopyTrace(clean, plain, false);
    CopyTrace(clean, nested, true);
    // The same bytes flipped in both copies: a few anywhere in one stream file.
    const std::string name = streams[rng() % streams.size()];
    std::string bytes = ReadText(clean + "/" + name);
    std::string flips;
    for (int k = 0; k < 1 + round % 3; ++k) {
      const size_t at = rng() % bytes.size();
      const auto mask = static_cast<char>(1 << (rng() % 8));
      bytes[at] = static_cast<char>(bytes[at] ^ mask);
      flips += fmt::format(" {}@{}", name, at);
    }
    WriteText(plain + "/" + name, bytes);
    WriteText(nested + "/" + name, bytes);
    ExpectSameAsInterpreter(plain, nested, "flipped" + flips);
    errors += ReadTrace(plain, 0).status != "OK";
  }
  // Some flips broke a stream (others only changed values).
  EXPECT_GT(errors, 3u);
}

}  // namespace
}  // namespace causeway::ctf
