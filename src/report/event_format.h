// Renders decoded events as text lines close to babeltrace2's `pretty` output, or as
// JSON lines for scripts.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ctf/reader/event.h"
#include "ctf/reader/field_walk.h"

namespace causeway::report {

enum class TimeFormat { kLocal, kGmt, kSeconds, kCycles };

struct EventFormatOptions {
  TimeFormat time = TimeFormat::kLocal;
  bool delta = true;  // "(+0.000001868)" after the time
  // The trace's env fields babeltrace2's text sink prints by default: hostname, procname
  // and vpid, those the trace has ("host:procname:(vpid)"; LTTng's per-process traces have
  // all three).
  bool hostname = true;
};

class EventFormatter {
 public:
  explicit EventFormatter(EventFormatOptions options = {}) : options_(options) {}

  // babeltrace2-like: [17:46:22.794565804] (+0.000001868) host name: { cpu_id = 2 }, { … }
  void AppendText(const ctf::Event& e, std::string* out);
  // {"timestamp":…,"time":"…","host":"…","name":"…","cpu":2,"stream":0,"context":{…},"fields":{…}}
  void AppendJson(const ctf::Event& e, std::string* out);

  // The line being built, the formatter's own (public for the helpers of its .cc): pieces
  // appended inline into a buffer kept from line to line, then handed to the caller's
  // string at once (std::string::append, a call per piece, took about a third of
  // `causeway events`' time).
  class Line {
   public:
    Line() { Grow(0); }
    // end_ and limit_ point into bytes_: a copy would write into the original's buffer.
    Line(const Line&) = delete;
    Line& operator=(const Line&) = delete;
    Line(Line&&) = default;  // the vector's buffer moves with its pointers
    Line& operator=(Line&&) = default;
    void clear() { end_ = bytes_.data(); }
    size_t size() const { return static_cast<size_t>(end_ - bytes_.data()); }
    const char* data() const { return bytes_.data(); }
    [[gnu::always_inline]] void append(const char* p, size_t n) {
      if (n == 0) return;  // p may be null then (an empty string_view's)
      if (static_cast<size_t>(limit_ - end_) < n) Grow(n);
      std::memcpy(end_, p, n);
      end_ += n;
    }
    [[gnu::always_inline]] void push_back(char c) {
      if (end_ == limit_) Grow(1);
      *end_++ = c;
    }
    [[gnu::always_inline]] Line& operator+=(std::string_view s) {
      append(s.data(), s.size());
      return *this;
    }
    [[gnu::always_inline]] Line& operator+=(char c) {
      push_back(c);
      return *this;
    }

   private:
    [[gnu::noinline]] void Grow(size_t n);
    std::vector<char> bytes_;
    char* end_ = nullptr;
    char* limit_ = nullptr;
  };

 private:
  void AppendTime(uint64_t ns, Line* out);
  void AppendTextLine(const ctf::Event& e, Line* out);
  void AppendJsonLine(const ctf::Event& e, Line* out);
  // " host:procname:(vpid)" of `trace`, or "" when it has none of them; kept for the next
  // line, looked up again only when that line's trace is another.
  const std::string& TraceFields(const ctf::Trace* trace);
  EventFormatOptions options_;
  const ctf::Trace* fields_trace_ = nullptr;
  std::string trace_fields_;
  bool have_last_ = false;
  uint64_t last_ts_ = 0;
  // AppendTime: "HH:MM:SS." of the second hms_second_, worked out once per second.
  uint64_t hms_second_ = UINT64_MAX;
  char hms_[9] = {};
  ctf::FieldWalker walker_;  // kept from line to line with its buffers
  Line line_;
};

}  // namespace causeway::report
