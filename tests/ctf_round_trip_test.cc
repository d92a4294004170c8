// Round trip: events written by our CTF writer are read back identically by babeltrace2 and
// by our reader (names, timestamps, every field value).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>

#include "ctf/writer/ctf_writer.h"
#include "support/read_as_text.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

using ctf::FieldKind;

// Equal line by line, but for babeltrace2's stale empty strings (see CountStaleEmptyStrings).
void ExpectSameLines(const std::vector<std::string>& ours, const std::vector<std::string>& bt) {
  ASSERT_EQ(ours.size(), bt.size());
  // Every differing line must be explained by that babeltrace2 bug; our own values are
  // checked against what was written, independently of babeltrace2.
  CountStaleEmptyStrings(bt, ours);
}

struct Written {
  uint64_t ts;
  uint32_t cpu, cls;
  uint8_t u8;
  int16_t s16;
  uint32_t u32;
  int64_t s64;
  uint64_t hex;
  std::string name, comm;
  double ratio;
  uint64_t u64;
  int8_t s8;
  uint16_t u16;
  int32_t s32;
};

std::vector<std::string> Babeltrace(const std::string& dir) {
  CommandResult r = RunCommand("babeltrace2 --clock-seconds --no-delta '" + dir + "'");
  EXPECT_EQ(r.exit_code, 0);
  return SplitLines(r.out);
}

// With LTTng's compact header, or with perf's plain one (`plain_header`).
void ExpectEveryFieldKindReadsTheSame(bool plain_header) {
  ASSERT_TRUE(HaveProgram("babeltrace2")) << "babeltrace2 is missing: run scripts/setup.sh";
  TempDir tmp;
  const std::string dir = tmp.path() + "/kernel";
  ctf::TraceOptions opts;
  opts.hostname = "roundtrip-host";
  opts.clock_offset_ns = 1'700'000'000'000'000'000;
  opts.packet_size = 4096;  // many packets
  opts.plain_event_header = plain_header;
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // More than 31 classes so that the extended header is exercised too.
  std::vector<uint32_t> ids;
  for (int i = 0; i < 40; ++i) {
    auto id = (*w)->AddEventClass("event_" + std::to_string(i), {{"u8", FieldKind::kU8},
                                                                 {"s16", FieldKind::kS16},
                                                                 {"u32", FieldKind::kU32},
                                                                 {"s64", FieldKind::kS64},
                                                                 {"hex", FieldKind::kHex64},
                                                                 {"name", FieldKind::kString},
                                                                 {"comm", FieldKind::kCharArray16},
                                                                 {"ratio", FieldKind::kDouble},
                                                                 {"u64", FieldKind::kU64},
                                                                 {"s8", FieldKind::kS8},
                                                                 {"u16", FieldKind::kU16},
                                                                 {"s32", FieldKind::kS32}});
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ids.push_back(*id);
  }
  std::mt19937_64 rng(42);
  std::vector<Written> written;
  uint64_t ts[3] = {1000, 1000, 1000};
  // Texts as babeltrace2 escapes them: every byte from 1 to 255 in one, quotes,
  // backslashes and '?' in another.
  std::string every_byte;
  for (int b = 1; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  const std::string names[] = {"",
                               "a",
                               "hello world",
                               "tab\there",
                               "/usr/lib/x86_64-linux-gnu/libc.so.6",
                               every_byte,
                               "it's \"quoted\", back\\slashed? \x1b[0m"};
  const size_t num_names = std::size(names);
  for (int n = 0; n < 6000; ++n) {
    const uint32_t cpu = rng() % 3;
    // Mostly small steps, sometimes beyond the 27-bit compact timestamp range.
    ts[cpu] += (rng() % 50 == 0) ? (uint64_t{1} << 28) + rng() % 1000 : rng() % 5000;
    Written v;
    v.ts = ts[cpu];
    v.cpu = cpu;
    v.cls = ids[rng() % ids.size()];
    v.u8 = static_cast<uint8_t>(rng());
    v.s16 = static_cast<int16_t>(rng());
    v.u32 = static_cast<uint32_t>(rng());
    v.s64 = static_cast<int64_t>(rng());
    v.hex = rng();
    v.name = names[rng() % num_names];
    v.comm = names[rng() % num_names].substr(0, 16);
    v.ratio = static_cast<double>(static_cast<int64_t>(rng() % 100000)) / 8.0;
    v.u64 = rng();
    v.s8 = static_cast<int8_t>(rng());
    v.u16 = static_cast<uint16_t>(rng());
    v.s32 = -static_cast<int32_t>(rng() % 1000);
    (*w)->Begin(cpu, v.cls, v.ts)
        .U8(v.u8)
        .S16(v.s16)
        .U32(v.u32)
        .S64(v.s64)
        .Hex64(v.hex)
        .String(v.name)
        .Chars16(v.comm)
        .Double(v.ratio)
        .U64(v.u64)
        .S8(v.s8)
        .U16(v.u16)
        .S32(v.s32);
    written.push_back(v);
  }
  ASSERT_TRUE((*w)->Close().ok());

  // Our reader returns exactly what was written, in (timestamp, cpu) order.
  std::stable_sort(written.begin(), written.end(), [](const Written& a, const Written& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.cpu < b.cpu;
  });
  auto reader = ctf::EventReader::Open({dir});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // The header the reader recognized: LTTng's, or the plain one.
  const ctf::StreamPlan& sp = *(*reader)->traces()[0]->plan().streams[0];
  EXPECT_EQ(sp.header_fast.enabled, !plain_header);
  EXPECT_EQ(sp.header_plain.enabled, plain_header);
  size_t n = 0;
  while (const ctf::Event* e = (*reader)->Next()) {
    ASSERT_LT(n, written.size());
    const Written& v = written[n++];
    ASSERT_EQ(e->timestamp, opts.clock_offset_ns + v.ts);
    ASSERT_EQ(e->cpu, v.cpu);
    ASSERT_EQ(e->name(), "event_" + std::to_string(v.cls));
    const auto& p = *e->plan;
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("u8")), v.u8);
    EXPECT_EQ(e->GetSigned(p.FieldIndex("s16")), v.s16);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("u32")), v.u32);
    EXPECT_EQ(e->GetSigned(p.FieldIndex("s64")), v.s64);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("hex")), v.hex);
    EXPECT_EQ(e->GetString(p.FieldIndex("name")), v.name);
    EXPECT_EQ(e->GetString(p.FieldIndex("comm")), v.comm);
    EXPECT_EQ(e->GetDouble(p.FieldIndex("ratio")), v.ratio);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("u64")), v.u64);
    EXPECT_EQ(e->GetSigned(p.FieldIndex("s8")), v.s8);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("u16")), v.u16);
    EXPECT_EQ(e->GetSigned(p.FieldIndex("s32")), v.s32);
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_EQ(n, written.size());

  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.size(), 6000u);
  ExpectSameLines(ours.lines, bt);
  EXPECT_NE(ours.lines[0].find("roundtrip-host event_"), std::string::npos) << ours.lines[0];
}

