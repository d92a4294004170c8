// Decoding threads (ReaderOptions::decode_threads) change nothing a reader's user sees: every
// event with every field, the merged order, discarded records, statistics and errors are
// the same as with the streams decoded in the caller's thread.
#include "ctf/reader/decode_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/clock_transform.h"
#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"
#include "support/merge_traces.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

// Everything an Event exposes, one line per event.
std::string Describe(const Event& e) {
  std::string s = fmt::format("{} t={} trace={} stream={} cpu={} stream_class={}", e.name(),
                              e.timestamp, e.trace_index, e.stream_index, e.cpu,
                              e.stream_plan ? static_cast<int64_t>(e.stream_plan->cls->id) : -1);
  if (e.kind == Event::Kind::kDiscarded)
    return s + fmt::format(" lost={} in [{}, {}]", e.discarded, e.discarded_begin, e.discarded_end);
  s += fmt::format(" class={} cycles={} id={}", e.class_index, e.cycles, e.id());
  // Where the event scopes lie, the header's options included (the pipeline gives an event
  // of static layout its class's slots plus its start). Past a scope's first slot, only
  // the header's are all written for every event (others anchor array elements, which
  // the formatter sets as it walks them).
  const ScopePlan* scopes[] = {&e.stream_plan->event_header, &e.stream_plan->event_context,
                               &e.plan->context, &e.plan->payload};
  for (int i = 0; i < 4; ++i) {
    const int scope = i + static_cast<int>(Scope::kEventHeader);
    const uint32_t slots =
        i == 0 ? scopes[i]->num_slots : std::min<uint32_t>(scopes[i]->num_slots, 1);
    s += fmt::format(" scope{}=[", scope);
    for (uint32_t slot = 0; slot < slots; ++slot) s += fmt::format("{},", e.Anchor(scope, slot));
    s += "]";
  }
  for (const FieldDesc& f : e.plan->fields) {
    const PlanNode& n = *f.node;
    s += " " + f.name + "=";
    if (e.Position(n) == kAbsent) {
      s += "absent";
      continue;
    }
    switch (n.type->kind) {
      case TypeKind::kInteger:
      case TypeKind::kEnum:
        s += fmt::format("{}", e.GetSigned(n));
        break;
      case TypeKind::kFloat:
        s += fmt::format("{}", e.GetDouble(n));
        break;
      case TypeKind::kString:
      case TypeKind::kArray:
      case TypeKind::kSequence:
        s += fmt::format("'{}' len={}", e.GetString(n), e.Length(n));
        break;
      default:
        s += "struct/variant";
    }
  }
  return s;
}

struct Read {
  std::vector<std::string> events;
  std::vector<std::string> stats;
  std::string status;
  uint64_t consumed = 0;
};

// How ReadAll takes the events: one Next() call each; EventReader::ForEach; or ForEach
// stopped every few events (its callback returning false), a few taken by Next(), then
// ForEach again, over and over.
enum class Api { kNext, kForEach, kMixed };
const char* ApiName(Api api) {
  return api == Api::kNext      ? "Next()"
         : api == Api::kForEach ? "ForEach"
                                : "ForEach stopped and Next()";
}

