// The path of a cgroup of the cpu controller from its kernfs id, as the recorder's
// cw_cfs_throttle records give it: "/demo" rather than an opaque number.
//
// A cgroup's kernfs id is the inode number of its directory, so the hierarchy that holds
// the cpu controller (a cgroup v1 mount with the cpu option, else the cgroup2 mount) is
// walked once and again when an unknown id arrives; ids are unique within one hierarchy
// only, hence the choice of one. An id still unknown (the cgroup was removed meanwhile)
// keeps the name the kernel side copied.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace causeway::record {

class CgroupPaths {
 public:
  // `mountinfo`: the mount table to read (tests give their own).
  explicit CgroupPaths(std::string mountinfo = "/proc/self/mountinfo")
      : mountinfo_(std::move(mountinfo)) {}
  // The cgroup's path inside its hierarchy ("/demo"), else `name`.
  std::string Path(uint64_t id, std::string_view name);

 private:
  void Scan();
  std::string mountinfo_;
  std::unordered_map<uint64_t, std::string> paths_;
};

}  // namespace causeway::record