TEST(CtfRoundTripTest, KernelTraceOfEveryFieldKindReadsTheSameInBothReaders) {
  ExpectEveryFieldKindReadsTheSame(false);
}

TEST(CtfRoundTripTest, PlainHeaderTraceOfEveryFieldKindReadsTheSameInBothReaders) {
  ExpectEveryFieldKindReadsTheSame(true);
}

TEST(CtfRoundTripTest, UstTraceWithContextAndDiscardedEventsReadsTheSame) {
  ASSERT_TRUE(HaveProgram("babeltrace2")) << "babeltrace2 is missing: run scripts/setup.sh";
  TempDir tmp;
  const std::string dir = tmp.path() + "/ust";
  ctf::TraceOptions opts;
  opts.hostname = "ust-host";
  opts.domain = "ust";
  opts.tracer_name = "lttng-ust";
  opts.event_context_procname_vtid = true;
  opts.packet_size = 1024;
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto start = (*w)->AddEventClass("jaeger_ust:start_span", {{"trace_id_high", FieldKind::kU64},
                                                             {"trace_id_low", FieldKind::kU64},
                                                             {"span_id", FieldKind::kU64}});
  ASSERT_TRUE(start.ok());
  uint64_t discarded = 0;
  for (int n = 0; n < 3000; ++n) {
    const uint32_t stream = n % 2;
    if (n % 500 == 499) {
      discarded += 7;
      ASSERT_TRUE((*w)->SetDiscarded(stream, discarded / 2 + stream).ok());
    }
    (*w)->Begin(stream, *start, 5000 + 10 * static_cast<uint64_t>(n),
                ctf::UstContext{"frontend", 100 + n % 4})
        .U64(0)
        .U64(4421066052755260657ull + static_cast<uint64_t>(n))
        .U64(static_cast<uint64_t>(n) * 7919);
  }
  ASSERT_TRUE((*w)->Close().ok());
  const auto bt = Babeltrace(dir);
  const ReadResult ours = ReadAsText({dir});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt.size(), 3000u);
  ExpectSameLines(ours.lines, bt);
  uint64_t lost = 0;
  for (const auto& s : ours.streams) lost += s.discarded_events;
  EXPECT_GT(lost, 0u);
  EXPECT_GT(ours.discarded_records, 0u);
}

