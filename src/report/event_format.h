// Renders decoded events as text lines close to babeltrace2's `pretty` output, or as
// JSON lines for scripts.
#pragma once

#include <cstdint>
#include <string>

#include "ctf/reader/event.h"

namespace causeway::report {

enum class TimeFormat { kLocal, kGmt, kSeconds, kCycles };

struct EventFormatOptions {
  TimeFormat time = TimeFormat::kLocal;
  bool delta = true;     // "(+0.000001868)" after the time
  bool hostname = true;  // env.hostname of the trace, when it has one
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
  void AppendTime(uint64_t ns, std::string* out) const;
  EventFormatOptions options_;
  bool have_last_ = false;
  uint64_t last_ts_ = 0;
};

}  // namespace causeway::report
