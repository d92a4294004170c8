#include "pivot/results.h"

#include <cmath>

#include <fmt/format.h>

namespace causeway::pivot {

void Partial::Add(double v) {
  sum += v;
  ++count;
  if (!any || v < min) min = v;
  if (!any || v > max) max = v;
  any = true;
}

void Partial::Combine(const Partial& o) {
  sum += o.sum;
  count += o.count;
  if (o.any) {
    if (!any || o.min < min) min = o.min;
    if (!any || o.max > max) max = o.max;
    any = true;
  }
}

double Partial::Result(Aggregate a) const {
  switch (a) {
    case Aggregate::kCount:
      return static_cast<double>(count);
    case Aggregate::kSum:
      return sum;
    case Aggregate::kMin:
      return min;
    case Aggregate::kMax:
      return max;
    case Aggregate::kAverage:
      return count ? sum / static_cast<double>(count) : 0;
    case Aggregate::kNone:
      break;
  }
  return 0;
}

namespace {

const Value& NullValue() {
  static const Value v;
  return v;
}

const Value& Column(const GroupView& g, int c) {
  return c >= 0 && static_cast<size_t>(c) < g.tuple->size() ? (*g.tuple)[c] : NullValue();
}

void Mix(size_t* h, const Value& v) {
  auto mix = [h](size_t x) { *h = (*h ^ x) * 0x100000001b3ull; };
  mix(static_cast<size_t>(v.type));
  switch (v.type) {
    case Value::Type::kInt:
    case Value::Type::kBool:
      mix(std::hash<int64_t>()(v.i));
      break;
    case Value::Type::kDouble:
      mix(std::hash<double>()(v.d));
      break;
    case Value::Type::kString:
      mix(std::hash<std::string_view>()(v.s));
      break;
    case Value::Type::kNull:
      break;
  }
}

}  // namespace

size_t TupleHash::operator()(const Tuple& t) const {
  size_t h = 0xcbf29ce484222325ull;
  for (const Value& v : t) Mix(&h, v);
  return h;
}

size_t TupleHash::operator()(const GroupView& g) const {
  size_t h = 0xcbf29ce484222325ull;
  for (int c : *g.cols) Mix(&h, Column(g, c));
  return h;
}

bool TupleEq::operator()(const GroupView& g, const Tuple& t) const {
  if (g.cols->size() != t.size()) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(Column(g, (*g.cols)[i]) == t[i])) return false;
  }
  return true;
}

std::string GroupKey(const Tuple& t) {
  std::string key;
  for (const Value& v : t) {
    key += static_cast<char>(v.type);
    key += v.ToString();
    key += '\0';
  }
  return key;
}

void ResultTable::Add(const ResultRow& row) {
  if (aggregates_ == 0) {
    if (plain_.size() >= max_plain_rows_) {
      ++dropped_;
      return;
    }
    plain_.push_back(row);
    return;
  }
  auto [it, inserted] = groups_.try_emplace(GroupKey(row.group));
  if (inserted) {
    it->second.group = row.group;
    it->second.partials.resize(aggregates_);
  }
  for (size_t a = 0; a < aggregates_ && a < row.partials.size(); ++a) {
    it->second.partials[a].Combine(row.partials[a]);
  }
}

std::vector<ResultRow> ResultTable::Rows() const {
  if (aggregates_ == 0) return plain_;
  std::vector<ResultRow> out;
  out.reserve(groups_.size());
  for (const auto& [key, row] : groups_) out.push_back(row);
  return out;
}

std::string FormatNumber(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.007199254740992e15) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{:.6g}", v);
}

}  // namespace causeway::pivot