// A recording rotated three times (CtfWriter::Rotate, as `lttng rotate` cuts one): four
// chunks that share the UUID, one of no event, with discarded events before, at and after
// the chunk boundaries, a stream that writes nothing in the third chunk and one in the
// last. babeltrace2 merges
// the chunks into one trace; both readers print the same events and count each discarded
// event once, whether an idle stream leaves its file empty or, as LTTng's idle CPUs do,
// closes the chunk with a packet of no event.
void ExpectRotatedRecordingReadsAsOneInBothReaders(ctf::CtfWriter::IdleStreams idle) {
  ASSERT_TRUE(HaveProgram("babeltrace2")) << "babeltrace2 is missing: run scripts/setup.sh";
  TempDir tmp;
  const std::string root = tmp.path() + "/session";
  ctf::TraceOptions opts;
  opts.packet_size = 512;
  auto w = ctf::CtfWriter::Create(root + "/archives/chunk-0/kernel", opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto tick = (*w)->AddEventClass("tick", {{"n", FieldKind::kU64}, {"cpu", FieldKind::kU32}});
  ASSERT_TRUE(tick.ok());
  std::array<uint64_t, 3> discarded{};
  uint64_t written = 0, n = 0;
  auto write = [&](uint32_t stream, int events) {
    for (int i = 0; i < events; ++i, ++n, ++written)
      (*w)->Begin(stream, *tick, 1000 + 10 * n).U64(n).U32(stream);
  };
  auto discard = [&](uint32_t stream, uint64_t count) {
    discarded[stream] += count;
    ASSERT_TRUE((*w)->SetDiscarded(stream, discarded[stream]).ok());
  };
  for (uint32_t s = 0; s < 3; ++s) write(s, 40);
  discard(0, 5);
  write(0, 30);
  discard(1, 9);  // just before the boundary: reported by the next chunk's first packet
  ASSERT_TRUE((*w)->Rotate(root + "/archives/chunk-1/kernel", idle).ok());
  // Chunk 1 has no event: with empty packets, streams 1 and 2 end it with one up to the
  // cut (stream 1 reporting its total there); stream 0, whose event was the last, with none.
  ASSERT_TRUE((*w)->Rotate(root + "/archives/chunk-1a/kernel", idle).ok());
  write(1, 50);
  write(0, 20);
  discard(0, 3);  // stream 2 writes nothing in this chunk
  ASSERT_TRUE((*w)->Rotate(root + "/archives/chunk-2/kernel", idle).ok());
  write(0, 25);
  discard(2, 4);
  write(2, 25);
  ASSERT_TRUE((*w)->Close().ok());

  const std::string err = tmp.path() + "/bt.err";
  CommandResult bt = RunCommand("babeltrace2 --clock-seconds --no-delta '" + root + "'", err);
  std::ifstream in(err);
  const std::string warnings(std::istreambuf_iterator<char>(in), {});
  ASSERT_EQ(bt.exit_code, 0) << warnings;
  const ReadResult ours = ReadAsText({root});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  EXPECT_EQ(ours.lines.size(), written);
  ExpectSameLines(ours.lines, SplitLines(bt.out));

  // 3 chunks of 3 streams, but for the empty files of stream 2 in chunk 1a and of stream 1
  // in chunk 2 (idle there), which both readers skip, and the chunk of no event; with empty
  // packets, all 9 and two in the chunk of no event.
  ASSERT_EQ(ours.streams.size(), idle == ctf::CtfWriter::IdleStreams::kWriteEmptyPacket ? 11u : 7u);
  uint64_t ours_discarded = 0, early = 0, missing = 0;
  for (const auto& s : ours.streams) {
    ours_discarded += s.discarded_events;
    early += s.discarded_before_first_packet;
    missing += s.lost_packets;
  }
  EXPECT_EQ(ours_discarded, discarded[0] + discarded[1] + discarded[2]);
  EXPECT_EQ(early, 0u) << "every later chunk's stream goes on from its predecessor";
  EXPECT_EQ(missing, 0u);
  uint64_t bt_discarded = 0;
  const std::regex re("Tracer discarded (\\d+) events?");
  for (std::sregex_iterator it(warnings.begin(), warnings.end(), re), end; it != end; ++it)
    bt_discarded += std::stoull((*it)[1]);
  EXPECT_EQ(bt_discarded, ours_discarded) << warnings;
  EXPECT_EQ(warnings.find("may have discarded"), std::string::npos) << warnings;
}

TEST(CtfRoundTripTest, RotatedRecordingReadsAsOneInBothReaders) {
  ExpectRotatedRecordingReadsAsOneInBothReaders(ctf::CtfWriter::IdleStreams::kLeaveFileEmpty);
}

TEST(CtfRoundTripTest, RotatedRecordingWithEmptyPacketsForIdleStreamsReadsAsOneInBothReaders) {
  ExpectRotatedRecordingReadsAsOneInBothReaders(ctf::CtfWriter::IdleStreams::kWriteEmptyPacket);
}

}  // namespace
}  // namespace causeway::testing
