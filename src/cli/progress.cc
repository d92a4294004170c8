#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace causeway::cli {

bool StderrIsInteractive() { return isatty(STDERR_FILENO) && !std::getenv("CI"); }

Progress::Progress(std::string what, uint64_t total_bytes, bool enabled)
    : what_(std::move(what)), total_(total_bytes), enabled_(enabled) {
  start_ = last_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { Finish(); }

void Progress::Draw(uint64_t done_bytes, uint64_t events) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  if (!drawn_ && now - start_ < std::chrono::milliseconds(500)) return;  // short reads stay quiet
  last_ = now;
  drawn_ = true;
  const double pct =
      total_ ? 100.0 * static_cast<double>(done_bytes) / static_cast<double>(total_) : 0;
  const int width = 30;
  const int filled = static_cast<int>(pct / 100 * width);
  std::fprintf(stderr, "\r%s [", what_.c_str());
  for (int i = 0; i < width; ++i) std::fputc(i < filled ? '#' : '.', stderr);
  std::fprintf(stderr, "] %5.1f%%  %.1f/%.1f MB  %.2f M events", pct,
               static_cast<double>(done_bytes) / 1e6, static_cast<double>(total_) / 1e6,
               static_cast<double>(events) / 1e6);
  std::fflush(stderr);
}

void Progress::Finish() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
  enabled_ = false;
}

}  // namespace causeway::cli
