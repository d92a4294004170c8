// StreamCursor::NextStaticRun decodes the events that follow in the static path's shape in a
// loop of its own: each record it writes must be the one NextNotingLayout() would have led
// the pipeline to write (timestamp, class, header start and option), it must stop exactly
// where that path would not apply (another body, a packet's end, a clamped or extended
// timestamp), and the cursor must go on from there as if it had decoded every event itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/stream_cursor.h"
#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

// A record as the pipeline would hand it over, or, for an event it would copy, its
// timestamp and class with `where` at kCopiedWhere (kLostWhere for discarded events).
using Record = std::tuple<uint64_t, uint32_t, uint32_t>;
constexpr uint32_t kCopiedWhere = ~uint32_t{0};
constexpr uint32_t kLostWhere = kCopiedWhere - 1;

Record FromCursor(const StreamCursor& c) {
  const Event& e = c.event();
  // A discarded-events record: its time and count (its class and clock value are not its own).
  if (e.kind == Event::Kind::kDiscarded)
    return {e.timestamp, static_cast<uint32_t>(e.discarded), kLostWhere};
  const uint64_t start = c.static_start();
  if (start <= EventRecord::kMaxAt && e.timestamp == e.cycles + c.clock_offset_ns())
    return {e.timestamp, e.plan->index,
            EventRecord::Where(c.static_option(), static_cast<uint32_t>(start))};
  return {e.timestamp, e.plan->index, kCopiedWhere};
}

struct StreamRead {
  std::vector<Record> records;
  std::string stats;  // what stats() and status() say at the end
  size_t run_events = 0;
  std::map<std::string, size_t> run_classes;  // the runs' events by class name
};

std::string Summary(const StreamCursor& c) {
  const StreamStats s = c.stats();
  return fmt::format("events={} first={} last={} clamped={} back={} discarded={} packets={} {}",
                     s.events, s.first_ts, s.last_ts, s.clamped_events, s.max_backward_ns,
                     s.discarded_events, s.packets, c.status().ToString());
}

// Every stream of `dirs`, by path: event by event, or with runs of at most `max_run`
// events (varied from run to run when 0) after each event.
std::map<std::string, StreamRead> ReadStreams(const std::vector<std::string>& dirs, bool runs,
                                              uint32_t max_run) {
  auto reader = EventReader::Open(dirs, ReaderOptions{});
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::map<std::string, StreamRead> out;
  if (!reader.ok()) return out;
  std::mutex mu;
  (void)(*reader)->ScanUnordered(1, [&](unsigned, StreamCursor& c) {
    StreamRead r;
    std::vector<EventRecord> buf(4096);
    uint32_t k = 0;
    while (c.NextNotingLayout()) {
      r.records.push_back(FromCursor(c));
      if (!runs) continue;
      ++k;
      const uint32_t max = max_run > 0 ? max_run : 1 + (k % 9) * (k % 7 == 0 ? 400 : 1);
      const uint32_t n = c.NextStaticRun(buf.data(), std::min<uint32_t>(max, 4096));
      ASSERT_LE(n, max);
      for (uint32_t i = 0; i < n; ++i) {
        r.records.emplace_back(buf[i].timestamp, buf[i].plan_index, buf[i].where);
        const auto& layout = c.static_layouts()[buf[i].plan_index * 2];
        ++r.run_classes[layout.plan->cls->name];
      }
      r.run_events += n;
    }
    r.stats = Summary(c);
    std::lock_guard<std::mutex> lock(mu);
    out[c.stats().path] = std::move(r);
  });
  return out;
}

// Returns how many events the runs decoded; `run_classes`, when given, receives them by
// class name.
size_t ExpectRunsReadTheSame(const std::vector<std::string>& dirs,
                             std::map<std::string, size_t>* run_classes = nullptr) {
  const auto plain = ReadStreams(dirs, false, 0);
  size_t run_events = 0;
  for (const uint32_t max_run : {0u, 1u, 4096u}) {
    SCOPED_TRACE(fmt::format("{} max_run={}", dirs.front(), max_run));
    const auto with_runs = ReadStreams(dirs, true, max_run);
    EXPECT_EQ(with_runs.size(), plain.size());
    for (const auto& [path, r] : with_runs) {
      const auto it = plain.find(path);
      if (it == plain.end()) {
        ADD_FAILURE() << "stream missing without runs: " << path;
        continue;
      }
      const StreamRead& p = it->second;
      EXPECT_EQ(r.stats, p.stats) << path;
      EXPECT_EQ(r.records.size(), p.records.size()) << path;
      const auto [a, b] =
          std::mismatch(r.records.begin(), r.records.end(), p.records.begin(), p.records.end());
      if (a != r.records.end() && b != p.records.end()) {
        ADD_FAILURE() << path << ": record " << (a - r.records.begin())
                      << " differs: t=" << std::get<0>(*a) << " class=" << std::get<1>(*a)
                      << " where=" << std::get<2>(*a) << " against t=" << std::get<0>(*b)
                      << " class=" << std::get<1>(*b) << " where=" << std::get<2>(*b);
      }
      run_events += r.run_events;
      if (run_classes)
        for (const auto& [name, n] : r.run_classes) (*run_classes)[name] += n;
    }
  }
  return run_events;
}

