// ReaderOptions::clock_transform: every timestamp of a trace goes through its transform
// before the merge, so the merged order is the transformed order.
#include <gtest/gtest.h>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

void WriteTrace(const std::string& dir, const std::string& host, std::vector<uint64_t> times) {
  TraceOptions o;
  o.hostname = host;
  o.clock_offset_ns = 1'000'000'000'000;
  auto w = CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok());
  const uint32_t cls = *(*w)->AddEventClass("tick", {{"n", FieldKind::kU32}});
  for (size_t i = 0; i < times.size(); ++i)
    (*w)->Begin(static_cast<uint32_t>(i % 2), cls, times[i]).U32(static_cast<uint32_t>(i));
  ASSERT_TRUE((*w)->SetDiscarded(0, 3).ok());  // a loss after the last event of stream 0
  ASSERT_TRUE((*w)->Close().ok());
}

TEST(ReaderTransformTest, TimestampsAndMergeOrderFollowTheTransform) {
  testing::TempDir tmp;
  WriteTrace(tmp.path() + "/a", "a", {100, 200, 300, 400});
  WriteTrace(tmp.path() + "/b", "b", {150, 250, 350, 450});
  // b's clock runs 2x fast and 1000 ns ahead: t_a = (t_b - 1000) / 2 around its origin.
  ClockTransform tb;
  tb.origin = 1'000'000'000'150;
  tb.slope = ClockTransform::kSlopeOne / 2;
  tb.offset = 1'000'000'000'150 - 1000;
  ReaderOptions ro;
  ro.clock_transform = [&](const Trace& t) { return t.hostname() == "b" ? tb : ClockTransform{}; };
  auto r = EventReader::Open({tmp.path() + "/a", tmp.path() + "/b"}, ro);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::pair<std::string, uint64_t>> got;
  uint64_t prev = 0, discarded = 0;
  while (const Event* e = (*r)->Next()) {
    EXPECT_GE(e->timestamp, prev) << "merged out of order";
    prev = e->timestamp;
    if (!e->plan) {
      discarded += e->discarded;
      continue;
    }
    got.emplace_back(e->trace->hostname(), e->timestamp - 1'000'000'000'000);
  }
  ASSERT_TRUE((*r)->status().ok()) << (*r)->status().ToString();
  EXPECT_EQ(discarded, 6u);
  // b: 150 -> -850, 250 -> -800, 350 -> -750, 450 -> -700 (before every a event).
  const std::vector<std::pair<std::string, uint64_t>> want = {{"b", static_cast<uint64_t>(-850)},
                                                              {"b", static_cast<uint64_t>(-800)},
                                                              {"b", static_cast<uint64_t>(-750)},
                                                              {"b", static_cast<uint64_t>(-700)},
                                                              {"a", 100},
                                                              {"a", 200},
                                                              {"a", 300},
                                                              {"a", 400}};
  EXPECT_EQ(got, want);
  // Stream statistics are in the same timebase.
  for (const StreamStats& s : (*r)->stream_stats()) {
    if (s.trace_index != 1) continue;
    EXPECT_LT(s.first_ts, 1'000'000'000'000u);
  }
}

}  // namespace
}  // namespace causeway::ctf
