// Chunks of a rotated recording (lttng rotate: traces that share a UUID, each stream going on
// in the next chunk with the tracer's running counts) read as one: discarded events and
// missing packets count on across the chunk boundary, whichever way the trace is read. A
// chunk read alone keeps its first packets' counts apart (discarded_before_first_packet), and
// a trace given twice is not mistaken for two chunks.
#include <gtest/gtest.h>
#ifdef __SANITIZE_ADDRESS__
// The sanitizer runtime's count (GCC ships no header declaring it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

constexpr std::array<uint8_t, 16> kUuid = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
constexpr uint64_t kSecondChunkFirstSeq = 100;

// One chunk of two streams: `events` per stream from `t0`, 10 ns apart. Stream s's running
// discarded total is `start[s]` before its first event and `middle[s]` from its middle on.
void WriteChunk(const std::string& dir, uint64_t first_seq, uint64_t t0, uint32_t events,
                std::array<uint64_t, 2> start, std::array<uint64_t, 2> middle) {
  TraceOptions o;
  o.uuid = kUuid;
  o.packet_size = 1024;
  o.first_packet_seq_num = first_seq;
  auto w = CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint32_t tick = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}});
  for (uint32_t s = 0; s < 2; ++s) ASSERT_TRUE((*w)->SetDiscarded(s, start[s]).ok());
  for (uint32_t i = 0; i < events; ++i) {
    for (uint32_t s = 0; s < 2; ++s) {
      if (i == events / 2) {
        ASSERT_TRUE((*w)->SetDiscarded(s, middle[s]).ok());
      }
      (*w)->Begin(s, tick, t0 + uint64_t{i} * 10 + s).U64(i);
    }
  }
  ASSERT_TRUE((*w)->Close().ok());
}

// A writer for chunk `c` (DIR/chunk-c) of a recording whose streams 0 to `streams` - 1 all
// exist (LTTng writes a file per CPU in every chunk) and write one packet each per chunk,
// of sequence number c (4 KiB: up to 40 "tick" events of one u64). Null on failure.
std::unique_ptr<CtfWriter> CreateOnePacketChunk(const std::string& dir, uint64_t c,
                                                uint32_t streams, uint32_t* tick) {
  TraceOptions o;
  o.uuid = kUuid;
  o.packet_size = 4096;
  o.first_packet_seq_num = c;
  auto w = CtfWriter::Create(dir + "/chunk-" + std::to_string(c), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return nullptr;
  *tick = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}});
  // A stream is made by its first use; one left without events is closed with a packet of
  // none, as LTTng closes an idle CPU's.
  for (uint32_t s = 0; s < streams; ++s) EXPECT_TRUE((*w)->SetDiscarded(s, 0).ok());
  return std::move(w).value();
}

// Gives the first event of a stream file the writer wrote an id no event class has.
void GiveFirstEventAnUnknownId(const std::string& stream_file) {
  std::fstream f(stream_file, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f) << stream_file;
  constexpr std::streamoff kFirstEvent = 84;  // the writer's packet header and context
  f.seekg(kFirstEvent);
  char header = 0;
  f.read(&header, 1);
  header = static_cast<char>((header & ~0x1f) | 30);  // compact header: 5-bit id 30
  f.seekp(kFirstEvent);
  f.write(&header, 1);
  ASSERT_TRUE(f) << stream_file;
}

struct Read {
  std::vector<StreamStats> streams;  // by stream index
  // Discarded-events records: (stream index, count, from, to).
  std::vector<std::array<uint64_t, 4>> discarded;
  uint64_t events = 0;
};

