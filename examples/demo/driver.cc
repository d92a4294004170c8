// driver: GET /drivers?location=X,Y returns the nearest drivers.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "faults.h"
#include "services.h"

namespace causeway::demo {
namespace {

struct Driver {
  std::string id;
  Location location;
};

std::vector<Driver> MakeDrivers() {
  std::vector<Driver> drivers;
  uint64_t state = 42;  // a fixed seed: the same city every run
  for (int i = 0; i < 200; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const auto x = static_cast<int64_t>((state >> 33) % 1000);
    const auto y = static_cast<int64_t>((state >> 13) % 1000);
    drivers.push_back({fmt::format("T7{:05}C", i), {x, y}});
  }
  return drivers;
}

// The disk fault: each request appends a block and waits for it to reach the disk.
class SyncLog {
 public:
  ~SyncLog() {
    if (fd_ >= 0) close(fd_);
  }

  Status Open(const std::string& dir, int64_t write_kb, int syncs) {
    RETURN_IF_ERROR(CheckRealDisk(dir));
    // An unnamed file: the kernel frees it when the process exits, however it exits.
    fd_ = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd_ < 0)
      return IoError(
          fmt::format("cannot create a file in {} for the disk fault: {}", dir, strerror(errno)));
    block_.assign(static_cast<size_t>(write_kb) * 1024, 'd');
    syncs_ = syncs;
    return Status::Ok();
  }

  bool enabled() const { return fd_ >= 0; }

  // `syncs` times: writes one block at the next offset (wrapping at 64 MiB so the file
  // stays bounded) and fsyncs it, like a request that commits several small transactions.
  // Several device flushes, not one big write: on a disk with a write-back cache (a VM's
  // virtio disk) one fsync of even 1 MiB takes a few ms, and the flushes are what waits.
  Status WriteAndSync() {
    constexpr uint64_t kWrap = 64ull << 20;
    for (int i = 0; i < syncs_; ++i) {
      const uint64_t offset = next_.fetch_add(block_.size()) % kWrap;
      if (pwrite(fd_, block_.data(), block_.size(), static_cast<off_t>(offset)) !=
          static_cast<ssize_t>(block_.size()))
        return IoError(fmt::format("disk fault write: {}", strerror(errno)));
      if (fsync(fd_) != 0) return IoError(fmt::format("disk fault fsync: {}", strerror(errno)));
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
  std::string block_;
  int syncs_ = 1;
  std::atomic<uint64_t> next_{0};
};

}  // namespace

int RunDriver(const DriverOptions& o) {
  const std::vector<Driver> drivers = MakeDrivers();
  SyncLog log;
  if (!o.disk_dir.empty()) {
    if (Status s = log.Open(o.disk_dir, o.disk_write_kb, o.disk_syncs); !s.ok()) {
      fmt::print(stderr, "causeway-demo driver: {}\n", s.ToString());
      return 1;
    }
  }
  const size_t n = std::min(static_cast<size_t>(o.drivers), drivers.size());
  return ServeForever("driver", o.service, [&](httplib::Server& server) {
    server.Get(
        "/drivers", Traced("GET /drivers", [&](const httplib::Request& req, httplib::Response& res,
                                               DemoSpan& span) {
          auto at = LocationParam(req, "location");
          if (!at.ok()) return ReplyError(res, 400, at.status().message());
          std::vector<std::pair<int64_t, size_t>> by_distance;
          by_distance.reserve(drivers.size());
          for (size_t i = 0; i < drivers.size(); ++i) {
            const int64_t dx = drivers[i].location.x - at->x;
            const int64_t dy = drivers[i].location.y - at->y;
            by_distance.emplace_back(dx * dx + dy * dy, i);
          }
          std::partial_sort(by_distance.begin(), by_distance.begin() + static_cast<ptrdiff_t>(n),
                            by_distance.end());
          if (log.enabled()) {
            const auto before = std::chrono::steady_clock::now();
            if (Status s = log.WriteAndSync(); !s.ok()) return ReplyError(res, 500, s.ToString());
            span.SetInt("disk.sync_us", std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - before)
                                            .count());
          }
          nlohmann::json out = nlohmann::json::array();
          for (size_t k = 0; k < n; ++k) {
            const Driver& d = drivers[by_distance[k].second];
            out.push_back({{"id", d.id}, {"location", FormatLocation(d.location)}});
          }
          span.SetInt("drivers.found", static_cast<int64_t>(n));
          ReplyJson(res, out);
        }));
  });
}

}  // namespace causeway::demo
