// Baggage: the tuples a request carries for the happened-before joins of the installed
// queries (Pivot Tracing §3.4).
//
// A Baggage maps a bag key ("<query id>.<variable>") to a bounded list of tuples. The current
// request's baggage lives in a thread-local slot: advice PACKs into it and UNPACKs from it.
// Work that moves to another thread carries it explicitly (Capture() / BaggageScope); a
// branch copies it, a join merges it (per bag, duplicates removed). An empty baggage costs
// nothing: no allocation and, serialized, zero bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace causeway::pivot {

// One typed value of a tuple.
struct Value {
  enum class Type : uint8_t { kNull, kInt, kDouble, kBool, kString };
  Type type = Type::kNull;
  int64_t i = 0;  // kInt, kBool
  double d = 0;   // kDouble
  std::string s;  // kString

  static Value Int(int64_t v) { return {Type::kInt, v, 0, {}}; }
  static Value Double(double v) { return {Type::kDouble, 0, v, {}}; }
  static Value Bool(bool v) { return {Type::kBool, v ? 1 : 0, 0, {}}; }
  static Value String(std::string v) { return {Type::kString, 0, 0, std::move(v)}; }
  bool operator==(const Value& o) const {
    return type == o.type && i == o.i && (d == o.d || (d != d && o.d != o.d)) && s == o.s;
  }
  std::string ToString() const;
};

using Tuple = std::vector<Value>;

struct Bag {
  std::vector<Tuple> tuples;
  bool overflow = false;  // tuples were dropped (cap or trimming)
  bool operator==(const Bag& o) const { return tuples == o.tuples && overflow == o.overflow; }
};

inline constexpr size_t kMaxTuplesPerBag = 256;

class Baggage {
 public:
  bool empty() const { return bags_.empty(); }
  const Bag* Find(const std::string& key) const;
  Bag& Get(const std::string& key) { return bags_[key]; }
  void Erase(const std::string& key) { bags_.erase(key); }
  const std::map<std::string, Bag>& bags() const { return bags_; }
  std::map<std::string, Bag>& mutable_bags() { return bags_; }

  // Adds the other branch's tuples: per bag, tuples not already present are appended (up to
  // kMaxTuplesPerBag; beyond, the bag is marked overflowed).
  void Merge(const Baggage& other);

  bool operator==(const Baggage& o) const { return bags_ == o.bags_; }

  // The current request's baggage on this thread (never null while a BaggageScope or
  // EnsureCurrent() holds one; null when the thread has none).
  static Baggage* Current();
  // Current(), creating an empty one for this thread if there is none.
  static Baggage& EnsureCurrent();
  // A copy of the current baggage for another thread (a branch); null if none or empty.
  static std::shared_ptr<Baggage> Capture();

 private:
  std::map<std::string, Bag> bags_;
};

// Installs `baggage` as the thread's current baggage for its lifetime, then restores the
// previous one. With null, the thread has no baggage inside the scope.
class BaggageScope {
 public:
  explicit BaggageScope(std::shared_ptr<Baggage> baggage);
  ~BaggageScope();
  BaggageScope(const BaggageScope&) = delete;
  BaggageScope& operator=(const BaggageScope&) = delete;

 private:
  std::shared_ptr<Baggage> previous_;
};

// Wraps `fn` so that it runs with a branch of the caller's baggage (for std::thread and
// executors): `std::thread t(WithBaggage([] { ... }));`.
template <class Fn>
auto WithBaggage(Fn fn) {
  return [b = Baggage::Capture(), fn = std::move(fn)](auto&&... args) mutable {
    BaggageScope scope(b);
    return fn(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace causeway::pivot