Read ReadMerged(const std::vector<std::string>& dirs, unsigned threads) {
  ReaderOptions options;
  options.decode_threads = threads;
  auto reader = EventReader::Open(dirs, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  Read r;
  if (!reader.ok()) return r;
  while (const Event* e = (*reader)->Next()) {
    if (e->kind == Event::Kind::kDiscarded)
      r.discarded.push_back({e->stream_index, e->discarded, e->discarded_begin, e->discarded_end});
    else
      ++r.events;
  }
  EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  r.streams = (*reader)->stream_stats();
  return r;
}

// With `status` set, the scan's status goes there instead of being expected OK.
std::vector<StreamStats> Scan(const std::vector<std::string>& dirs, Status* status = nullptr) {
  ReaderOptions options;
  options.decode_threads = 0;
  auto reader = EventReader::Open(dirs, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  const Status s = (*reader)->ScanUnordered(2, [](unsigned, StreamCursor& c) {
    while (c.Next()) {
    }
  });
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << s.ToString();
  return (*reader)->stream_stats();
}

class RotatedChunksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    first_ = tmp_.path() + "/archives/chunk-0/ust";
    second_ = tmp_.path() + "/archives/chunk-1/ust";
    // Stream 0 discards 5 in the first chunk, 7 between the chunks and 8 in the second;
    // stream 1 nothing in the first chunk and 3 between the two.
    WriteChunk(first_, 0, 1000, 400, {0, 0}, {5, 0});
    WriteChunk(second_, kSecondChunkFirstSeq, 100000, 400, {12, 3}, {20, 3});
    // The first chunk's packets per stream, read alone: the second goes on from there.
    const Read alone = ReadMerged({first_}, 0);
    ASSERT_EQ(alone.streams.size(), 2u);
    for (int s = 0; s < 2; ++s) first_packets_[s] = alone.streams[s].packets;
    ASSERT_LT(first_packets_[0], kSecondChunkFirstSeq);
    ASSERT_EQ(alone.streams[0].discarded_events, 5u);
  }

  testing::TempDir tmp_;
  std::string first_, second_;
  uint64_t first_packets_[2] = {};
};

TEST_F(RotatedChunksTest, DiscardedEventsAndMissingPacketsCountOnAcrossTheChunkBoundary) {
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const Read r = ReadMerged({tmp_.path()}, threads);  // found below archives/
    ASSERT_EQ(r.streams.size(), 4u);
    EXPECT_EQ(r.events, 4 * 400u);
    // stream index: chunk-0's two streams, then chunk-1's.
    EXPECT_EQ(r.streams[0].discarded_events, 5u);
    EXPECT_EQ(r.streams[1].discarded_events, 0u);
    EXPECT_EQ(r.streams[2].discarded_events, 15u);  // 12 - 5 + 20 - 12
    EXPECT_EQ(r.streams[3].discarded_events, 3u);
    for (const auto& s : r.streams) EXPECT_EQ(s.discarded_before_first_packet, 0u) << s.path;
    EXPECT_EQ(r.streams[0].lost_packets + r.streams[1].lost_packets, 0u);
    for (int s = 0; s < 2; ++s)
      EXPECT_EQ(r.streams[2 + s].lost_packets, kSecondChunkFirstSeq - first_packets_[s]);
    // The 3 discarded between the chunks: from the first chunk's last packet of stream 1
    // (its last event, at 1000 + 399 * 10 + 1) to the end of the packet reporting them.
    std::map<uint64_t, std::vector<std::array<uint64_t, 4>>> by_stream;
    for (const auto& d : r.discarded) by_stream[d[0]].push_back(d);
    ASSERT_EQ(by_stream[3].size(), 1u);
    EXPECT_EQ(by_stream[3][0][1], 3u);
    EXPECT_EQ(by_stream[3][0][2], 1000u + 399 * 10 + 1);
    EXPECT_GE(by_stream[3][0][3], 100000u);
    ASSERT_EQ(by_stream[2].size(), 2u);  // the 7 between the chunks, the 8 of the second
    EXPECT_EQ(by_stream[2][0][1], 7u);
    EXPECT_EQ(by_stream[2][0][2], 1000u + 399 * 10);
    EXPECT_EQ(by_stream[2][1][1], 8u);
    EXPECT_GT(by_stream[2][1][2], 100000u);
  }
  const std::vector<StreamStats> scanned = Scan({first_, second_});
  ASSERT_EQ(scanned.size(), 4u);
  EXPECT_EQ(scanned[2].discarded_events, 15u);
  EXPECT_EQ(scanned[3].discarded_events, 3u);
  EXPECT_EQ(scanned[3].lost_packets, kSecondChunkFirstSeq - first_packets_[1]);
}

