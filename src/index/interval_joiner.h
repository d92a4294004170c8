// Closed intervals of one attribute at a time into a StateWriter, as they are found: each
// starts no earlier than the previous one ended (clipped when it would overlap), empty ones
// are dropped, and neighbours holding the same value are joined into one.
#pragma once

#include <algorithm>
#include <cstdint>

#include "state/state_store.h"

namespace causeway::index {

class IntervalJoiner {
 public:
  explicit IntervalJoiner(state::StateWriter* writer) : writer_(writer) {}
  ~IntervalJoiner() { Flush(); }

  // The next intervals are `attribute`'s (Flush() the previous attribute's first).
  void Reset(state::AttributeId attribute) {
    attribute_ = attribute;
    last_end_ = INT64_MIN;
  }
  void Add(int64_t start, int64_t end, state::StateValue value) {
    start = std::max(start, last_end_);
    if (end <= start) return;
    if (open_ && value == value_ && start == end_) {
      end_ = end;
    } else {
      Flush();
      open_ = true;
      start_ = start;
      value_ = value;
      end_ = end;
    }
    last_end_ = end;
  }
  void Flush() {
    if (!open_) return;
    if (!value_.is_null()) {
      writer_->Add(attribute_, start_, end_, value_);
      ++written_;
    }
    open_ = false;
  }
  uint64_t written() const { return written_; }

 private:
  state::StateWriter* writer_;
  state::AttributeId attribute_ = 0;
  int64_t last_end_ = INT64_MIN;
  bool open_ = false;
  int64_t start_ = 0, end_ = 0;
  state::StateValue value_;
  uint64_t written_ = 0;
};

}  // namespace causeway::index
