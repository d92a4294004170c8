// Every event of a trace read into plain values, for tests that check what a writer or the
// recorder wrote: the event's name, CPU and time, and its fields by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctf/reader/event_reader.h"

namespace causeway::testing {

struct ReadEvent {
  std::string name;
  uint32_t cpu = 0;
  uint64_t ts = 0;
  // Integer and enumeration fields: their value as unsigned (`u`) and, sign-extended when
  // the field is signed, as signed (`num`).
  std::map<std::string, uint64_t> u;
  std::map<std::string, int64_t> num;
  std::map<std::string, std::string> str;  // strings, and arrays and sequences of text
  std::map<std::string, double> real;      // floating-point fields
};

struct ReadAllResult {
  std::vector<ReadEvent> events;  // in the reader's (time) order; discarded records left out
  uint64_t discarded_records = 0;
  uint64_t discarded_events = 0;  // summed over the discarded records
  std::vector<ctf::StreamStats> streams;
  Status status;  // the reader's final status, or why it could not open the trace
};

// Reads every event of `dirs` (merged, as EventReader reads several traces).
ReadAllResult ReadAll(const std::vector<std::string>& dirs, const ctf::ReaderOptions& options = {});
// ReadAll of the trace in `dir`, failing the calling test (and going on) when it does not
// read to its end without an error.
ReadAllResult ReadAllExpectOk(const std::string& dir);

}  // namespace causeway::testing