TEST_F(RotatedChunksTest, ChunkReadAloneKeepsItsFirstPacketsCountsApart) {
  const Read r = ReadMerged({second_}, 1);
  ASSERT_EQ(r.streams.size(), 2u);
  EXPECT_EQ(r.streams[0].discarded_events, 20u);
  EXPECT_EQ(r.streams[0].discarded_before_first_packet, 12u);
  EXPECT_EQ(r.streams[1].discarded_events, 3u);
  EXPECT_EQ(r.streams[1].discarded_before_first_packet, 3u);
  EXPECT_EQ(r.streams[0].lost_packets, 0u);  // nothing before the first packet is missing
  // The records of what the first packets report start at 0: unknown.
  int unknown_start = 0;
  for (const auto& d : r.discarded) {
    if (d[1] == 12 || (d[0] == 1 && d[1] == 3)) {
      EXPECT_EQ(d[2], 0u);
      ++unknown_start;
    }
  }
  EXPECT_EQ(unknown_start, 2);
}

TEST_F(RotatedChunksTest, TraceGivenTwiceIsReadTwiceNotAsTwoChunks) {
  const Read r = ReadMerged({first_, first_}, 0);
  ASSERT_EQ(r.streams.size(), 4u);
  EXPECT_EQ(r.events, 4 * 400u);
  EXPECT_EQ(r.streams[0].discarded_events, 5u);
  EXPECT_EQ(r.streams[2].discarded_events, 5u);
  for (const auto& s : r.streams) EXPECT_EQ(s.lost_packets, 0u) << s.path;
}

// A chunk whose stream file is cut short: the read stops at its error, naming the file, and the
// same stream of the next chunk, which cannot go on from a last packet that does not decode,
// keeps its first packet's count apart rather than guessing.
TEST_F(RotatedChunksTest, DamagedChunkBeforeFailsTheReadAndTheNextCountsAlone) {
  const std::string cut = first_ + "/channel0_0";
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 100);
  ReaderOptions options;
  options.decode_threads = 0;
  auto reader = EventReader::Open({first_, second_}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  uint64_t events = 0;
  while ((*reader)->Next()) ++events;
  const std::string error = (*reader)->status().ToString();
  EXPECT_NE(error.find(cut), std::string::npos) << error;
  EXPECT_NE(error.find("truncated packet"), std::string::npos) << error;
  EXPECT_LT(events, 4 * 400u);
  Status scan_status;
  const std::vector<StreamStats> scanned = Scan({first_, second_}, &scan_status);
  EXPECT_EQ(scan_status.ToString(), error);  // the same error as the merged read
  ASSERT_EQ(scanned.size(), 4u);
  EXPECT_EQ(scanned[2].discarded_events, 20u);
  EXPECT_EQ(scanned[2].discarded_before_first_packet, 12u);
  EXPECT_EQ(scanned[3].discarded_events, 3u);  // stream 1 is whole: still linked
  EXPECT_EQ(scanned[3].discarded_before_first_packet, 0u);
}

// The next chunk's stream fails at its first event (an id no class has): the merged read
// stops right before it, with the error naming the file, decoding on the caller's thread and on
// another alike (the later chunk joins the merge when its predecessor ends), and the scan reports
// the same error.
TEST_F(RotatedChunksTest, DamagedNextChunkStopsTheReadRightAfterTheChunkBefore) {
  const std::string damaged = second_ + "/channel0_0";
  GiveFirstEventAnUnknownId(damaged);
  std::vector<std::string> errors;
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    ReaderOptions options;
    options.decode_threads = threads;
    auto reader = EventReader::Open({first_, second_}, options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    uint64_t events = 0, last_ts = 0;
    std::vector<uint64_t> discarded;
    while (const Event* e = (*reader)->Next()) {
      if (e->kind == Event::Kind::kDiscarded) {
        discarded.push_back(e->discarded);
        continue;
      }
      ++events;
      last_ts = e->timestamp;
    }
    const std::string error = (*reader)->status().ToString();
    EXPECT_NE(error.find(damaged), std::string::npos) << error;
    // Every event of the first chunk (the last, stream 1's, at 1000 + 399 * 10 + 1): the
    // next chunk's stream 0 starts with the record of the 7 events discarded between the
    // chunks, at its first packet's end, and fails after it, at its first event.
    EXPECT_EQ(events, 2 * 400u);
    EXPECT_EQ(last_ts, 1000u + 399 * 10 + 1);
    EXPECT_EQ(discarded, (std::vector<uint64_t>{5, 7}));
    errors.push_back(error);
  }
  EXPECT_EQ(errors[0], errors[1]);
  Status scan_status;
  Scan({first_, second_}, &scan_status);
  EXPECT_EQ(scan_status.ToString(), errors[0]);
}

