#include "pivot/baggage.h"

#include <algorithm>

#include <fmt/format.h>

namespace causeway::pivot {
namespace {
thread_local std::shared_ptr<Baggage> t_current;
}  // namespace

std::string Value::ToString() const {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kInt:
      return std::to_string(i);
    case Type::kDouble:
      return fmt::format("{}", d);
    case Type::kBool:
      return i ? "true" : "false";
    case Type::kString:
      return s;
  }
  return "?";
}

const Bag* Baggage::Find(const std::string& key) const {
  auto it = bags_.find(key);
  return it == bags_.end() ? nullptr : &it->second;
}

void Baggage::Merge(const Baggage& other) {
  for (const auto& [key, bag] : other.bags_) {
    Bag& mine = bags_[key];
    mine.overflow = mine.overflow || bag.overflow;
    for (const Tuple& t : bag.tuples) {
      if (std::find(mine.tuples.begin(), mine.tuples.end(), t) != mine.tuples.end()) continue;
      if (mine.tuples.size() >= kMaxTuplesPerBag) {
        mine.overflow = true;
        break;
      }
      mine.tuples.push_back(t);
    }
  }
}

Baggage* Baggage::Current() { return t_current.get(); }

Baggage& Baggage::EnsureCurrent() {
  if (!t_current) t_current = std::make_shared<Baggage>();
  return *t_current;
}

std::shared_ptr<Baggage> Baggage::Capture() {
  if (!t_current || t_current->empty()) return nullptr;
  return std::make_shared<Baggage>(*t_current);
}

BaggageScope::BaggageScope(std::shared_ptr<Baggage> baggage) : previous_(std::move(t_current)) {
  t_current = std::move(baggage);
}

BaggageScope::~BaggageScope() { t_current = std::move(previous_); }

}  // namespace causeway::pivot
