// A stream file is read into chunks (pread) rather than mapped: packets smaller than a chunk,
// packets straddling a chunk's end, packets larger than a chunk, a packet header and context
// wider than the first window or than the largest window, and a file that shrinks while it
// is read.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

// Time, CPU and every integer and string field of an event.
std::string Fields(const Event& e) {
  std::string s = fmt::format("{} t={} cpu={}", e.name(), e.timestamp, e.cpu);
  if (e.kind != Event::Kind::kEvent) return s + fmt::format(" lost={}", e.discarded);
  for (const FieldDesc& f : e.plan->fields) {
    const TypeKind k = f.node->type->kind;
    if (k == TypeKind::kString)
      s += fmt::format(" {}='{}'", f.name, e.GetString(*f.node));
    else if (k == TypeKind::kInteger || k == TypeKind::kEnum)
      s += fmt::format(" {}={}", f.name, e.GetSigned(*f.node));
  }
  return s;
}

// Writes `events` events of varied sizes over two CPUs in packets of `packet_size` bytes.
void WriteTrace(const std::string& dir, size_t packet_size, uint32_t events) {
  TraceOptions o;
  o.packet_size = packet_size;
  auto w = CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint32_t tick = *(*w)->AddEventClass(
      "tick", {{"n", FieldKind::kU32}, {"name", FieldKind::kString}, {"v", FieldKind::kS64}});
  for (uint32_t i = 0; i < events; ++i)
    (*w)->Begin(i % 2, tick, 1000 + uint64_t{i} * 5)
        .U32(i)
        .String(std::string(i % 53, static_cast<char>('a' + i % 26)))
        .S64(-static_cast<int64_t>(i) * 3);
  ASSERT_TRUE((*w)->Close().ok());
}

struct StreamRead {
  std::vector<std::string> events;
  StreamStats stats;
  std::string status;
};