// LTTng writes a packet of no events for a CPU idle through a chunk. Found in a run of
// LttngUstInteropTest.RotatedChunksReadAsOneSequence: a merge once started no stream
// whose first chunk had no event, and lost the chunks after it.
TEST(RotatedRecordingTest, StreamWithoutEventsInItsFirstChunksGoesOnInTheNext) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/rotated";
  uint64_t t = 1000, written = 0;
  // Chunk c: one packet per stream (sequence number c) but in the last; stream 0 has no
  // event in chunks 0 and 1, where the writer closes it with a packet of none.
  auto chunk = [&](uint64_t c, int events0, int events1) {
    uint32_t tick = 0;
    auto w = CreateOnePacketChunk(dir, c, 2, &tick);
    ASSERT_NE(w, nullptr);
    for (int i = 0; i < std::max(events0, events1); ++i) {
      if (i < events0) w->Begin(0, tick, t += 7).U64(written++);
      if (i < events1) w->Begin(1, tick, t += 7).U64(written++);
    }
    ASSERT_TRUE(w->Close().ok());
  };
  chunk(0, 0, 40);
  chunk(1, 0, 40);
  chunk(2, 500, 100);
  for (const char* c : {"/chunk-0", "/chunk-1"}) {
    uint64_t idle_streams = 0, packets = 0;
    for (const StreamStats& s : Scan({dir + c})) {
      if (s.events == 0) {
        ++idle_streams;
        packets += s.packets;
      }
    }
    EXPECT_EQ(idle_streams, 1u) << c;
    EXPECT_EQ(packets, 1u) << c;
  }
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const Read r = ReadMerged({dir}, threads);
    EXPECT_EQ(r.events, written);
    EXPECT_EQ(r.streams.size(), 6u);
    for (const StreamStats& s : r.streams) EXPECT_EQ(s.lost_packets, 0u);
  }
  uint64_t scanned = 0;
  for (const StreamStats& s : Scan({dir})) scanned += s.events;
  EXPECT_EQ(scanned, written);
}

// Two streams fail before their first event: stream 1 of the first chunk, and stream 0 of
// the second, whose first chunk has no event. The merged read meets stream 0's chain first
// (Start() walks the chains in the order of their first streams) and stops at its error;
// the scan must name that one too, not the stream whose own index is lower.
TEST(RotatedRecordingTest, FailureInTheNextChunkOfAnIdleStreamIsMetInItsChainsPlace) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/rotated";
  uint64_t t = 1000;
  for (uint64_t c = 0; c < 2; ++c) {
    uint32_t tick = 0;
    auto w = CreateOnePacketChunk(dir, c, 2, &tick);
    ASSERT_NE(w, nullptr);
    for (int i = 0; i < 20; ++i) {
      if (c == 1) w->Begin(0, tick, t += 7).U64(i);
      w->Begin(1, tick, t += 7).U64(i);
    }
    ASSERT_TRUE(w->Close().ok());
  }
  const std::string first_failing = dir + "/chunk-1/channel0_0";
  for (const std::string& path : {dir + "/chunk-0/channel0_1", first_failing})
    GiveFirstEventAnUnknownId(path);
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    ReaderOptions options;
    options.decode_threads = threads;
    auto reader = EventReader::Open({dir}, options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->Next(), nullptr);
    const std::string error = (*reader)->status().ToString();
    EXPECT_NE(error.find(first_failing + ","), std::string::npos) << error;
  }
  Status scan_status;
  Scan({dir}, &scan_status);
  EXPECT_NE(scan_status.ToString().find(first_failing + ","), std::string::npos)
      << scan_status.ToString();
}