TEST(StaticRunTest, SharedTracesReadTheSame) {
  size_t run_events = 0;
  for (const char* t :
       {"lttng/bug446190", "lttng/hello-lost", "lttng/many-threads", "lttng/memory", "perf-sched"})
    run_events += ExpectRunsReadTheSame({testing::TestTrace(t)});
  EXPECT_GT(run_events, 1000u);
}

// Event headers of fixed layout other than LTTng's (PlainHeader) go through the runs too:
// here babeltrace2's (64-bit id and timestamp), on the kernel trace it rewrote. perf's
// (32-bit id) is in perf-sched above, whose events all have a string within (no run).
TEST(StaticRunTest, PlainHeadersReadTheSame) {
  testing::TempDir tmp;
  const std::string dir =
      testing::RewriteWithBabeltrace(testing::TestTrace("lttng/many-threads"), tmp.path());
  ASSERT_FALSE(dir.empty());
  {
    auto reader = EventReader::Open({dir}, ReaderOptions{});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    for (const auto& sp : (*reader)->traces()[0]->plan().streams) {
      EXPECT_TRUE(sp->header_plain.enabled);
      EXPECT_EQ(sp->header_plain.id_bits, 64);
      EXPECT_EQ(sp->header_plain.size_bits, 128u);
    }
  }
  {
    // perf's header (32-bit id) is recognized in perf-sched too.
    auto reader = EventReader::Open({testing::TestTrace("perf-sched")}, ReaderOptions{});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const PlainHeader& h = (*reader)->traces()[0]->plan().streams[0]->header_plain;
    EXPECT_TRUE(h.enabled);
    EXPECT_EQ(h.id_bits, 32);
    EXPECT_EQ(h.size_bits, 96u);
  }
  std::map<std::string, size_t> run_classes;
  // Three reads (run lengths varied, 1, 4096) of 240644 events, most of them static.
  EXPECT_GT(ExpectRunsReadTheSame({dir}, &run_classes), 3 * 100000u);
  EXPECT_GT(run_classes["syscall_entry_close"], 100u);
  // Its comm arrays became strings within the body: sched_switch is not in runs.
  EXPECT_EQ(run_classes["sched_switch"], 0u);
}

