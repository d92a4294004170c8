// Renders decoded events as text lines close to babeltrace2's `pretty` output, or as
// JSON lines for scripts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ctf/reader/event.h"

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

 private:
  struct Walk;
  void AppendTime(uint64_t ns, std::string* out);
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
  // The walk's copy of the event's slots, per scope, kept from line to line.
  std::vector<uint64_t> walk_slots_[ctf::kNumScopes];
};

}  // namespace causeway::report