// Recordings drawn at random: 1 to 6 chunks of 1 to 4 streams, each stream with 0 to 40
// events per chunk (none in about a third, whole chains of none among them; one event in
// each chunk at least), as LTTng writes them (every stream has a file and a packet in every
// chunk). Every read, unthreaded, on decoding threads with batches of several sizes, and the
// scan, gives every event once, in time order, with no packet counted as lost. With one
// or two streams' chunks damaged, every read gives the same events (those up to the
// damaged streams' earliest last good one at least, in order) and the same error, and the
// scan that error.
TEST(RotatedRecordingTest, RandomIdleStreamsAndDamagedChunksReadAlikeInEveryMode) {
  testing::TempDir tmp;
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    const std::string dir = tmp.path() + "/r" + std::to_string(round);
    const uint32_t chunks = 1 + rng() % 6, streams = 1 + rng() % 4;
    std::vector<std::pair<uint64_t, uint64_t>> written;  // time, value
    // In odd rounds the first event of one stream in one chunk (drawn among those with
    // events) gets an event id the metadata does not know; in every fourth, of two.
    const int damages = round % 2 == 0 ? 0 : round % 4 == 1 ? 1 : 2;
    const bool damage = damages > 0;
    std::vector<std::array<uint32_t, 2>> candidates;  // chunk, stream
    std::vector<std::vector<int64_t>> last_of;        // [chunk][stream]: its last in `written`
    uint64_t t = 1000;
    for (uint32_t c = 0; c < chunks; ++c) {
      uint32_t tick = 0;
      auto w = CreateOnePacketChunk(dir, c, streams, &tick);
      ASSERT_NE(w, nullptr);
      std::vector<uint32_t> left(streams);
      uint32_t total = 0;
      for (uint32_t s = 0; s < streams; ++s) {
        left[s] = rng() % 3 == 0 ? 0 : rng() % 41;
        total += left[s];
      }
      // A chunk with no event at all would stamp its packets 0 (the writer knows no time):
      // LTTng stamps them with the rotation's.
      if (total == 0) left[rng() % streams] = total = 1;
      for (uint32_t s = 0; s < streams; ++s)
        if (left[s] > 0) candidates.push_back({c, s});
      last_of.push_back(c == 0 ? std::vector<int64_t>(streams, -1) : last_of.back());
      while (total > 0) {  // the streams' events interleaved at random
        uint32_t s = rng() % streams;
        while (left[s] == 0) s = (s + 1) % streams;
        --left[s];
        --total;
        t += 1 + rng() % 5;
        last_of[c][s] = static_cast<int64_t>(written.size());
        written.push_back({t, written.size()});
        w->Begin(s, tick, t).U64(written.back().second);
      }
      ASSERT_TRUE(w->Close().ok());
    }
    std::vector<std::string> damaged;
    int64_t last_good = INT64_MAX;  // the earliest last event before a damage
    for (int d = 0; d < damages && !candidates.empty(); ++d) {
      const size_t pick = rng() % candidates.size();
      const auto [c, s] = candidates[pick];
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(pick));
      damaged.push_back(dir + "/chunk-" + std::to_string(c) + "/channel0_" + std::to_string(s));
      last_good = std::min(last_good, c > 0 ? last_of[c - 1][s] : -1);
      GiveFirstEventAnUnknownId(damaged.back());
    }
    std::vector<std::pair<uint64_t, uint64_t>> first_read;
    std::string first_error;
    for (auto [threads, batch] : {std::pair{0u, 0u}, {1u, 0u}, {1u, 1u}, {1u, 3u}, {2u, 7u}}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, batches of " << batch);
      ReaderOptions options;
      options.decode_threads = threads;
      options.decode_batch_events = batch;
      auto reader = EventReader::Open({dir}, options);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<std::pair<uint64_t, uint64_t>> read;
      while (const Event* e = (*reader)->Next()) {
        ASSERT_EQ(e->kind, Event::Kind::kEvent);
        read.push_back({e->timestamp, e->GetUnsigned(0)});
      }
      const std::string error = (*reader)->status().ToString();
      if (!damage) {
        ASSERT_TRUE((*reader)->status().ok()) << error;
        EXPECT_EQ(read, written);
        for (const StreamStats& s : (*reader)->stream_stats()) EXPECT_EQ(s.lost_packets, 0u);
        continue;
      }
      // Every event up to the damaged streams' earliest last good one, in order; then the
      // error of one of them, the same events and error in every mode.
      EXPECT_TRUE(std::any_of(damaged.begin(), damaged.end(), [&](const std::string& d) {
        return error.find(d + ",") != std::string::npos;
      })) << error;
      ASSERT_LE(read.size(), written.size());
      EXPECT_TRUE(std::equal(read.begin(), read.end(), written.begin()));
      EXPECT_GT(static_cast<int64_t>(read.size()), last_good);
      if (threads == 0) {
        first_read = read;
        first_error = error;
      } else {
        EXPECT_EQ(read, first_read);
        EXPECT_EQ(error, first_error);
      }
    }
    Status scan_status;
    uint64_t scanned = 0;
    for (const StreamStats& s : Scan({dir}, &scan_status)) scanned += s.events;
    if (damage) {
      EXPECT_EQ(scan_status.ToString(), first_error);
    } else {
      EXPECT_TRUE(scan_status.ok()) << scan_status.ToString();
      EXPECT_EQ(scanned, written.size());
    }
  }
}

