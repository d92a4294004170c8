// The merge: every event of every stream comes out exactly once, in (timestamp, stream index)
// order, each stream's events in their own order, for stream counts on both sides of the
// sorted-array limit (EventReader::kMaxSorted) and with timestamps that tie across streams
// all the time.
#include "ctf/reader/event_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include <fmt/format.h>

#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

// Writes `streams` CPU streams of `per_stream` events each into `dir`; event k of a stream
// carries k in its payload. Each stream's time steps by 0 to 3 ns, so heads tie often.
void WriteTrace(const std::string& dir, uint32_t streams, uint32_t per_stream, uint32_t seed) {
  TraceOptions o;
  o.packet_size = 4096;
  auto w = CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint32_t tick = *(*w)->AddEventClass("tick", {{"k", FieldKind::kU32}});
  std::mt19937 rng(seed);
  std::vector<uint64_t> ts(streams, 1000);
  std::vector<uint32_t> written(streams, 0);
  for (uint64_t left = uint64_t{streams} * per_stream; left > 0; --left) {
    uint32_t cpu = static_cast<uint32_t>(rng() % streams);
    while (written[cpu] == per_stream) cpu = (cpu + 1) % streams;
    ts[cpu] += rng() % 4;
    (*w)->Begin(cpu, tick, ts[cpu]).U32(written[cpu]++);
  }
  ASSERT_TRUE((*w)->Close().ok());
}

void ExpectMergedInOrder(uint32_t streams) {
  SCOPED_TRACE(fmt::format("{} streams", streams));
  testing::TempDir tmp;
  const uint32_t per_stream = 3000;
  WriteTrace(tmp.path() + "/t", streams, per_stream, streams);
  auto reader = EventReader::Open({tmp.path() + "/t"});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<uint32_t> next_k(streams, 0);
  uint64_t events = 0, ties = 0;
  std::tuple<uint64_t, uint32_t> previous{0, 0};
  int k_field = -1;
  while (const Event* e = (*reader)->Next()) {
    ASSERT_EQ(e->kind, Event::Kind::kEvent);
    ASSERT_LT(e->stream_index, streams);
    const std::tuple<uint64_t, uint32_t> key{e->timestamp, e->stream_index};
    if (events > 0) {
      ASSERT_LE(previous, key) << "event " << events;
      ties += std::get<0>(previous) == e->timestamp && std::get<1>(previous) != e->stream_index;
    }
    previous = key;
    if (k_field < 0) k_field = e->plan->FieldIndex("k");
    ASSERT_EQ(e->GetUnsigned(k_field), next_k[e->stream_index]++) << "event " << events;
    ++events;
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_EQ(events, uint64_t{streams} * per_stream);
  for (uint32_t s = 0; s < streams; ++s) EXPECT_EQ(next_k[s], per_stream) << "stream " << s;
  if (streams > 1) {
    EXPECT_GT(ties, events / 20);  // the tie-break was exercised
  }
}

TEST(EventReaderTest, MergesFewStreamsInTimestampThenStreamOrder) {
  for (uint32_t streams : {1u, 2u, 3u, 4u, 5u, 16u}) ExpectMergedInOrder(streams);
}

TEST(EventReaderTest, MergesManyStreamsInTimestampThenStreamOrder) {
  for (uint32_t streams : {17u, 40u}) ExpectMergedInOrder(streams);
}

}  // namespace
}  // namespace causeway::ctf
