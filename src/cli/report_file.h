// What the report files (`requests --format html`, `export --format chrome`) share: which
// requests they draw, the bound on their size, and a file written as the report is made.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "requests/request_analysis.h"

namespace causeway::cli {

// A report draws at most this many critical-path pieces: about 100 bytes of HTML or 500 of
// Chrome JSON each, already more than a browser tab draws or Perfetto UI loads from JSON.
inline constexpr uint64_t kMaxReportPieces = 2'000'000;

// The `limit` slowest requests (-1: all), in request (start) order.
std::vector<size_t> ReportRequests(const requests::RequestAnalysis& a, long limit);

// An error saying what to do instead when the requests `which` hold more than
// kMaxReportPieces pieces; Ok otherwise. `command`: "requests --format html"...
Status CheckReportSize(const requests::RequestAnalysis& a, const std::vector<size_t>& which,
                       std::string_view command);

// A file written as it is made: into PATH.partial, renamed to PATH by Commit(); removed when
// not committed (a write failed, or an exception unwinds), so that a report is whole or not
// there.
class ReportFile {
 public:
  static StatusOr<ReportFile> Create(const std::string& path);
  ReportFile(ReportFile&& o) noexcept;
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  ~ReportFile();

  bool Write(std::string_view bytes);
  // Flushes, closes and renames. Errors name the file.
  Status Commit();

 private:
  ReportFile() = default;
  std::string path_, partial_;
  std::FILE* f_ = nullptr;
  bool failed_ = false;
};

}  // namespace causeway::cli