// A recording rotated into many chunks reads as the same recording unrotated: the same
// events in the same order, decoding on the caller's thread and on another, with the discarded
// events counted once.
TEST(RotatedRecordingTest, ManyChunksReadLikeTheRecordingUnrotated) {
  testing::TempDir tmp;
  constexpr uint32_t kStreams = 3, kEvents = 3000;
  constexpr uint32_t kEventsPerChunk = 137;  // cuts fall inside packets, between streams
  auto write = [&](const std::string& dir, bool rotate) {
    TraceOptions o;
    o.uuid = kUuid;
    o.packet_size = 512;
    auto w = CtfWriter::Create(rotate ? dir + "/chunk-0" : dir, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}});
    uint64_t discarded[kStreams] = {};
    int chunk = 0;
    for (uint32_t i = 0; i < kEvents; ++i) {
      const uint32_t s = (i * 7) % kStreams;
      if (i % 401 == 400) {
        discarded[s] += 1 + i % 5;
        ASSERT_TRUE((*w)->SetDiscarded(s, discarded[s]).ok());
      }
      (*w)->Begin(s, tick, 1000 + uint64_t{i} * 3).U64(i);
      if (rotate && i % kEventsPerChunk == kEventsPerChunk - 1) {
        ASSERT_TRUE((*w)->Rotate(dir + "/chunk-" + std::to_string(++chunk)).ok());
      }
    }
    ASSERT_TRUE((*w)->Close().ok());
  };
  write(tmp.path() + "/whole", false);
  write(tmp.path() + "/rotated", true);
  struct Seen {
    std::vector<std::pair<uint64_t, int64_t>> events;  // time, CPU
    uint64_t discarded = 0, early = 0, lost_packets = 0;
    size_t streams = 0;
  };
  auto read = [](const std::string& dir, unsigned threads) {
    ReaderOptions options;
    options.decode_threads = threads;
    auto reader = EventReader::Open({dir}, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    Seen seen;
    if (!reader.ok()) return seen;
    while (const Event* e = (*reader)->Next())
      if (e->kind == Event::Kind::kEvent) seen.events.push_back({e->timestamp, e->cpu});
    EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    for (const StreamStats& s : (*reader)->stream_stats()) {
      seen.discarded += s.discarded_events;
      seen.early += s.discarded_before_first_packet;
      seen.lost_packets += s.lost_packets;
    }
    seen.streams = (*reader)->stream_stats().size();
    return seen;
  };
  const Seen whole = read(tmp.path() + "/whole", 0);
  ASSERT_EQ(whole.events.size(), kEvents);
  EXPECT_GT(whole.discarded, 0u);
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const Seen rotated = read(tmp.path() + "/rotated", threads);
    EXPECT_GT(rotated.streams, 3 * kStreams * 6u) << "the chunks' streams, read as chains";
    EXPECT_EQ(rotated.events, whole.events);
    EXPECT_EQ(rotated.discarded, whole.discarded);
    EXPECT_EQ(rotated.early, 0u);
    EXPECT_EQ(rotated.lost_packets, 0u);
  }
}

