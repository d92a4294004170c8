// An opened CTF trace directory: parsed metadata, compiled plans, stream file list.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctf/metadata/trace_class.h"
#include "ctf/plan/decode_plan.h"

namespace causeway::ctf {

class Trace {
 public:
  // Reads `dir`/metadata (plain or packetized), compiles the decoding plans and lists the
  // stream files (every non-empty regular file but `metadata` and hidden files).
  static StatusOr<std::unique_ptr<Trace>> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const TraceClass& trace_class() const { return *class_; }
  const TracePlan& plan() const { return *plan_; }
  const std::vector<std::string>& stream_paths() const { return stream_paths_; }
  // env.hostname (LTTng) or env.host (perf), else the directory name.
  const std::string& hostname() const { return hostname_; }

  // Converts a raw clock value to ns from the clock origin, offsets applied.
  uint64_t CyclesToNs(const ClockClass* clock, uint64_t cycles) const;

 private:
  std::string dir_;
  std::string hostname_;
  std::unique_ptr<TraceClass> class_;
  std::unique_ptr<TracePlan> plan_;
  std::vector<std::string> stream_paths_;
};

}  // namespace causeway::ctf
