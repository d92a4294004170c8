#include "cli/report_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

namespace causeway::cli {

std::vector<size_t> ReportRequests(const requests::RequestAnalysis& a, long limit) {
  std::vector<size_t> which(a.requests.size());
  std::iota(which.begin(), which.end(), 0);
  if (limit < 0 || which.size() <= static_cast<size_t>(limit)) return which;
  std::stable_sort(which.begin(), which.end(), [&](size_t x, size_t y) {
    return a.requests[x].latency() > a.requests[y].latency();
  });
  which.resize(static_cast<size_t>(limit));
  std::sort(which.begin(), which.end());
  return which;
}

Status CheckReportSize(const requests::RequestAnalysis& a, const std::vector<size_t>& which,
                       std::string_view command) {
  uint64_t pieces = 0;
  for (size_t i : which) pieces += a.SharedPieces(i);
  if (pieces <= kMaxReportPieces) return Status::Ok();
  return FailedPrecondition(fmt::format(
      "the {} requests' critical paths hold {} pieces, more than the {} a report draws (a "
      "browser cannot show more): give `{} --limit N` to draw the N slowest requests, or list "
      "them with `causeway requests --format json` and see one with `causeway request ID`",
      which.size(), pieces, kMaxReportPieces, command));
}

StatusOr<ReportFile> ReportFile::Create(const std::string& path) {
  ReportFile f;
  f.path_ = path;
  f.partial_ = path + ".partial";
  f.f_ = std::fopen(f.partial_.c_str(), "w");
  if (!f.f_) return IoError(fmt::format("Cannot create {}: {}", f.partial_, strerror(errno)));
  return f;
}

ReportFile::ReportFile(ReportFile&& o) noexcept
    : path_(std::move(o.path_)), partial_(std::move(o.partial_)), f_(o.f_), failed_(o.failed_) {
  o.f_ = nullptr;
  o.partial_.clear();
}

ReportFile::~ReportFile() {
  if (f_) std::fclose(f_);
  if (!partial_.empty()) std::remove(partial_.c_str());
}

bool ReportFile::Write(std::string_view bytes) {
  failed_ = failed_ || std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size();
  return !failed_;
}

Status ReportFile::Commit() {
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (failed_ || !closed)
    return IoError(fmt::format("Cannot write {}: {}", partial_, strerror(errno)));
  if (std::rename(partial_.c_str(), path_.c_str()) != 0)
    return IoError(fmt::format("Cannot rename {} to {}: {}", partial_, path_, strerror(errno)));
  partial_.clear();
  return Status::Ok();
}

}  // namespace causeway::cli