// A kernel trace that makes the loop stop in every way: a string within a body, ids past
// the compact range (extended headers), timestamps that step past the compact field's
// range, wrap it, or go back (clamped, patched in), packets' ends and discarded events;
// and bodies that a string ends, which runs go through (their slots are static), under
// either header: strings empty, short and long, some cut by a packet's end.
// Under LTTng's header, or under the plain one (`plain_header`, perf's layout), whose
// timestamps are all full ones: some of those are put back in time instead.
void ExpectEveryWayOutOfARunReadsTheSame(bool plain_header) {
  testing::TempDir tmp;
  TraceOptions o;
  o.packet_size = 4096;
  o.plain_event_header = plain_header;
  auto w = CtfWriter::Create(tmp.path() + "/k", o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // Compact ids: a string that ends the body, and one within it.
  const uint32_t tail =
      *(*w)->AddEventClass("tail", {{"n", FieldKind::kU32}, {"s", FieldKind::kString}});
  const uint32_t mid =
      *(*w)->AddEventClass("mid", {{"s", FieldKind::kString}, {"n", FieldKind::kU32}});
  std::vector<uint32_t> fixed;
  for (int i = 0; i < 40; ++i) {
    fixed.push_back(*(*w)->AddEventClass(fmt::format("fixed_{}", i),
                                         {{"a", FieldKind::kU32}, {"b", FieldKind::kS64}}));
  }
  const uint32_t text =
      *(*w)->AddEventClass("text", {{"n", FieldKind::kU32}, {"s", FieldKind::kString}});
  const uint32_t comm =
      *(*w)->AddEventClass("comm", {{"comm", FieldKind::kCharArray16}, {"pid", FieldKind::kS32}});
  uint64_t ts[2] = {1'000'000'000, 1'000'000'500};
  uint32_t seed = 7;
  const auto next = [&] {
    seed = seed * 1103515245 + 12345;
    return seed >> 8;
  };
  for (uint32_t i = 0; i < 60000; ++i) {
    const uint32_t cpu = i % 2;
    const uint32_t r = next();
    if (r % 100 == 0) {
      ts[cpu] += (uint64_t{1} << 27) + r % 1000;  // past the compact field: extended
    } else {
      ts[cpu] += 1 + r % 3000;  // the compact field wraps every 134 ms
    }
    if (r % 23 == 0) {
      (*w)->Begin(cpu, text, ts[cpu]).U32(i).String(std::string(r % 30, 'x'));
    } else if (r % 19 == 0) {
      (*w)->Begin(cpu, tail, ts[cpu]).U32(i).String(std::string(r % 7 == 0 ? 200 : r % 9, 'y'));
    } else if (r % 29 == 0) {
      (*w)->Begin(cpu, mid, ts[cpu]).String(std::string(r % 5, 'z')).U32(i);
    } else if (r % 17 == 0) {
      (*w)->Begin(cpu, comm, ts[cpu]).Chars16("worker").S32(static_cast<int32_t>(i));
    } else {
      (*w)->Begin(cpu, fixed[r % fixed.size()], ts[cpu]).U32(i).S64(-static_cast<int64_t>(r));
    }
    if (i % 9999 == 0) {
      ASSERT_TRUE((*w)->SetDiscarded(cpu, i / 9999 + 1).ok());
    }
  }
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
  // The writer keeps each stream in order: some extended headers' timestamps are then put
  // back in time, so that they and the compact ones after them go back (clamped).
  struct Patch {
    std::string path;
    uint64_t offset, value;
  };
  std::vector<Patch> patches;
  std::mutex mu;
  {
    auto reader = EventReader::Open({tmp.path() + "/k"}, ReaderOptions{});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const auto patch_stream = [&](unsigned, StreamCursor& c) {
      std::vector<Patch> mine;
      uint64_t n = 0;
      while (c.Next()) {
        const Event& e = c.event();
        if (e.kind != Event::Kind::kEvent) continue;
        if (plain_header) {
          const PlainHeader& f = e.stream_plan->header_plain;
          if (++n % 100 == 0)
            mine.push_back({c.stats().path, c.packet_offset() + (e.slots[2][0] + f.ts_off) / 8,
                            e.cycles - 4000});
          continue;
        }
        const HeaderFastPath& f = e.stream_plan->header_fast;
        const uint64_t at = e.slots[2][f.extended.slot];
        if (at == kAbsent) continue;
        mine.push_back(
            {c.stats().path, c.packet_offset() + (at + f.extended.ts_off) / 8, e.cycles - 4000});
      }
      // One in five goes back a little. The last goes so close to 2^64 that the compact
      // clocks after it pass 2^64 and come out earlier (every later event is clamped).
      std::lock_guard<std::mutex> lock(mu);
      for (size_t i = 4; i < mine.size(); i += 5) patches.push_back(mine[i]);
      if (!mine.empty())
        patches.push_back({mine.back().path, mine.back().offset, ~uint64_t{0} - 2000});
    };
    ASSERT_TRUE((*reader)->ScanUnordered(1, patch_stream).ok());
  }
  ASSERT_GT(patches.size(), 20u);
  for (const Patch& p : patches) {
    std::fstream f(p.path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(p.offset));
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(p.value >> (8 * i));
    f.write(reinterpret_cast<const char*>(bytes), 8);
    ASSERT_TRUE(f.good()) << p.path;
  }
  std::map<std::string, size_t> run_classes;
  EXPECT_GT(ExpectRunsReadTheSame({tmp.path() + "/k"}, &run_classes), 30000u);
  // Bodies that a string ends are in runs under either header; one with a string within
  // is not (its slots are not static).
  EXPECT_GT(run_classes["tail"], 1000u);
  EXPECT_GT(run_classes["text"], 500u);
  EXPECT_EQ(run_classes["mid"], 0u);
  // The patches took: events were clamped.
  auto reader = EventReader::Open({tmp.path() + "/k"}, ReaderOptions{});
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)
                  ->ScanUnordered(1,
                                  [](unsigned, StreamCursor& c) {
                                    while (c.Next()) {
                                    }
                                  })
                  .ok());
  uint64_t clamped = 0;
  for (const StreamStats& st : (*reader)->stream_stats()) clamped += st.clamped_events;
  EXPECT_GT(clamped, 20u);
  EXPECT_EQ((*reader)->traces()[0]->plan().streams[0]->header_plain.enabled, plain_header);
}

TEST(StaticRunTest, EveryWayOutOfARunReadsTheSame) { ExpectEveryWayOutOfARunReadsTheSame(false); }

TEST(StaticRunTest, EveryWayOutOfARunReadsTheSameUnderAPlainHeader) {
  ExpectEveryWayOutOfARunReadsTheSame(true);
}

// Truncated and corrupt streams: a run stops before the bad bytes and Next() reports them as
// it would have without runs (the fail/ corpus).
TEST(StaticRunTest, TheFailCorpusReadsTheSame) {
  const std::string fail = std::string(CAUSEWAY_TEST_DATA) + "/fail";
  size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fail)) {
    if (!entry.is_directory()) continue;
    auto reader = EventReader::Open({entry.path().string()}, ReaderOptions{});
    if (!reader.ok()) continue;  // the metadata fails: no stream to read
    ++cases;
    ExpectRunsReadTheSame({entry.path().string()});
  }
  EXPECT_GE(cases, 5u);
}

}  // namespace
}  // namespace causeway::ctf
