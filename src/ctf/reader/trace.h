// An opened CTF trace directory: parsed metadata, compiled plans, stream file list.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ctf/metadata/trace_class.h"
#include "ctf/plan/decode_plan.h"
#include "ctf/reader/fast_path_tables.h"

namespace causeway::ctf {

// Parsed metadata, its compiled plans and the cursors' tables made from them, shared by the
// traces whose metadata text is the same: the chunks of a rotated recording (one per `lttng
// rotate`, hundreds in a long session) each carry a copy of the same metadata, which would
// otherwise be parsed and compiled, and held, once per chunk.
class MetadataCache {
 public:
  struct Compiled {
    std::unique_ptr<TraceClass> trace_class;
    std::unique_ptr<TracePlan> plan;  // points into trace_class: declared after it
    // One per stream class, in plan->streams' order; they point into plan.
    std::vector<std::unique_ptr<const FastPathTables>> fast_path_tables;
  };
  // The compiled form of `text`, compiled now unless a trace with the same text was.
  StatusOr<std::shared_ptr<const Compiled>> Get(std::string text, const std::string& dir);

 private:
  std::unordered_map<std::string, std::shared_ptr<const Compiled>> by_text_;
};

class Trace {
 public:
  // Reads `dir`/metadata (plain or packetized), compiles the decoding plans (or takes them
  // from `cache`, when given) and lists the stream files (every non-empty regular file but
  // `metadata` and hidden files).
  static StatusOr<std::unique_ptr<Trace>> Open(const std::string& dir,
                                               MetadataCache* cache = nullptr);

  const std::string& dir() const { return dir_; }
  const TraceClass& trace_class() const { return *compiled_->trace_class; }
  const TracePlan& plan() const { return *compiled_->plan; }
  // The tables of stream class `stream` (one of plan().streams), for its cursors.
  const FastPathTables& fast_path_tables(const StreamPlan& stream) const;
  const std::vector<std::string>& stream_paths() const { return stream_paths_; }
  // env.hostname (LTTng) or env.host (perf), else the directory name.
  const std::string& hostname() const { return hostname_; }

  // Converts a raw clock value to ns from the clock origin, offsets applied; saturates at 0
  // and 2^64 - 1 (CheckClockRange tells when it would).
  uint64_t CyclesToNs(const ClockClass* clock, uint64_t cycles) const;
  // An error naming the clock's fields when `cycles` (`what`: which value it is) is not a
  // time from 0 to 2^64 - 1 ns: a wrong freq or offset_s that would wrap silently.
  Status CheckClockRange(const ClockClass* clock, uint64_t cycles, std::string_view what) const;

 private:
  std::string dir_;
  std::string hostname_;
  std::shared_ptr<const MetadataCache::Compiled> compiled_;
  std::vector<std::string> stream_paths_;
};

}  // namespace causeway::ctf
