// The faults' system resources: a cgroup with a CPU quota, a network namespace reached over
// a bandwidth-limited veth pair, and the check that the disk fault writes to a real disk.
//
// Every resource has a fixed name starting with "cw-demo-" so that a later run, or
// `causeway-demo cleanup`, can find and remove what a killed run left. Two runs never share
// the names: both hold FaultLock while the resources exist. Removal is idempotent and works
// from what exists, not from what this process remembers creating, so the same code serves a
// normal end, a failed start and leftovers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace causeway::demo {

inline constexpr char kNetns[] = "cw-demo-route";
inline constexpr char kVethRoot[] = "cw-demo-veth0";   // in the root namespace
inline constexpr char kVethRoute[] = "cw-demo-veth1";  // in kNetns, carries the qdisc
inline constexpr char kRootAddress[] = "10.77.0.1";
inline constexpr char kRouteAddress[] = "10.77.0.2";
inline constexpr char kCgroup[] = "cw-demo-route";
inline constexpr char kLockFile[] = "/run/cw-demo.lock";

// A directory that is on a real disk: exists, is a directory, and is not tmpfs or ramfs
// (where fsync costs nothing).
Status CheckRealDisk(const std::string& dir);

// Exclusive right to the cw-demo-* names, as an flock on kLockFile. The kernel releases it
// when the holder dies, so holding it also means that anything named cw-demo-* is a leftover.
class FaultLock {
 public:
  // Waits up to `wait_s` seconds for another holder (printing once that it waits);
  // `stop` ends the wait early.
  static StatusOr<std::unique_ptr<FaultLock>> Acquire(double wait_s,
                                                      const std::atomic<bool>* stop = nullptr);
  ~FaultLock();
  FaultLock(const FaultLock&) = delete;
  FaultLock& operator=(const FaultLock&) = delete;

 private:
  explicit FaultLock(int fd) : fd_(fd) {}
  int fd_;
};

// The `cpu` fault: cgroup kCgroup with `quota_us` of CPU per `period_us`.
class CpuQuota {
 public:
  static StatusOr<std::unique_ptr<CpuQuota>> Create(int64_t quota_us, int64_t period_us);
  ~CpuQuota();  // Remove(), errors printed
  // Writing "0" here moves the writing process into the group.
  const std::string& procs_file() const { return procs_file_; }
  const std::string& dir() const { return dir_; }
  Status Remove();

 private:
  CpuQuota() = default;
  std::string dir_, procs_file_;
};

// The `net` fault: namespace kNetns, veth pair kVethRoot (kRootAddress/30) <-> kVethRoute
// (kRouteAddress/30), and `tbf rate RATE burst 32kbit latency 50ms` on kVethRoute's egress,
// which is the direction of route's answers.
class RouteNetwork {
 public:
  static StatusOr<std::unique_ptr<RouteNetwork>> Create(const std::string& rate);
  ~RouteNetwork();  // Remove(), errors printed
  int netns_fd() const { return netns_fd_; }
  Status Remove();

 private:
  RouteNetwork() = default;
  int netns_fd_ = -1;
};

// Removes whatever cw-demo-* resources exist, killing the processes still inside the
// namespace or the cgroup (only a killed run's route service can be there). Call with the
// FaultLock held. Returns what it removed, for the user.
StatusOr<std::vector<std::string>> RemoveLeftovers();

// Whether any cw-demo-* resource exists (for tests and `cleanup`).
std::vector<std::string> ExistingResources();

}  // namespace causeway::demo