// Rotate's kWriteEmptyPacket closes a stream idle through a chunk as LTTng closes an idle
// CPU's: with one packet of no event. Stream 2 has no event until the last chunk, stream
// 1 none in the middle one (where it loses 5 events): read merged on the caller's thread
// and on one decoding thread, and scanned, the recording gives as many events, and the
// same counts, as when the idle streams' files are left empty.
TEST(RotatedRecordingTest, IdleStreamsClosedWithAnEmptyPacketReadLikeEmptyFiles) {
  testing::TempDir tmp;
  constexpr uint64_t kPacket = 512;
  auto write = [&](const std::string& dir, CtfWriter::IdleStreams idle) {
    TraceOptions o;
    o.uuid = kUuid;
    o.packet_size = kPacket;
    auto w = CtfWriter::Create(dir + "/chunk-0", o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}});
    ASSERT_TRUE((*w)->SetDiscarded(2, 0).ok());  // made, and idle
    uint64_t t = 1000, n = 0;
    auto events = [&](std::initializer_list<uint32_t> streams, int count) {
      for (int i = 0; i < count; ++i)
        for (uint32_t s : streams) (*w)->Begin(s, tick, t += 3).U64(n++);
    };
    events({0, 1}, 50);
    ASSERT_TRUE((*w)->Rotate(dir + "/chunk-1", idle).ok()) << (*w)->status().ToString();
    ASSERT_TRUE((*w)->SetDiscarded(1, 5).ok());
    events({0}, 30);
    ASSERT_TRUE((*w)->Rotate(dir + "/chunk-2", idle).ok()) << (*w)->status().ToString();
    events({0, 1, 2}, 40);
    ASSERT_TRUE((*w)->Close().ok()) << (*w)->status().ToString();
  };
  const std::string empty_files = tmp.path() + "/empty-files";
  const std::string empty_packets = tmp.path() + "/empty-packets";
  write(empty_files, CtfWriter::IdleStreams::kLeaveFileEmpty);
  write(empty_packets, CtfWriter::IdleStreams::kWriteEmptyPacket);
  const std::string idle_files[] = {"/chunk-0/channel0_2", "/chunk-1/channel0_1",
                                    "/chunk-1/channel0_2"};
  for (const std::string& f : idle_files) {
    EXPECT_EQ(std::filesystem::file_size(empty_files + f), 0u) << f;
    EXPECT_EQ(std::filesystem::file_size(empty_packets + f), kPacket) << f;
  }
  // Each chunk alone: the idle stream's one packet holds no event.
  for (const char* c : {"/chunk-0", "/chunk-1"}) {
    uint64_t idle = 0;
    for (const StreamStats& s : Scan({empty_packets + c})) {
      if (s.events == 0) {
        ++idle;
        EXPECT_EQ(s.packets, 1u) << c << " " << s.path;
      }
    }
    EXPECT_EQ(idle, c == std::string("/chunk-0") ? 1u : 2u) << c;
  }
  auto totals = [](const std::vector<StreamStats>& streams) {
    std::array<uint64_t, 3> t = {};  // events, discarded, lost packets
    for (const StreamStats& s : streams) {
      t[0] += s.events;
      t[1] += s.discarded_events;
      t[2] += s.lost_packets;
    }
    return t;
  };
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const Read want = ReadMerged({empty_files}, threads);
    const Read got = ReadMerged({empty_packets}, threads);
    EXPECT_EQ(want.events, 50u * 2 + 30 + 40 * 3);
    EXPECT_EQ(got.events, want.events);
    // The same loss, but dated by the packet that reports it: the empty packet, from
    // stream 1's last event (1300) to the cut (stream 0's last event in chunk 1, 1390),
    // against the next chunk's first packet.
    ASSERT_EQ(got.discarded.size(), 1u);
    ASSERT_EQ(want.discarded.size(), 1u);
    EXPECT_EQ(got.discarded[0][1], 5u);
    EXPECT_EQ(want.discarded[0][1], 5u);
    // Stream 1, in the chunk whose packet reports the loss (1 with empty packets, 2 else).
    EXPECT_EQ(std::filesystem::path(got.streams[got.discarded[0][0]].path).filename(),
              "channel0_1");
    EXPECT_EQ(std::filesystem::path(want.streams[want.discarded[0][0]].path).filename(),
              "channel0_1");
    EXPECT_EQ(got.discarded[0][2], 1300u);
    EXPECT_EQ(got.discarded[0][3], 1390u);
    EXPECT_GT(want.discarded[0][3], 1390u);
    EXPECT_EQ(totals(got.streams), totals(want.streams));
    EXPECT_EQ(totals(got.streams)[2], 0u) << "no packet seen missing";
  }
  EXPECT_EQ(totals(Scan({empty_packets})), totals(Scan({empty_files})));
}

