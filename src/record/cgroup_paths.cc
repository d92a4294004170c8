#include "record/cgroup_paths.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace causeway::record {

namespace {

// The mount point of the hierarchy holding the cpu controller: a cgroup v1 mount whose
// options name `cpu`, else the cgroup2 mount; empty when there is none.
std::string CpuHierarchy(const std::string& mountinfo) {
  std::ifstream in(mountinfo);
  std::string line, v2;
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
    std::istringstream s(line);
    std::vector<std::string> f;
    for (std::string x; s >> x;) f.push_back(x);
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 3 >= f.size()) continue;
    const std::string& fstype = f[dash + 1];
    if (fstype == "cgroup2" && v2.empty()) v2 = f[4];
    if (fstype != "cgroup") continue;
    std::istringstream opts(f[dash + 3]);
    for (std::string o; std::getline(opts, o, ',');)
      if (o == "cpu") return f[4];
  }
  return v2;
}

}  // namespace

void CgroupPaths::Scan() {
  const std::string root = CpuHierarchy(mountinfo_);
  if (root.empty()) return;
  namespace fs = std::filesystem;
  auto add = [&](const fs::path& dir) {
    struct stat st;
    if (stat(dir.c_str(), &st) != 0) return;
    std::string rel = dir.string().substr(root.size());
    paths_[st.st_ino] = rel.empty() ? "/" : rel;
  };
  add(root);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) add(it->path());
}

std::string CgroupPaths::Path(uint64_t id, std::string_view name) {
  auto it = paths_.find(id);
  if (it == paths_.end()) {
    Scan();
    it = paths_.find(id);
    // Not found again: remember the name, so that a cgroup gone does not cost a walk per
    // record.
    if (it == paths_.end()) it = paths_.emplace(id, std::string(name)).first;
  }
  return it->second;
}

}  // namespace causeway::record
