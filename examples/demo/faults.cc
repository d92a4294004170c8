#include "faults.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "process.h"

namespace causeway::demo {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Status WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("cannot open {}: {}", path, strerror(errno)));
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return IoError(fmt::format("cannot write '{}' to {}: {}", text, path, strerror(err)));
  return Status::Ok();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<pid_t> ParsePids(const std::string& text) {
  std::vector<pid_t> pids;
  std::istringstream in(text);
  long pid;
  while (in >> pid)
    if (pid > 0) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

// Kills the listed processes and waits until `still_there` reports none, for up to 3 s.
// They are not our children (a killed run started them), so they cannot be reaped here;
// init does that once they are gone.
template <class F>
Status KillAndWait(const std::vector<pid_t>& pids, const std::string& where, F still_there) {
  for (pid_t p : pids) kill(p, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!still_there().empty()) {
    if (std::chrono::steady_clock::now() > deadline)
      return IoError(fmt::format("processes in {} did not exit after SIGKILL", where));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Ok();
}

// Where the cpu controller is: cgroup v1's own hierarchy, else the v2 unified one.
struct CpuController {
  std::string root;
  bool v2 = false;
};

StatusOr<CpuController> FindCpuController() {
  if (Exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) return CpuController{"/sys/fs/cgroup/cpu"};
  const std::string controllers = ReadFile("/sys/fs/cgroup/cgroup.controllers");
  std::istringstream in(controllers);
  for (std::string c; in >> c;)
    if (c == "cpu") return CpuController{"/sys/fs/cgroup", true};
  return NotFound(
      "no cpu cgroup controller: neither /sys/fs/cgroup/cpu (v1) nor 'cpu' in "
      "/sys/fs/cgroup/cgroup.controllers (v2)");
}

// The group's directory in whichever hierarchy has the cpu controller, if it exists.
std::string ExistingCgroupDir() {
  for (const char* root : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup"}) {
    const std::string dir = fmt::format("{}/{}", root, kCgroup);
    if (Exists(dir)) return dir;
  }
  return "";
}

Status RemoveCgroup(std::vector<std::string>* removed) {
  const std::string dir = ExistingCgroupDir();
  if (dir.empty()) return Status::Ok();
  const std::string procs = dir + "/cgroup.procs";
  RETURN_IF_ERROR(
      KillAndWait(ParsePids(ReadFile(procs)), dir, [&] { return ParsePids(ReadFile(procs)); }));
  // rmdir can fail with EBUSY for a moment after the last task left.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (rmdir(dir.c_str()) != 0) {
    if (errno == ENOENT) break;
    if (errno != EBUSY || std::chrono::steady_clock::now() > deadline)
      return IoError(fmt::format("cannot remove cgroup {}: {}", dir, strerror(errno)));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (removed) removed->push_back("cgroup " + dir);
  return Status::Ok();
}

std::string NetnsPath() { return fmt::format("/run/netns/{}", kNetns); }

Status RemoveNetwork(std::vector<std::string>* removed) {
  if (Exists(NetnsPath())) {
    // A namespace lives on while a process is inside it, and its veth with it.
    auto pids = [] { return ParsePids(ProbeTool({"ip", "netns", "pids", kNetns})); };
    RETURN_IF_ERROR(KillAndWait(pids(), fmt::format("network namespace {}", kNetns), pids));
    RETURN_IF_ERROR(RunTool({"ip", "netns", "delete", kNetns}).status());
    if (removed) removed->push_back(fmt::format("network namespace {}", kNetns));
  }
  // Deleting the namespace destroys the pair (and the qdisc on it), but asynchronously: give
  // the root end a moment to go. It can survive only if the pair was half made.
  const std::string root_end = fmt::format("/sys/class/net/{}", kVethRoot);
  for (int i = 0; i < 100 && Exists(root_end); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (Exists(root_end)) {
    Status s = RunTool({"ip", "link", "delete", kVethRoot}).status();
    if (!s.ok() && Exists(root_end)) return s;  // gone meanwhile is as good as deleted
    if (removed) removed->push_back(fmt::format("link {}", kVethRoot));
  }
  return Status::Ok();
}

}  // namespace

Status CheckRealDisk(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    return NotFound(fmt::format("disk fault directory {}: {}", dir, strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    return InvalidArgument(fmt::format("disk fault directory {} is not a directory", dir));
  struct statfs fsinfo;
  if (statfs(dir.c_str(), &fsinfo) != 0)
    return IoError(fmt::format("statfs {}: {}", dir, strerror(errno)));
  if (fsinfo.f_type == TMPFS_MAGIC || fsinfo.f_type == RAMFS_MAGIC)
    return InvalidArgument(
        fmt::format("disk fault directory {} is in memory ({}), where fsync waits for no disk; "
                    "choose a directory on a disk, e.g. --disk-dir /var/tmp",
                    dir, fsinfo.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs"));
  return Status::Ok();
}

StatusOr<std::unique_ptr<FaultLock>> FaultLock::Acquire(double wait_s,
                                                        const std::atomic<bool>* stop) {
  const int fd = open(kLockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("cannot open {}: {}", kLockFile, strerror(errno)));
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000));
  bool told = false;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      close(fd);
      return IoError(fmt::format("cannot lock {}: {}", kLockFile, strerror(err)));
    }
    if ((stop && *stop) || std::chrono::steady_clock::now() > deadline) {
      close(fd);
      return IoError(fmt::format(
          "another causeway-demo run holds {} (it uses the cw-demo-* namespace and cgroup)",
          kLockFile));
    }
    if (!told) {
      fmt::print(stderr, "causeway-demo: waiting for another run to release {}\n", kLockFile);
      told = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::unique_ptr<FaultLock>(new FaultLock(fd));
}

FaultLock::~FaultLock() { close(fd_); }

StatusOr<std::unique_ptr<CpuQuota>> CpuQuota::Create(int64_t quota_us, int64_t period_us) {
  ASSIGN_OR_RETURN(CpuController c, FindCpuController());
  std::unique_ptr<CpuQuota> q(new CpuQuota());
  q->dir_ = fmt::format("{}/{}", c.root, kCgroup);
  q->procs_file_ = q->dir_ + "/cgroup.procs";
  if (c.v2) {
    // Children of the root get the cpu controller only if the root hands it down.
    std::istringstream in(ReadFile(c.root + "/cgroup.subtree_control"));
    bool on = false;
    for (std::string s; in >> s;) on = on || s == "cpu";
    if (!on) RETURN_IF_ERROR(WriteFile(c.root + "/cgroup.subtree_control", "+cpu"));
  }
  if (mkdir(q->dir_.c_str(), 0755) != 0)
    return IoError(fmt::format("cannot create cgroup {}: {}", q->dir_, strerror(errno)));
  // From here on the destructor removes the group if a later step fails.
  if (c.v2) {
    RETURN_IF_ERROR(WriteFile(q->dir_ + "/cpu.max", fmt::format("{} {}", quota_us, period_us)));
  } else {
    RETURN_IF_ERROR(WriteFile(q->dir_ + "/cpu.cfs_period_us", std::to_string(period_us)));
    RETURN_IF_ERROR(WriteFile(q->dir_ + "/cpu.cfs_quota_us", std::to_string(quota_us)));
  }
  return q;
}

CpuQuota::~CpuQuota() {
  if (Status s = Remove(); !s.ok()) fmt::print(stderr, "causeway-demo: {}\n", s.ToString());
}

Status CpuQuota::Remove() { return RemoveCgroup(nullptr); }

StatusOr<std::unique_ptr<RouteNetwork>> RouteNetwork::Create(const std::string& rate) {
  std::unique_ptr<RouteNetwork> n(new RouteNetwork());
  // Each step is undone by the destructor (RemoveNetwork) if a later one fails.
  const std::string root_cidr = fmt::format("{}/30", kRootAddress);
  const std::string route_cidr = fmt::format("{}/30", kRouteAddress);
  const std::vector<std::vector<std::string>> steps = {
      {"ip", "netns", "add", kNetns},
      {"ip", "link", "add", kVethRoot, "type", "veth", "peer", "name", kVethRoute, "netns", kNetns},
      {"ip", "address", "add", root_cidr, "dev", kVethRoot},
      {"ip", "link", "set", kVethRoot, "up"},
      {"ip", "-n", kNetns, "address", "add", route_cidr, "dev", kVethRoute},
      {"ip", "-n", kNetns, "link", "set", kVethRoute, "up"},
      {"ip", "-n", kNetns, "link", "set", "lo", "up"},
      {"tc", "-n", kNetns, "qdisc", "add", "dev", kVethRoute, "root", "tbf", "rate", rate, "burst",
       "32kbit", "latency", "50ms"},
  };
  for (const auto& step : steps)
    RETURN_IF_ERROR(RunTool(step).status().WithContext("cannot set up the net fault"));
  n->netns_fd_ = open(NetnsPath().c_str(), O_RDONLY | O_CLOEXEC);
  if (n->netns_fd_ < 0)
    return IoError(fmt::format("cannot open {}: {}", NetnsPath(), strerror(errno)));
  return n;
}

RouteNetwork::~RouteNetwork() {
  if (Status s = Remove(); !s.ok()) fmt::print(stderr, "causeway-demo: {}\n", s.ToString());
}

Status RouteNetwork::Remove() {
  if (netns_fd_ >= 0) close(netns_fd_);
  netns_fd_ = -1;
  return RemoveNetwork(nullptr);
}

StatusOr<std::vector<std::string>> RemoveLeftovers() {
  std::vector<std::string> removed;
  const Status net = RemoveNetwork(&removed);
  const Status cpu = RemoveCgroup(&removed);
  RETURN_IF_ERROR(net);
  RETURN_IF_ERROR(cpu);
  return removed;
}

std::vector<std::string> ExistingResources() {
  std::vector<std::string> found;
  if (Exists(NetnsPath())) found.push_back(fmt::format("network namespace {}", kNetns));
  if (Exists(fmt::format("/sys/class/net/{}", kVethRoot)))
    found.push_back(fmt::format("link {}", kVethRoot));
  if (const std::string dir = ExistingCgroupDir(); !dir.empty()) found.push_back("cgroup " + dir);
  return found;
}

}  // namespace causeway::demo