// Heap bytes in use now, in every thread's arena.
size_t AllocatedBytes() {
#ifdef __SANITIZE_ADDRESS__
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

// Reading a recording of many chunks holds about what reading it unrotated does: the
// decoding threads decode one chunk ahead of the merge, not the whole recording ahead, and
// a chunk's bytes and batches go once the merge is past it. 48 chunks of 4 streams, about
// 40 KB each: decoded ahead without bound, they held 21.9 MB against 4.1 MB unrotated.
// (The static layouts freed with the bytes are a few bytes for this one event class; they
// weigh on LTTng kernel traces, some 16 KB per stream.)
TEST(RotatedRecordingTest, ManyChunksHoldAboutWhatTheRecordingUnrotatedHolds) {
  testing::TempDir tmp;
  constexpr uint32_t kStreams = 4, kChunks = 48, kEventsPerStreamAndChunk = 2000;
  auto write = [&](const std::string& dir, bool rotate) {
    TraceOptions o;
    o.uuid = kUuid;
    o.packet_size = 4096;
    auto w = CtfWriter::Create(rotate ? dir + "/chunk-0" : dir, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick =
        *(*w)->AddEventClass("tick", {{"n", FieldKind::kU64}, {"m", FieldKind::kU64}});
    uint64_t t = 1000;
    for (uint32_t c = 0; c < kChunks; ++c) {
      if (rotate && c > 0) {
        ASSERT_TRUE((*w)->Rotate(dir + "/chunk-" + std::to_string(c)).ok());
      }
      for (uint32_t i = 0; i < kEventsPerStreamAndChunk; ++i)
        for (uint32_t s = 0; s < kStreams; ++s) (*w)->Begin(s, tick, t += 5).U64(i).U64(c);
    }
    ASSERT_TRUE((*w)->Close().ok());
  };
  {
    // The count must see an allocation (a sanitizer with an allocator of its own but no
    // count would make the test pass without measuring anything).
    const size_t before = AllocatedBytes();
    auto probe = std::make_unique<std::array<char, 1 << 20>>();
    probe->fill(1);
    if (AllocatedBytes() < before + (1 << 20))
      GTEST_SKIP() << "Skipped: this build's allocator does not report the heap in use";
  }
  write(tmp.path() + "/whole", false);
  write(tmp.path() + "/rotated", true);
  // The most heap in use while reading, above what was in use before the open.
  auto peak_while_reading = [](const std::string& dir, unsigned threads) {
    const size_t before = AllocatedBytes();
    size_t peak = before;
    uint64_t events = 0;
    {
      ReaderOptions options;
      options.decode_threads = threads;
      auto reader = EventReader::Open({dir}, options);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      if (!reader.ok()) return size_t{0};
      while ((*reader)->Next())
        if (++events % 64 == 0) peak = std::max(peak, AllocatedBytes());
      EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    }
    EXPECT_EQ(events, uint64_t{kStreams} * kChunks * kEventsPerStreamAndChunk);
    return peak - before;
  };
  for (unsigned threads : {0u, 1u}) {
    SCOPED_TRACE(threads);
    const size_t whole = peak_while_reading(tmp.path() + "/whole", threads);
    const size_t rotated = peak_while_reading(tmp.path() + "/rotated", threads);
    std::printf("decoding threads %u: %.2f MB held reading it whole, %.2f MB in %u chunks\n",
                threads, whole / 1e6, rotated / 1e6, kChunks);
    EXPECT_LT(rotated, whole + (size_t{3} << 20));
  }
  // The chunks' metadata, the same text in each, is parsed and compiled once.
  auto reader = EventReader::Open({tmp.path() + "/rotated", tmp.path() + "/whole"});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const auto& traces = (*reader)->traces();
  ASSERT_EQ(traces.size(), kChunks + 1);
  for (const auto& t : traces) {
    EXPECT_EQ(&t->plan(), &traces[0]->plan()) << t->dir();
    EXPECT_EQ(&t->trace_class(), &traces[0]->trace_class()) << t->dir();
  }
}

}  // namespace
}  // namespace causeway::ctf