Read ReadAll(const std::vector<std::string>& dirs, unsigned threads, uint32_t batch_events = 0,
             const ClockTransform* transform = nullptr, Api api = Api::kNext) {
  Read r;
  ReaderOptions o;
  if (transform) o.clock_transform = [&](const Trace&) { return *transform; };
  o.decode_threads = threads;
  o.decode_batch_events = batch_events;
  auto reader = EventReader::Open(dirs, o);
  if (!reader.ok()) {
    r.status = reader.status().ToString();
    return r;
  }
  EventReader& reader_ref = **reader;
  switch (api) {
    case Api::kNext:
      while (const Event* e = reader_ref.Next()) r.events.push_back(Describe(*e));
      break;
    case Api::kForEach:
      EXPECT_FALSE(reader_ref.ForEach([&](const Event& e) { r.events.push_back(Describe(e)); }));
      break;
    case Api::kMixed: {
      size_t round = 0;
      for (bool more = true; more; ++round) {
        // Stops after 1 to 97 events, then takes 0 to 4 by Next().
        const size_t stop_at = r.events.size() + 1 + round * 31 % 97;
        more = reader_ref.ForEach([&](const Event& e) {
          r.events.push_back(Describe(e));
          return r.events.size() < stop_at;
        });
        if (more) {
          EXPECT_EQ(r.events.size(), stop_at);
        }
        for (size_t k = 0; more && k < round % 5; ++k) {
          const Event* e = reader_ref.Next();
          if (!e) {
            more = false;
            break;
          }
          r.events.push_back(Describe(*e));
        }
      }
      break;
    }
  }
  r.status = reader_ref.status().ToString();
  for (const StreamStats& s : (*reader)->stream_stats())
    r.stats.push_back(fmt::format("{} {} {} {} {} {} {} {} {} {} {} {}", s.path, s.trace_index,
                                  s.stream_class_id, s.stream_instance_id, s.cpu, s.file_bytes,
                                  s.packets, s.events, s.discarded_events, s.lost_packets,
                                  s.clamped_events, s.first_ts));
  r.consumed = (*reader)->consumed_bytes();
  return r;
}

// The read without decoding threads against every number of them (0 included) and
// every way of taking the events.
void ExpectSameWithThreads(const std::vector<std::string>& dirs, size_t min_events) {
  const Read unthreaded_read = ReadAll(dirs, 0);
  EXPECT_GE(unthreaded_read.events.size(), min_events) << dirs[0];
  for (const auto& [threads, api] : std::vector<std::pair<unsigned, Api>>{{1, Api::kNext},
                                                                          {2, Api::kNext},
                                                                          {3, Api::kNext},
                                                                          {0, Api::kForEach},
                                                                          {1, Api::kForEach},
                                                                          {2, Api::kForEach},
                                                                          {0, Api::kMixed},
                                                                          {1, Api::kMixed},
                                                                          {3, Api::kMixed}}) {
    SCOPED_TRACE(
        fmt::format("{} with {} decoding threads, taken by {}", dirs[0], threads, ApiName(api)));
    const Read r = ReadAll(dirs, threads, 0, nullptr, api);
    EXPECT_EQ(r.status, unthreaded_read.status);
    ASSERT_EQ(r.events.size(), unthreaded_read.events.size());
    for (size_t i = 0; i < r.events.size(); ++i)
      ASSERT_EQ(r.events[i], unthreaded_read.events[i]) << "event " << i;
    EXPECT_EQ(r.stats, unthreaded_read.stats);
    EXPECT_EQ(r.consumed, unthreaded_read.consumed);
  }
}

TEST(DecodePipelineTest, TheSharedTracesReadTheSame) {
  for (const char* t :
       {"lttng/bug446190", "lttng/hello-lost", "lttng/many-threads", "lttng/memory", "perf-sched"})
    ExpectSameWithThreads({testing::TestTrace(t)}, 10);
}

// A plain event header (babeltrace2's: 64-bit id and timestamp) in static runs.
TEST(DecodePipelineTest, PlainHeadersReadTheSame) {
  testing::TempDir tmp;
  const std::string dir =
      testing::RewriteWithBabeltrace(testing::TestTrace("lttng/many-threads"), tmp.path());
  ASSERT_FALSE(dir.empty());
  ExpectSameWithThreads({dir}, 240644);
}

