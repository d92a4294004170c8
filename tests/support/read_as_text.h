// Every event of a trace rendered as text the way babeltrace2 prints it, for the tests that
// compare our reader with babeltrace2 line by line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctf/reader/event_reader.h"

namespace causeway::testing {

struct ReadResult {
  std::vector<std::string> lines;  // events only, babeltrace2 `--clock-seconds --no-delta` style
  std::vector<ctf::StreamStats> streams;
  uint64_t discarded_records = 0;
  Status status;
};

// Reads every event of `dirs` with our reader and renders it like babeltrace2; with
// `decode_threads` at 0 or above, on that many decoding threads (ReaderOptions), else on
// the default.
ReadResult ReadAsText(const std::vector<std::string>& dirs, int decode_threads = -1);

}  // namespace causeway::testing