// One stream file through a cursor: read from the file (chunks) or from its bytes in memory.
StreamRead ReadStream(const Trace& trace, const std::string& path, const std::string* bytes) {
  StreamRead r;
  StreamCursor c(&trace, 0, 0, 0, path);
  const Status opened =
      bytes ? c.OpenMemory(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size())
            : c.Open();
  if (!opened.ok()) {
    r.status = opened.ToString();
    return r;
  }
  while (c.Next()) r.events.push_back(Fields(c.event()));
  r.status = c.status().ToString();
  r.stats = c.stats();
  return r;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(StreamChunksTest, PacketsOfEverySizeAgainstChunksReadAsFromMemory) {
  // 4 KiB packets: many per chunk; 96 KiB: some straddle a chunk's end; 1 MiB: larger than a
  // chunk (each packet takes a chunk of its own size).
  for (size_t packet_size : {size_t{4096}, size_t{96} << 10, size_t{1} << 20}) {
    SCOPED_TRACE(fmt::format("packets of {} bytes", packet_size));
    testing::TempDir tmp;
    WriteTrace(tmp.path(), packet_size, 120000);
    auto trace = Trace::Open(tmp.path());
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    ASSERT_EQ((*trace)->stream_paths().size(), 2u);
    size_t events = 0;
    for (const std::string& path : (*trace)->stream_paths()) {
      const std::string bytes = Slurp(path);
      const StreamRead from_file = ReadStream(**trace, path, nullptr);
      const StreamRead from_memory = ReadStream(**trace, path, &bytes);
      EXPECT_EQ(from_file.status, "OK");
      EXPECT_EQ(from_file.status, from_memory.status);
      EXPECT_GE(from_file.stats.packets, 2u);
      EXPECT_EQ(from_file.stats.packets, from_memory.stats.packets);
      ASSERT_EQ(from_file.events.size(), from_memory.events.size());
      for (size_t i = 0; i < from_file.events.size(); ++i)
        ASSERT_EQ(from_file.events[i], from_memory.events[i]) << path << " event " << i;
      events += from_file.events.size();
    }
    EXPECT_EQ(events, 120000u);
  }
}

// Damaged files read from disk (chunks, header windows) give exactly what the same bytes
// give from memory: the same events up to the same error, named the same way.
TEST(StreamChunksTest, DamagedFilesReadAsFromMemory) {
  testing::TempDir tmp;
  constexpr size_t kPacket = 96 << 10;
  WriteTrace(tmp.path() + "/good", kPacket, 30000);
  auto good = Trace::Open(tmp.path() + "/good");
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  const std::string original = Slurp((*good)->stream_paths().at(0));
  ASSERT_GT(original.size(), 4 * kPacket);
  std::mt19937_64 rng(20261125);
  const std::string damaged_path = tmp.path() + "/damaged";
  size_t failed = 0;
  for (int round = 0; round < 150; ++round) {
    std::string bytes = original;
    const int kind = round % 3;
    if (kind == 2) {
      bytes.resize(rng() % bytes.size());  // cut anywhere
    } else {
      // Headers and contexts (the first 64 bytes of a packet) or anywhere.
      for (int i = 0; i < 1 + round % 4; ++i) {
        const size_t packet = rng() % (bytes.size() / kPacket);
        const size_t at = kind == 0 ? packet * kPacket + rng() % 64 : rng() % bytes.size();
        bytes[at] = static_cast<char>(rng());
      }
    }
    std::ofstream(damaged_path, std::ios::binary | std::ios::trunc) << bytes;
    SCOPED_TRACE(fmt::format("round {}", round));
    const StreamRead from_file = ReadStream(**good, damaged_path, nullptr);
    const StreamRead from_memory = ReadStream(**good, damaged_path, &bytes);
    EXPECT_EQ(from_file.status, from_memory.status);
    EXPECT_EQ(from_file.stats.packets, from_memory.stats.packets);
    ASSERT_EQ(from_file.events.size(), from_memory.events.size());
    for (size_t i = 0; i < from_file.events.size(); ++i)
      ASSERT_EQ(from_file.events[i], from_memory.events[i]) << "event " << i;
    failed += from_file.status != "OK";
  }
  // The damage must reach the decoder's checks, not only payload bytes.
  EXPECT_GE(failed, 50u);
}

// Decoding threads keep chunks until the merge is past them: events decoded ahead still read
// their own bytes when the merge gets to them.
TEST(StreamChunksTest, DecodingThreadsReadChunksTheMergeStillNeeds) {
  for (size_t packet_size : {size_t{96} << 10, size_t{1} << 20}) {
    SCOPED_TRACE(fmt::format("packets of {} bytes", packet_size));
    testing::TempDir tmp;
    WriteTrace(tmp.path(), packet_size, 120000);
    std::vector<std::string> reads[2];
    for (unsigned threads : {0u, 2u}) {
      ReaderOptions o;
      o.decode_threads = threads;
      auto reader = EventReader::Open({tmp.path()}, o);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      while (const Event* e = (*reader)->Next()) reads[threads / 2].push_back(Fields(*e));
      EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    }
    ASSERT_EQ(reads[0].size(), 120000u);
    ASSERT_EQ(reads[1].size(), reads[0].size());
    for (size_t i = 0; i < reads[0].size(); ++i) ASSERT_EQ(reads[1][i], reads[0][i]) << i;
  }
}

// A hand-made stream whose packet context holds a 300 KB sequence before the packet sizes:
// the header and context do not fit in the first window and are decoded again over a wider
// one.
constexpr char kWideContextMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
  major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
clock { name = "c"; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clock_t;
stream {
  id = 0;
  packet.context := struct {
    uint32_t note_len; uint8_t note[note_len]; uint64_t content_size; uint64_t packet_size;
  };
  event.header := struct { uint32_t id; clock_t timestamp; };
};
event { name = "tick"; id = 0; stream_id = 0; fields := struct { uint32_t n; }; };
)";

void Put(std::string* out, const void* v, size_t n) { out->append(static_cast<const char*>(v), n); }

// One packet: header, a context with a `note_len`-byte note (`claimed_len` in the length
// field), then `events` tick events.
std::string WidePacket(uint32_t note_len, uint32_t claimed_len, uint32_t first, uint32_t events) {
  std::string p;
  const uint32_t magic = 0xC1FC1FC1, stream_id = 0;
  Put(&p, &magic, 4);
  Put(&p, &stream_id, 4);
  Put(&p, &claimed_len, 4);
  p.append(note_len, 'n');
  const uint64_t bytes = p.size() + 16 + uint64_t{events} * 16;
  const uint64_t bits = bytes * 8;
  Put(&p, &bits, 8);  // content_size
  Put(&p, &bits, 8);  // packet_size
  for (uint32_t i = first; i < first + events; ++i) {
    const uint32_t id = 0;
    const uint64_t ts = 5000 + uint64_t{i} * 10;
    Put(&p, &id, 4);
    Put(&p, &ts, 8);
    Put(&p, &i, 4);
  }
  return p;
}

TEST(StreamChunksTest, PacketContextWiderThanTheFirstWindow) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() + "/metadata") << kWideContextMetadata;
  std::ofstream(tmp.path() + "/stream_0", std::ios::binary)
      << WidePacket(300000, 300000, 0, 100) << WidePacket(300000, 300000, 100, 100);
  for (unsigned threads : {0u, 1u}) {
    ReaderOptions o;
    o.decode_threads = threads;
    auto reader = EventReader::Open({tmp.path()}, o);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    uint32_t next = 0;
    while (const Event* e = (*reader)->Next()) {
      ASSERT_EQ(Fields(*e), fmt::format("tick t={} cpu=-1 n={}", 5000 + next * 10, next));
      ++next;
    }
    EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    EXPECT_EQ(next, 200u);
    EXPECT_EQ((*reader)->stream_stats()[0].packets, 2u);
  }
}