// The pipeline hands an event the decoder's static path decoded over as its header start
// alone (StreamCursor::static_start): its class's StaticLayout plus that start must give
// the slots the cursor wrote: every header slot, and each other event scope's first (past
// it, slots anchor array elements, which the formatter sets as it walks them).
TEST(DecodePipelineTest, StaticStartGivesTheCursorsSlots) {
  size_t static_events = 0, other_records = 0;
  for (const char* t : {"lttng/bug446190", "lttng/hello-lost", "lttng/many-threads", "lttng/memory",
                        "perf-sched"}) {
    ReaderOptions o;
    o.decode_threads = 0;
    auto reader = EventReader::Open({testing::TestTrace(t)}, o);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const Status status = (*reader)->ScanUnordered(1, [&](unsigned, StreamCursor& c) {
      while (c.NextNotingLayout()) {
        const Event& e = c.event();
        const uint64_t start = c.static_start();
        if (start == StreamCursor::kNoStaticLayout) {
          ++other_records;
          continue;
        }
        ++static_events;
        ASSERT_EQ(e.kind, Event::Kind::kEvent) << t;
        const StaticLayout& l =
            c.static_layouts()[(e.class_index - c.class_base()) * 2 + c.static_option()];
        ASSERT_EQ(l.plan, e.plan) << t;
        const size_t counts[] = {c.num_slots(2), c.num_slots(3), e.plan->context.num_slots,
                                 e.plan->payload.num_slots};
        for (int i = 0; i < 4; ++i) {
          ASSERT_NE(l.slots[i], nullptr) << t << " " << e.name();
          for (size_t k = 0; k < (i == 0 ? counts[i] : std::min<size_t>(counts[i], 1)); ++k) {
            const uint64_t rel = l.slots[i][k];
            ASSERT_EQ(rel == kAbsent ? kAbsent : rel + start, e.slots[i + 2][k])
                << t << " " << e.name() << " t=" << e.timestamp << " scope " << i + 2 << " slot "
                << k;
          }
        }
      }
    });
    // hello-lost ends in a truncated packet: its error is expected, the rest is read.
    if (std::string(t) != "lttng/hello-lost") {
      EXPECT_TRUE(status.ok()) << t << ": " << status.ToString();
    }
  }
  // Both kinds occur: static events, and discarded records, events after one, events in a
  // packet's last bytes and classes with variable bodies (UST strings).
  EXPECT_GT(static_events, 1000u);
  EXPECT_GT(other_records, 1000u);
}

// Under a clock transform the timestamp is no longer the clock value plus the clock's
// offset: the pipeline must carry each event's clock value instead of deriving it.
TEST(DecodePipelineTest, TransformedClocksReadTheSame) {
  const std::string dir = testing::TestTrace("lttng/many-threads");
  const ClockTransform drift = ClockTransform::FromLine(1.0001L, -50.0L, 0);
  const Read plain = ReadAll({dir}, 0);
  const Read unthreaded_read = ReadAll({dir}, 0, 0, &drift);
  ASSERT_GE(unthreaded_read.events.size(), 1000u);
  ASSERT_EQ(plain.events.size(), unthreaded_read.events.size());
  EXPECT_NE(plain.events.back(), unthreaded_read.events.back()) << "the transform changed nothing";
  for (uint32_t batch : {0u, 7u}) {
    SCOPED_TRACE(fmt::format("batches of {} events", batch));
    const Read r = ReadAll({dir}, 1, batch, &drift);
    EXPECT_EQ(r.status, unthreaded_read.status);
    ASSERT_EQ(r.events.size(), unthreaded_read.events.size());
    for (size_t i = 0; i < r.events.size(); ++i)
      ASSERT_EQ(r.events[i], unthreaded_read.events[i]) << "event " << i;
  }
}

