#include "record/record_buffer.h"

#include <gtest/gtest.h>

namespace causeway::record {
namespace {

RecordSlot Slot(uint64_t ts, uint32_t cpu, uint16_t type = CW_SOFTIRQ_ENTRY) {
  cw_softirq r{};
  r.h.ts = ts;
  r.h.cpu = cpu;
  r.h.type = type;
  r.h.size = sizeof(r);
  r.vec = static_cast<uint32_t>(ts);
  RecordSlot s;
  EXPECT_TRUE(s.Assign({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}));
  return s;
}

TEST(RecordSlotTest, RejectsMalformedRecords) {
  cw_softirq r{};
  r.h.size = sizeof(r) + 8;  // says it is longer than what arrived
  RecordSlot s;
  EXPECT_FALSE(s.Assign({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}));
  EXPECT_FALSE(s.Assign({reinterpret_cast<const uint8_t*>(&r), 4}));
  r.h.size = 2;  // shorter than a header
  EXPECT_FALSE(s.Assign({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}));
}

TEST(ReorderWindowTest, ReleasesPerCpuInOrderOnlyPastTheWindow) {
  ReorderWindow w(/*window_ns=*/100);
  // CPU 0 gets an interrupt's record (ts 50) before the record it interrupted (ts 40).
  for (auto [ts, cpu] : {std::pair{10, 0}, {50, 0}, {40, 0}, {45, 1}, {300, 1}})
    w.Add(Slot(ts, cpu));
  std::vector<std::pair<uint64_t, uint32_t>> out;
  auto sink = [&](const RecordSlot& s) { out.emplace_back(s.ts, s.cpu); };
  w.Release(false, sink);  // newest 300: everything up to 200 goes
  EXPECT_EQ(out, (std::vector<std::pair<uint64_t, uint32_t>>{{10, 0}, {40, 0}, {50, 0}, {45, 1}}));
  EXPECT_EQ(w.pending(), 1u);
  out.clear();
  w.Add(Slot(250, 0));  // late but within the window: still in order
  w.Release(true, sink);
  EXPECT_EQ(out, (std::vector<std::pair<uint64_t, uint32_t>>{{250, 0}, {300, 1}}));
  EXPECT_EQ(w.pending(), 0u);
}

TEST(SnapshotRingTest, KeepsTheNewestRecordsWithinTheBudget) {
  SnapshotRing ring(3 * sizeof(RecordSlot));  // three records per CPU
  for (uint64_t ts = 1; ts <= 5; ++ts) ring.Add(Slot(ts, 0));
  ring.Add(Slot(7, 1));
  std::vector<uint64_t> held;
  ring.ForEach([&](const RecordSlot& s) { held.push_back(s.ts); });
  EXPECT_EQ(held, (std::vector<uint64_t>{3, 4, 5, 7}));
  EXPECT_EQ(ring.overwritten(), 2u);
  EXPECT_EQ(ring.OldestTs(), 3u);
  EXPECT_EQ(ring.held(), 4u);
}

}  // namespace
}  // namespace causeway::record
