// ConvexHullSync: the clock relation between two hosts from the messages they exchanged
// (the convex hull method of Duda et al., fully incremental, as seed 004 §2.2 uses it).
//
// Host A is the reference. Each matched message is a point in the plane (A's clock, B's
// clock):
//   A -> B: (send on A, receive on B). The message arrives after it leaves, so the true
//           relation y = a x + b passes on or below these points.
//   B -> A: (receive on A, send on B): the relation passes on or above these points.
// The lines that separate the two sets form a band; its extreme lines are the one with the
// largest slope (through a B->A point on the left and an A->B point on the right) and the
// one with the smallest slope (the other way round). Only the lower hull of the A->B points
// and the upper hull of the B->A points can touch them, so only those hulls are kept: memory
// is bounded by the hull sizes, not the number of messages. All geometry is exact: points
// are 64-bit offsets from the first message, products 128-bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/clock_transform.h"

namespace causeway::sync {

enum class SyncQuality : uint8_t {
  kAbsent,       // no message
  kIncomplete,   // messages in one direction only: a bound, not an estimate
  kApproximate,  // both directions, but only one extreme line exists (or none, degenerate)
  kAccurate,     // both extreme lines exist: the transform is their bisector
  kFail,         // no line separates the two sets (clocks not linear over the trace)
};
std::string_view SyncQualityName(SyncQuality q);

// A line through two points, with an exact rational slope dy/dx (dx > 0).
struct HullLine {
  int64_t x0 = 0, y0 = 0;  // a point of the line (absolute clock values)
  int64_t dx = 1, dy = 1;
  long double slope() const { return static_cast<long double>(dy) / dx; }
  long double At(long double x) const { return y0 + slope() * (x - x0); }
};

struct SyncResult {
  SyncQuality quality = SyncQuality::kAbsent;
  // y = slope * x + offset maps A's clock (x) to B's clock (y).
  long double slope = 1;
  long double offset = 0;
  std::optional<HullLine> min_line, max_line;
  // Half the vertical width of the band over the x range seen: the transform is within
  // this of any line consistent with the messages (infinite when a side is open).
  long double accuracy_ns = 0;
  uint64_t a_to_b = 0, b_to_a = 0;  // matched messages
  bool kept_last_good = false;      // kFail: slope/offset are the last good result
};

class ConvexHullSync {
 public:
  void AddAToB(int64_t send_a, int64_t recv_b) { Add(send_a, recv_b, /*a_to_b=*/true); }
  void AddBToA(int64_t send_b, int64_t recv_a) { Add(recv_a, send_b, /*a_to_b=*/false); }

  const SyncResult& result() const { return result_; }
  // Maps B's timestamps to A's timebase (the inverse of the result line), exactly and
  // monotonically in integer arithmetic, anchored in the middle of the messages seen.
  ClockTransform BToA() const;
  size_t hull_points() const { return upper_.size() + lower_.size(); }

 private:
  struct P {
    int64_t x, y;  // relative to the first message
  };
  void Add(int64_t x, int64_t y, bool a_to_b);
  void Recompute();
  bool Feasible(const P& p, const P& q) const;  // line p->q (p.x < q.x) separates the sets

  bool have_origin_ = false;
  int64_t ox_ = 0, oy_ = 0;
  int64_t min_x_ = INT64_MAX, max_x_ = INT64_MIN;
  std::vector<P> lower_;  // lower hull of the A->B points, by x
  std::vector<P> upper_;  // upper hull of the B->A points, by x
  SyncResult result_;
  SyncResult last_good_;
  bool have_good_ = false;
};

}  // namespace causeway::sync