// Many small packets and many batches per stream, discarded events, strings and sequences
// (walked layouts), a stream event context, and two traces merged.
TEST(DecodePipelineTest, ManyPacketsAndBatchesReadTheSame) {
  testing::TempDir tmp;
  for (const char* host : {"a", "b"}) {
    TraceOptions o;
    o.hostname = host;
    o.packet_size = 1024;
    o.event_context_procname_vtid = true;
    auto w = CtfWriter::Create(tmp.path() + "/" + host, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const uint32_t tick = *(*w)->AddEventClass(
        "tick", {{"n", FieldKind::kU32}, {"name", FieldKind::kString}, {"v", FieldKind::kS64}});
    const uint32_t other = *(*w)->AddEventClass("other", {{"x", FieldKind::kDouble}});
    for (uint32_t i = 0; i < 20000; ++i) {
      const uint32_t cpu = i % 3;
      const uint64_t ts = 1000 + uint64_t{i} * 7 + (host[0] == 'b' ? 3 : 0);
      const UstContext ctx{.procname = "proc", .vtid = static_cast<int32_t>(cpu + 1)};
      if (i % 5 == 0) {
        (*w)->Begin(cpu, other, ts, ctx).Double(i * 0.5);
      } else {
        (*w)->Begin(cpu, tick, ts, ctx)
            .U32(i)
            .String(std::string(i % 40, 'x'))
            .S64(-static_cast<int64_t>(i));
      }
      if (i % 4999 == 0) {
        ASSERT_TRUE((*w)->SetDiscarded(cpu, i / 4999 + 1).ok());
      }
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  ExpectSameWithThreads({tmp.path() + "/a", tmp.path() + "/b"}, 40000);
}

// A body that a string ends has static slots (StaticLayout): the pipeline
// hands such events over as their header start, under the compact header and the extended
// one, and every field must read as the cursor reads it.
TEST(DecodePipelineTest, BodiesEndedByAStringReadTheSame) {
  testing::TempDir tmp;
  TraceOptions o;
  o.packet_size = 2048;
  auto w = CtfWriter::Create(tmp.path() + "/k", o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::vector<FieldSpec> tail_fields = {
      {"n", FieldKind::kU32}, {"comm", FieldKind::kCharArray16}, {"s", FieldKind::kString}};
  const uint32_t tail = *(*w)->AddEventClass("tail", tail_fields);
  std::vector<uint32_t> fixed;
  for (int i = 0; i < 34; ++i)
    fixed.push_back(*(*w)->AddEventClass(fmt::format("fixed_{}", i), {{"v", FieldKind::kS64}}));
  const uint32_t tail_extended = *(*w)->AddEventClass("tail_extended", tail_fields);
  for (uint32_t i = 0; i < 30000; ++i) {
    const uint32_t cpu = i % 2;
    const uint64_t ts = 1000 + uint64_t{i} * 11;
    const std::string text(i % 7 == 0 ? 300 : i % 13, static_cast<char>('a' + i % 26));
    if (i % 3 == 0) {
      (*w)->Begin(cpu, tail, ts).U32(i).Chars16("task").String(text);
    } else if (i % 5 == 0) {
      (*w)->Begin(cpu, tail_extended, ts).U32(i).Chars16("other").String(text);
    } else {
      (*w)->Begin(cpu, fixed[i % fixed.size()], ts).S64(-static_cast<int64_t>(i));
    }
  }
  ASSERT_TRUE((*w)->Close().ok());
  ExpectSameWithThreads({tmp.path() + "/k"}, 30000);
  // Both string classes are handed over as their start, under either header option.
  auto reader = EventReader::Open({tmp.path() + "/k"}, ReaderOptions{});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::map<std::string, size_t> by_start;
  std::mutex mu;
  ASSERT_TRUE(
      (*reader)
          ->ScanUnordered(1,
                          [&](unsigned, StreamCursor& c) {
                            while (c.NextNotingLayout()) {
                              if (c.static_start() == StreamCursor::kNoStaticLayout) continue;
                              std::lock_guard<std::mutex> lock(mu);
                              ++by_start[fmt::format("{}/{}", c.event().name(), c.static_option())];
                            }
                          })
          .ok());
  EXPECT_GT(by_start["tail/0"], 5000u);
  EXPECT_GT(by_start["tail_extended/1"], 1000u);
}

TEST(DecodePipelineTest, TheFailCorpusFailsTheSame) {
  const std::string fail = std::string(CAUSEWAY_TEST_DATA) + "/fail";
  size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fail)) {
    if (!entry.is_directory()) continue;
    ++cases;
    ExpectSameWithThreads({entry.path().string()}, 0);
  }
  EXPECT_GE(cases, 20u);
}

// The merge over decoded runs keeps the (timestamp, stream) order whatever the threads,
// with few streams (the 4-leaf tree) and many (the tree of losers), ties everywhere.
TEST(DecodePipelineTest, TiesAcrossStreamsReadTheSame) {
  for (uint32_t streams : {2u, 4u, 16u, 17u, 40u}) {
    testing::TempDir tmp;
    testing::WriteTiedTrace(tmp.path() + "/t", streams, 3000, streams);
    ExpectSameWithThreads({tmp.path() + "/t"}, size_t{streams} * 3000);
  }
}

// Batches of a few events: every run of the merge is cut at a batch end, where the horizon
// is set, over and over (ties, discarded records, the clock's end, a stream failing).
TEST(DecodePipelineTest, TinyBatchesReadTheSame) {
  testing::TempDir tmp;
  testing::WriteTiedTrace(tmp.path() + "/few", 3, 2000, 11);
  testing::WriteTiedTrace(tmp.path() + "/many", 17, 300, 12, /*end_at_max=*/true);
  testing::WriteTiedTrace(tmp.path() + "/cut", 4, 2000, 13);
  testing::SmashFrom(testing::StreamFiles(tmp.path() + "/cut")[2], 0.6);
  for (const char* name : {"few", "many", "cut"}) {
    const std::string dir = tmp.path() + "/" + name;
    const Read unthreaded_read = ReadAll({dir}, 0);
    ASSERT_GE(unthreaded_read.events.size(), 2000u) << name;
    for (const auto& [batch, api] : std::vector<std::pair<uint32_t, Api>>{{1, Api::kNext},
                                                                          {2, Api::kNext},
                                                                          {7, Api::kNext},
                                                                          {1, Api::kForEach},
                                                                          {7, Api::kForEach},
                                                                          {2, Api::kMixed},
                                                                          {7, Api::kMixed}}) {
      SCOPED_TRACE(fmt::format("{}: batches of {}, taken by {}", name, batch, ApiName(api)));
      const Read r = ReadAll({dir}, 2, batch, nullptr, api);
      EXPECT_EQ(r.status, unthreaded_read.status);
      ASSERT_EQ(r.events.size(), unthreaded_read.events.size());
      for (size_t i = 0; i < r.events.size(); ++i)
        ASSERT_EQ(r.events[i], unthreaded_read.events[i]) << "event " << i;
      if (std::string(name) == "cut") {  // only the failing stream's statistics are exact
        EXPECT_NE(unthreaded_read.status.find("channel0_2"), std::string::npos)
            << unthreaded_read.status;
        ASSERT_EQ(r.stats.size(), 4u);
        EXPECT_EQ(r.stats[2], unthreaded_read.stats[2]);
      } else {
        EXPECT_EQ(r.stats, unthreaded_read.stats);
      }
    }
  }
}

TEST(DecodePipelineTest, EventsAtTheClocksEndReadTheSame) {
  for (uint32_t streams : {3u, 20u}) {
    testing::TempDir tmp;
    testing::WriteTiedTrace(tmp.path() + "/t", streams, 3000, 7, /*end_at_max=*/true);
    const Read r = ReadAll({tmp.path() + "/t"}, 0);
    ASSERT_GE(r.events.size(), 20u);
    EXPECT_NE(r.events.back().find(fmt::format("t={}", UINT64_MAX)), std::string::npos)
        << r.events.back();
    ExpectSameWithThreads({tmp.path() + "/t"}, size_t{streams} * 3000);
  }
}

// Times that cross 2^62 ns mid-read: runs before it are merged one tree step per event,
// whose keys hold times below it (MergeTreeSteps::Fits); the runs after it are merged
// otherwise, in the same order.
TEST(DecodePipelineTest, TimesPastTheTreesKeysReadTheSame) {
  for (uint32_t streams : {2u, 4u}) {
    testing::TempDir tmp;
    testing::WriteTiedTrace(tmp.path() + "/t", streams, 3000, 5, /*end_at_max=*/false,
                            (uint64_t{1} << 62) - 3000);
    const Read r = ReadAll({tmp.path() + "/t"}, 0);
    ASSERT_EQ(r.events.size(), size_t{streams} * 3000);
    auto time_of = [](const std::string& line) {
      return std::stoull(line.substr(line.find(" t=") + 3));
    };
    EXPECT_LT(time_of(r.events.front()), uint64_t{1} << 62) << r.events.front();
    EXPECT_GE(time_of(r.events.back()), uint64_t{1} << 62) << r.events.back();
    ExpectSameWithThreads({tmp.path() + "/t"}, size_t{streams} * 3000);
  }
}

// More than 4 streams, whose runs are merged on a tree of losers with keys relative to the
// run's earliest time (LoserTree::Fits): runs that span a jump of 2^62 ns are merged
// otherwise, in the same order, and those before and after it on the tree.
TEST(DecodePipelineTest, RunsWiderThanTheLoserTreesKeysReadTheSame) {
  for (uint32_t streams : {5u, 8u, 20u}) {
    testing::TempDir tmp;
    testing::WriteTiedTrace(tmp.path() + "/t", streams, 3000, 9, /*end_at_max=*/false, 1000,
                            uint64_t{1} << 62);
    ExpectSameWithThreads({tmp.path() + "/t"}, size_t{streams} * 3000);
  }
}

// Streams that fail deep into the read, after many batches: the same events come out, and
// the read stops with the same error at the same point (right after the failing stream's
// last good event), also when the failing stream is not the first in stream order.
TEST(DecodePipelineTest, StreamsCutShortMidReadFailTheSame) {
  const std::vector<std::vector<std::pair<int, double>>> cases = {
      {{1, 0.3}}, {{0, 0.75}, {2, 0.5}}, {{3, 0.9}}};
  for (const auto& smashes : cases) {
    testing::TempDir tmp;
    const std::string dir = tmp.path() + "/t";
    testing::WriteTiedTrace(dir, 4, 6000, 3);
    const std::vector<std::string> files = testing::StreamFiles(dir);
    ASSERT_EQ(files.size(), 4u);
    for (const auto& [file, from] : smashes)
      testing::SmashFrom(files[static_cast<size_t>(file)], from);
    const size_t failing = static_cast<size_t>(smashes.back().first);
    const Read unthreaded_read = ReadAll({dir}, 0);
    ASSERT_NE(unthreaded_read.status.find(files[failing]), std::string::npos)
        << unthreaded_read.status;
    ASSERT_GE(unthreaded_read.events.size(), 4000u);
    for (unsigned threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(fmt::format("case {} with {} decoding threads", files[failing], threads));
      const Read r = ReadAll({dir}, threads);
      EXPECT_EQ(r.status, unthreaded_read.status);
      ASSERT_EQ(r.events.size(), unthreaded_read.events.size());
      for (size_t i = 0; i < r.events.size(); ++i)
        ASSERT_EQ(r.events[i], unthreaded_read.events[i]) << "event " << i;
      // Statistics are as of each stream's batch (see BufferedStream::stats): the failing
      // stream's are exact, the others may count events decoded ahead of the merge.
      ASSERT_EQ(r.stats.size(), 4u);
      EXPECT_EQ(r.stats[failing], unthreaded_read.stats[failing]);
    }
  }
}

// A reader dropped in the middle of a read stops its workers (this returns, ASan sees no
// leak) and never reads a stream's bytes after their chunk is freed.
TEST(DecodePipelineTest, AReaderDroppedMidReadStopsItsWorkers) {
  for (int round = 0; round < 20; ++round) {
    ReaderOptions o;
    o.decode_threads = 2;
    auto reader = EventReader::Open({testing::TestTrace("lttng/many-threads")}, o);
    ASSERT_TRUE(reader.ok());
    for (int i = 0; i < round * 50; ++i) ASSERT_NE((*reader)->Next(), nullptr);
  }
}

TEST(DecodePipelineTest, TheDefaultFollowsTheEnvironment) {
  const char* was = std::getenv("CAUSEWAY_DECODE_THREADS");
  const std::string saved = was ? was : "";
  ::setenv("CAUSEWAY_DECODE_THREADS", "0", 1);
  EXPECT_EQ(DefaultDecodeThreads(), 0u);
  ::setenv("CAUSEWAY_DECODE_THREADS", "3", 1);
  EXPECT_EQ(DefaultDecodeThreads(), 3u);
  EXPECT_EQ(AnalysisDecodeThreads(), 3u);
  ::unsetenv("CAUSEWAY_DECODE_THREADS");
  EXPECT_EQ(DefaultDecodeThreads(), 0u);  // inline unless asked
  // An analysis takes one worker when there is a second CPU for it.
  EXPECT_EQ(AnalysisDecodeThreads(), std::thread::hardware_concurrency() >= 2 ? 1u : 0u);
  if (was) ::setenv("CAUSEWAY_DECODE_THREADS", saved.c_str(), 1);
}

}  // namespace
}  // namespace causeway::ctf
