// The state history store: intervals of attribute values over time, written once in one
// pass of the analysis, then queried at a time or over a range (README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace causeway::state {

using AttributeId = uint32_t;
using StringRef = uint32_t;  // an interned string of the store

// A value: null, a 64-bit integer, or an interned string.
struct StateValue {
  enum class Kind : uint8_t { kNull, kInt, kString };
  Kind kind = Kind::kNull;
  int64_t i = 0;  // the integer, or the StringRef of a string

  static StateValue Null() { return {}; }
  static StateValue Int(int64_t v) { return {Kind::kInt, v}; }
  static StateValue String(StringRef s) { return {Kind::kString, static_cast<int64_t>(s)}; }
  bool is_null() const { return kind == Kind::kNull; }
  bool operator==(const StateValue&) const = default;
};

// [start, end): the attribute held value over that time.
struct StateInterval {
  int64_t start = 0;
  int64_t end = 0;
  AttributeId attribute = 0;
  StateValue value;
};

struct StateWriterOptions {
  // Written into the header: what the store was built from (trace files with sizes and
  // modification times, span files, the analysis' options), so that a reader can tell a
  // stale store from a valid one (StateStore::source_key).
  std::string source_key;
  // When the nodes being filled hold more than this in total, every one is written, even
  // part full: memory stays bounded with millions of short-lived attributes (requests).
  // An interval may then be split in two with equal values at a node boundary.
  size_t max_buffered_bytes = size_t{64} << 20;
};

// Writes a store file. Intervals go to FILE.partial as blocks fill, and Finish() writes the
// indexes, the footer and the checksum, then renames to FILE; a writer destroyed before
// Finish() removes FILE.partial.
class StateWriter {
 public:
  static StatusOr<std::unique_ptr<StateWriter>> Create(const std::string& path,
                                                       const StateWriterOptions& options = {});
  ~StateWriter();

  // The attribute of a path ("hosts/h0/threads/812/state"), added when new.
  AttributeId Attribute(std::string_view path);
  StringRef Intern(std::string_view s);

  // The state-system way: `attribute` holds `value` from `ts` on (the interval it held
  // before is closed at ts; an unchanged value extends it). ts never goes back for one
  // attribute.
  void Set(AttributeId attribute, int64_t ts, StateValue value);
  // A closed interval, for sources that know both ends. One attribute's intervals must come
  // in time order without overlap (a gap reads as null); mixing with Set() on the same
  // attribute is not allowed.
  void Add(AttributeId attribute, int64_t start, int64_t end, StateValue value);

  // Closes every open interval at `end_ts`, writes the rest and renames the file.
  Status Finish(int64_t end_ts);

  uint64_t intervals_written() const;
  uint64_t bytes_written() const;

 private:
  struct Impl;
  explicit StateWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A store file opened for queries (memory-mapped; safe to query from several threads).
class StateStore {
 public:
  // Refuses a file that is not a store, of another format version, cut or damaged
  // (checksum), with the path and the reason.
  static StatusOr<std::unique_ptr<StateStore>> Open(const std::string& path);
  ~StateStore();

  int64_t start() const;  // first interval's start
  int64_t end() const;    // Finish()'s end_ts
  const std::string& source_key() const;
  uint64_t num_intervals() const;
  uint64_t file_bytes() const;

  // Attributes.
  size_t num_attributes() const;
  std::optional<AttributeId> Find(std::string_view path) const;
  std::string_view path(AttributeId attribute) const;
  // The direct children of a path ("hosts/h0/threads" -> "812", "813", ...), by name.
  std::vector<std::string_view> Children(std::string_view path) const;
  std::string_view str(StringRef s) const;
  // A value as text: "null", the integer, or the string.
  std::string Format(const StateValue& v) const;

  // (a) The interval of one attribute holding time t (start <= t < end); a null interval
  // when no interval holds t.
  StateInterval At(AttributeId attribute, int64_t t) const;
  // (a) Every attribute's interval at time t (null ones left out), by attribute id.
  std::vector<StateInterval> AtAll(int64_t t) const;

  // (b) The intervals of `attributes` over [t1, t2) at a resolution of `step` ns: every
  // interval at least `step` long is given whole; shorter ones are sampled, one per step
  // boundary they hold (the one holding t1 + k * step). Calls `out` per attribute in time
  // order. step <= 0 gives every interval.
  void Range(std::span<const AttributeId> attributes, int64_t t1, int64_t t2, int64_t step,
             const std::function<void(const StateInterval&)>& out) const;

 private:
  struct Impl;
  explicit StateStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace causeway::state
