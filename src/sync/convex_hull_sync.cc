#include "sync/convex_hull_sync.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/int128.h"

namespace causeway::sync {

std::string_view SyncQualityName(SyncQuality q) {
  switch (q) {
    case SyncQuality::kAbsent:
      return "absent";
    case SyncQuality::kIncomplete:
      return "incomplete";
    case SyncQuality::kApproximate:
      return "approximate";
    case SyncQuality::kAccurate:
      return "accurate";
    case SyncQuality::kFail:
      return "fail";
  }
  return "?";
}

namespace {

template <typename Pt>
int128 Cross(const Pt& o, const Pt& a, const Pt& b) {
  return static_cast<int128>(a.x - o.x) * (b.y - o.y) -
         static_cast<int128>(a.y - o.y) * (b.x - o.x);
}

// Lower hull (keep_lower) or upper hull of `pts`, by increasing x; one point per x.
template <typename Pt>
std::vector<Pt> Hull(std::vector<Pt> pts, bool keep_lower) {
  std::sort(pts.begin(), pts.end(), [&](const Pt& a, const Pt& b) {
    if (a.x != b.x) return a.x < b.x;
    return keep_lower ? a.y < b.y : a.y > b.y;
  });
  std::vector<Pt> h;
  for (const Pt& p : pts) {
    if (!h.empty() && h.back().x == p.x) continue;  // the better point of this x came first
    while (h.size() >= 2) {
      const int128 c = Cross(h[h.size() - 2], h.back(), p);
      if (keep_lower ? c <= 0 : c >= 0) {
        h.pop_back();
      } else {
        break;
      }
    }
    h.push_back(p);
  }
  return h;
}

// Slope comparison of dy1/dx1 and dy2/dx2 (dx > 0), exact.
bool SteeperThan(int64_t dy1, int64_t dx1, int64_t dy2, int64_t dx2) {
  return static_cast<int128>(dy1) * dx2 > static_cast<int128>(dy2) * dx1;
}

constexpr long double kInf = std::numeric_limits<long double>::infinity();

}  // namespace

void ConvexHullSync::Add(int64_t x, int64_t y, bool a_to_b) {
  if (!have_origin_) {
    have_origin_ = true;
    ox_ = x;
    oy_ = y;
  }
  min_x_ = std::min(min_x_, x);
  max_x_ = std::max(max_x_, x);
  (a_to_b ? result_.a_to_b : result_.b_to_a)++;
  std::vector<P>& hull = a_to_b ? lower_ : upper_;
  std::vector<P> pts = hull;
  pts.push_back(P{x - ox_, y - oy_});
  std::vector<P> next = Hull(std::move(pts), /*keep_lower=*/a_to_b);
  const bool changed = next.size() != hull.size() ||
                       !std::equal(next.begin(), next.end(), hull.begin(),
                                   [](const P& a, const P& b) { return a.x == b.x && a.y == b.y; });
  hull = std::move(next);
  if (changed) {
    Recompute();
  } else if (result_.quality == SyncQuality::kAccurate) {
    // A point inside the hull changes only the x range, hence the accuracy bound.
    long double width = 0;
    for (long double at : {static_cast<long double>(min_x_), static_cast<long double>(max_x_)})
      width = std::max(width, std::fabs(result_.max_line->At(at) - result_.min_line->At(at)));
    result_.accuracy_ns = width / 2;
  }
}

bool ConvexHullSync::Feasible(const P& p, const P& q) const {
  for (const P& r : lower_)
    if (Cross(p, q, r) < 0) return false;  // an A->B point below the line
  for (const P& r : upper_)
    if (Cross(p, q, r) > 0) return false;  // a B->A point above the line
  return true;
}

void ConvexHullSync::Recompute() {
  SyncResult r;
  r.a_to_b = result_.a_to_b;
  r.b_to_a = result_.b_to_a;
  const long double ox = static_cast<long double>(ox_), oy = static_cast<long double>(oy_);
  auto absolute = [&](long double slope, long double rel_offset) {
    // y - oy = slope (x - ox) + rel_offset
    r.slope = slope;
    r.offset = oy + rel_offset - slope * ox;
  };
  // The slope-1 band: offsets y - x allowed by every message.
  long double low = -kInf, high = kInf;
  for (const P& p : upper_) low = std::max(low, static_cast<long double>(p.y - p.x));
  for (const P& p : lower_) high = std::min(high, static_cast<long double>(p.y - p.x));

  if (lower_.empty() && upper_.empty()) {
    r.quality = SyncQuality::kAbsent;
    result_ = r;
    return;
  }
  if (lower_.empty() || upper_.empty()) {
    r.quality = SyncQuality::kIncomplete;
    absolute(1, lower_.empty() ? low : high);
    r.accuracy_ns = kInf;
    result_ = r;
    return;
  }

  std::optional<std::pair<P, P>> max_pair, min_pair;
  for (const P& p : upper_)
    for (const P& q : lower_) {
      if (p.x < q.x && Feasible(p, q) &&
          (!max_pair || SteeperThan(q.y - p.y, q.x - p.x, max_pair->second.y - max_pair->first.y,
                                    max_pair->second.x - max_pair->first.x)))
        max_pair = std::make_pair(p, q);
      if (q.x < p.x && Feasible(q, p) &&
          (!min_pair || SteeperThan(min_pair->second.y - min_pair->first.y,
                                    min_pair->second.x - min_pair->first.x, p.y - q.y, p.x - q.x)))
        min_pair = std::make_pair(q, p);
    }
  auto line = [&](const std::pair<P, P>& pq) {
    HullLine l;
    l.x0 = ox_ + pq.first.x;
    l.y0 = oy_ + pq.first.y;
    l.dx = pq.second.x - pq.first.x;
    l.dy = pq.second.y - pq.first.y;
    return l;
  };
  if (max_pair) r.max_line = line(*max_pair);
  if (min_pair) r.min_line = line(*min_pair);

  if (r.min_line && r.max_line) {
    r.quality = SyncQuality::kAccurate;
    const HullLine& lo = *r.min_line;
    const HullLine& hi = *r.max_line;
    const long double s1 = lo.slope(), s2 = hi.slope();
    // Both lines in coordinates relative to the origin: y = s (x - x0) + y0.
    const long double c1 = (lo.y0 - oy) - s1 * (lo.x0 - ox);
    const long double c2 = (hi.y0 - oy) - s2 * (hi.x0 - ox);
    if (static_cast<int128>(lo.dy) * hi.dx == static_cast<int128>(hi.dy) * lo.dx) {
      absolute(s1, (c1 + c2) / 2);  // parallel: the middle line
    } else {
      const long double xi = (c2 - c1) / (s1 - s2);
      const long double yi = c1 + s1 * xi;
      const long double s = std::tan((std::atan(s1) + std::atan(s2)) / 2);  // bisector
      absolute(s, yi - s * xi);
    }
    long double width = 0;
    for (long double x : {static_cast<long double>(min_x_), static_cast<long double>(max_x_)})
      width = std::max(width, std::fabs(hi.At(x) - lo.At(x)));
    r.accuracy_ns = width / 2;
  } else if (low <= high) {
    r.quality = SyncQuality::kApproximate;
    absolute(1, (low + high) / 2);
    r.accuracy_ns = (high - low) / 2;
  } else if (r.min_line || r.max_line) {
    r.quality = SyncQuality::kApproximate;
    const HullLine& l = r.min_line ? *r.min_line : *r.max_line;
    absolute(l.slope(), (l.y0 - oy) - l.slope() * (l.x0 - ox));
    r.accuracy_ns = kInf;
  } else {
    r.quality = SyncQuality::kFail;
  }

  if (r.quality == SyncQuality::kFail) {
    if (have_good_) {
      r.slope = last_good_.slope;
      r.offset = last_good_.offset;
      r.accuracy_ns = last_good_.accuracy_ns;
      r.kept_last_good = true;
    } else {
      r.accuracy_ns = kInf;
    }
  } else if (r.quality == SyncQuality::kAccurate || r.quality == SyncQuality::kApproximate) {
    last_good_ = r;
    have_good_ = true;
  }
  result_ = r;
}

ClockTransform ConvexHullSync::BToA() const {
  if (!have_origin_ || result_.slope <= 0) return ClockTransform{};
  const long double a = result_.slope, b = result_.offset;
  const long double mid_a = (static_cast<long double>(min_x_) + max_x_) / 2;
  const int64_t origin_b = static_cast<int64_t>(std::llround(a * mid_a + b));
  return ClockTransform::FromLine(1 / a, -b / a, origin_b);
}

}  // namespace causeway::sync