// Reads a trace of one wide packet (WidePacket's arguments) that must fail on that packet;
// returns the error.
std::string FirstPacketError(uint32_t note_len, uint32_t claimed_len) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() + "/metadata") << kWideContextMetadata;
  std::ofstream(tmp.path() + "/stream_0", std::ios::binary)
      << WidePacket(note_len, claimed_len, 0, 10);
  ReaderOptions o;
  o.decode_threads = 0;
  auto reader = EventReader::Open({tmp.path()}, o);
  if (!reader.ok()) return "open: " + reader.status().ToString();
  EXPECT_EQ((*reader)->Next(), nullptr);
  const std::string error = (*reader)->status().ToString();
  EXPECT_NE(error.find("Cannot decode packet: file=" + tmp.path() + "/stream_0, offset=0"),
            std::string::npos)
      << error;
  return error;
}

TEST(StreamChunksTest, ASequenceLongerThanTheFileFailsWithItsPlace) {
  // The note claims 3 MB; the file holds 300 KB: the window widens to the file's end, then
  // the sequence is reported past the packet content.
  const std::string error = FirstPacketError(300000, 3000000);
  EXPECT_NE(error.find("sequence of 3000000 elements"), std::string::npos) << error;
}

// A packet header and context wider than the 16 MiB the reader decodes them over (a 17 MiB
// note, the file long enough to hold it): the error says that the cap cut the decode, not
// only that a field ran past the window, since the bytes beyond may be fine.
TEST(StreamChunksTest, APacketContextWiderThanTheCapNamesTheCap) {
  constexpr uint32_t kNote = 17u << 20;
  const std::string error = FirstPacketError(kNote, kNote);
  EXPECT_NE(error.find("do not decode within the first 16 MiB of the packet"), std::string::npos)
      << error;
  EXPECT_NE(error.find("sequence of " + std::to_string(kNote) + " elements"), std::string::npos)
      << error;
}

// A stream file cut short after it was opened (a tracer still rotating it, a disk full):
// the read stops with an error naming the file, the packet and the bytes missing, never a
// crash (a mapped file would have raised SIGBUS).
TEST(StreamChunksTest, AFileTruncatedWhileReadFailsWithItsPlace) {
  testing::TempDir tmp;
  TraceOptions o;
  o.packet_size = 64 << 10;
  {
    auto w = CtfWriter::Create(tmp.path(), o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}});
    for (uint32_t i = 0; i < 100000; ++i) (*w)->Begin(0, tick, 1000 + uint64_t{i}).U64(i);
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto trace = Trace::Open(tmp.path());
  ASSERT_TRUE(trace.ok());
  const std::string path = (*trace)->stream_paths().at(0);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_GT(st.st_size, 1 << 20);
  ReaderOptions ro;
  ro.decode_threads = 0;
  auto reader = EventReader::Open({tmp.path()}, ro);
  ASSERT_TRUE(reader.ok());
  ASSERT_NE((*reader)->Next(), nullptr);
  ASSERT_EQ(truncate(path.c_str(), 300 << 10), 0);
  uint64_t events = 1;
  while ((*reader)->Next()) ++events;
  // The first chunk (256 KiB, four packets) was read before the cut.
  EXPECT_GT(events, 1000u);
  const std::string error = (*reader)->status().ToString();
  EXPECT_NE(error.find(fmt::format("Cannot decode packet: file={}, offset={}", path, 256 << 10)),
            std::string::npos)
      << error;
  EXPECT_NE(error.find(fmt::format("the file ends at byte {}, before the {} bytes it had when "
                                   "opened",
                                   300 << 10, st.st_size)),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace causeway::ctf
