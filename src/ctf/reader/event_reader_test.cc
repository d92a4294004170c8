// The merge: every event of every stream comes out exactly once, in (timestamp, stream index)
// order, each stream's events in their own order, for stream counts on every side of the
// trees' limits (4 leaves for the tree of selects, more for the tree of losers) and with
// timestamps that tie across streams all the time. The scan without merge (ScanUnordered) sees the
// same events, each stream in its order on one worker, and fails like the merged read.
#include "ctf/reader/event_reader.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "ctf/writer/ctf_writer.h"
#include "support/merge_traces.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

void ExpectMergedInOrder(uint32_t streams) {
  SCOPED_TRACE(fmt::format("{} streams", streams));
  testing::TempDir tmp;
  const uint32_t per_stream = 3000;
  testing::WriteTiedTrace(tmp.path() + "/t", streams, per_stream, streams);
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

// Per stream, the (timestamp, k) of its events in the order the merged read returns them.
std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> MergedByStream(
    const std::string& dir) {
  std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> out;
  auto reader = EventReader::Open({dir});
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  while (const Event* e = (*reader)->Next())
    out[e->stream_index].emplace_back(e->timestamp, e->GetUnsigned(e->plan->FieldIndex("k")));
  EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  return out;
}

// What a ScanUnordered callback sees of one stream: its index and (timestamp, k) of its
// events, in order.
std::pair<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> ScanStream(StreamCursor& c) {
  std::vector<std::pair<uint64_t, uint64_t>> events;
  uint32_t stream = UINT32_MAX;
  while (c.Next()) {
    const Event& e = c.event();
    stream = e.stream_index;
    events.emplace_back(e.timestamp, e.GetUnsigned(e.plan->FieldIndex("k")));
  }
  return {stream, std::move(events)};
}

TEST(EventReaderTest, ScanUnorderedSeesEveryStreamInOrderOnOneWorker) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/t";
  testing::WriteTiedTrace(dir, 5, 2000, 7);
  const auto merged = MergedByStream(dir);
  ASSERT_EQ(merged.size(), 5u);
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    ReaderOptions options;
    options.decode_threads = 0;
    auto reader = EventReader::Open({dir}, options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    std::mutex mu;
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> scanned;
    std::set<unsigned> workers;
    const Status s = (*reader)->ScanUnordered(threads, [&](unsigned worker, StreamCursor& c) {
      auto [stream, events] = ScanStream(c);
      std::lock_guard lock(mu);
      workers.insert(worker);
      EXPECT_EQ(scanned.count(stream), 0u) << "stream " << stream << " scanned twice";
      scanned[stream] = std::move(events);
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(scanned, merged);
    EXPECT_LT(*workers.rbegin(), std::min(threads, 5u)) << "a worker index out of range";
    EXPECT_EQ((*reader)->Next(), nullptr);  // the scan used the streams up
    uint64_t events = 0;
    for (const StreamStats& st : (*reader)->stream_stats()) events += st.events;
    EXPECT_EQ(events, 5u * 2000);
  }
}

TEST(EventReaderTest, ScanUnorderedOnlyBeforeNextAndWithoutDecodeThreads) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/t";
  testing::WriteTiedTrace(dir, 2, 100, 3);
  auto noop = [](unsigned, StreamCursor&) {};
  ReaderOptions unthreaded;
  unthreaded.decode_threads = 0;
  auto started = EventReader::Open({dir}, unthreaded);
  ASSERT_TRUE(started.ok());
  ASSERT_NE((*started)->Next(), nullptr);
  EXPECT_EQ((*started)->ScanUnordered(2, noop).code(), StatusCode::kInternal);
  ReaderOptions threaded;
  threaded.decode_threads = 1;
  auto pipelined = EventReader::Open({dir}, threaded);
  ASSERT_TRUE(pipelined.ok());
  EXPECT_EQ((*pipelined)->ScanUnordered(2, noop).code(), StatusCode::kInternal);
}

// When no thread can be started (RLIMIT_NPROC reached), the caller's thread scans every
// stream itself. Run in a child process, which drops root first (root is not held to
// RLIMIT_NPROC) and is then allowed no process at all, so that every std::thread fails.
TEST(EventReaderTest, ScanUnorderedScansOnTheCallersThreadWhenNoThreadStarts) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/t";
  testing::WriteTiedTrace(dir, 5, 2000, 7);
  const auto merged = MergedByStream(dir);
  ASSERT_EQ(merged.size(), 5u);
  ReaderOptions options;
  options.decode_threads = 0;
  // Opened here: the stream files are open before the child gives up root.
  auto reader = EventReader::Open({dir}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child reports through its exit code only (gtest is the parent's).
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
      _exit(77);
    const rlimit none{0, 0};
    if (setrlimit(RLIMIT_NPROC, &none) != 0) _exit(77);
    // Proof that the limit holds: a thread cannot start.
    try {
      std::thread([] {}).join();
      _exit(78);
    } catch (const std::system_error&) {
    }
    std::set<unsigned> workers;
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> scanned;
    const Status s = (*reader)->ScanUnordered(4, [&](unsigned worker, StreamCursor& c) {
      workers.insert(worker);  // one thread: no lock needed, which is the point
      auto [stream, events] = ScanStream(c);
      scanned[stream] = std::move(events);
    });
    if (!s.ok()) _exit(1);
    if (workers != std::set<unsigned>{0}) _exit(2);
    if (scanned != merged) _exit(3);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died: status " << status;
  if (WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "cannot limit this process's threads here (setuid or setrlimit failed)";
  ASSERT_NE(WEXITSTATUS(status), 78) << "RLIMIT_NPROC did not stop a thread from starting";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: the scan failed, 2: a worker other than the caller's ran, 3: other events";
}

// Two streams cut short at different times: both scans and the merged read report the
// stream whose last good event comes first.
TEST(EventReaderTest, ScanUnorderedFailsWhereTheMergedReadStops) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/t";
  testing::WriteTiedTrace(dir, 3, 4000, 11);
  const std::vector<std::string> files = testing::StreamFiles(dir);
  ASSERT_EQ(files.size(), 3u);
  // Garbage over the last quarter of stream 0 and the second half of stream 2: the merged read
  // meets stream 2's error first, although stream 0 comes first in stream order.
  testing::SmashFrom(files[0], 0.75);
  testing::SmashFrom(files[2], 0.5);
  ReaderOptions options;
  options.decode_threads = 0;
  auto merged = EventReader::Open({dir}, options);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  while ((*merged)->Next()) {
  }
  const Status& merged_error = (*merged)->status();
  ASSERT_FALSE(merged_error.ok());
  EXPECT_NE(merged_error.ToString().find(files[2]), std::string::npos) << merged_error.ToString();
  for (unsigned threads : {1u, 2u}) {
    auto reader = EventReader::Open({dir}, options);
    ASSERT_TRUE(reader.ok());
    const Status s = (*reader)->ScanUnordered(threads, [](unsigned, StreamCursor& c) {
      while (c.Next()) {
      }
    });
    EXPECT_EQ(s.ToString(), merged_error.ToString()) << threads << " threads";
  }
}

// A stream whose only good record is a discarded-events one still stops the merged read
// after that record: a stream that fails before any record stops it first, even when it
// comes later in stream order (merge_fuzzer found ScanUnordered picking the other one).
TEST(EventReaderTest, ScanUnorderedFailsFirstOnAStreamWithNoRecord) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/t";
  testing::WriteTiedTrace(dir, 2, 100, 5);
  const std::vector<std::string> files = testing::StreamFiles(dir);
  ASSERT_EQ(files.size(), 2u);
  // Stream 0: its first packet reports 3 discarded events (context field events_discarded,
  // a little-endian u64 at byte 72 in our writer's layout), and every event is garbage from
  // byte 84, where the first one starts. Stream 1: garbage from its first byte (bad magic).
  testing::Overwrite(files[0], 72, std::string("\x03\0\0\0\0\0\0\0", 8));
  testing::Overwrite(files[0], 84, std::string(64, '\xff'));
  testing::SmashFrom(files[1], 0.0);
  ReaderOptions options;
  options.decode_threads = 0;
  auto merged = EventReader::Open({dir}, options);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)->Next(), nullptr);
  const std::string merged_error = (*merged)->status().ToString();
  EXPECT_NE(merged_error.find(files[1] + ", offset=0"), std::string::npos) << merged_error;
  for (unsigned threads : {1u, 2u}) {
    auto reader = EventReader::Open({dir}, options);
    ASSERT_TRUE(reader.ok());
    std::atomic<uint64_t> discarded_records{0}, events{0};
    const Status s = (*reader)->ScanUnordered(threads, [&](unsigned, StreamCursor& c) {
      while (c.Next()) ++(c.event().kind == Event::Kind::kDiscarded ? discarded_records : events);
    });
    EXPECT_EQ(discarded_records.load(), 1u) << "stream 0 returned its discarded-events record";
    EXPECT_EQ(events.load(), 0u);
    EXPECT_EQ(s.ToString(), merged_error) << threads << " threads";
  }
}

}  // namespace
}  // namespace causeway::ctf
