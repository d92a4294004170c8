// A progress line on stderr for long reads, shown only when stderr is a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace causeway::cli {

class Progress {
 public:
  Progress(std::string what, uint64_t total_bytes, bool enabled);
  ~Progress();
  // Cheap to call per event: looks at the clock once every 64 Ki calls.
  template <typename DoneBytes>
  void Tick(DoneBytes&& done_bytes, uint64_t events) {
    if (!enabled_ || (++calls_ & 0xFFFF)) return;
    Draw(done_bytes(), events);
  }
  // For callers that already rate-limit their calls: draws at most every 200 ms.
  void Update(uint64_t done_bytes, uint64_t events) {
    if (enabled_) Draw(done_bytes, events);
  }
  void Finish();

 private:
  void Draw(uint64_t done_bytes, uint64_t events);
  std::string what_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

// True when stderr is a terminal and CI is not set.
bool StderrIsInteractive();

}  // namespace causeway::cli
