#include "record/cgroup_paths.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/test_util.h"

namespace causeway::record {
namespace {

ino_t Inode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

// A mount table naming a directory tree as the cpu controller's hierarchy: a cgroup's id
// is its directory's inode number, so the tree stands in for a cgroup file system.
TEST(CgroupPathsTest, IdsArePathsInTheCpuHierarchy) {
  testing::TempDir tmp;
  const std::string cpu = tmp.path() + "/cpu", memory = tmp.path() + "/memory";
  std::filesystem::create_directories(cpu + "/demo/inner");
  std::filesystem::create_directories(memory + "/demo");
  const std::string mountinfo = tmp.path() + "/mountinfo";
  std::ofstream(mountinfo) << "35 31 0:32 / " << memory
                           << " rw,relatime - cgroup cgroup rw,memory\n"
                           << "40 31 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
                           << "32 31 0:29 / " << cpu
                           << " rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n";
  CgroupPaths paths(mountinfo);
  EXPECT_EQ(paths.Path(Inode(cpu + "/demo/inner"), "inner"), "/demo/inner");
  EXPECT_EQ(paths.Path(Inode(cpu + "/demo"), "demo"), "/demo");
  EXPECT_EQ(paths.Path(Inode(cpu), ""), "/");
  // A cgroup made after the first walk is found by the next one.
  std::filesystem::create_directories(cpu + "/later");
  EXPECT_EQ(paths.Path(Inode(cpu + "/later"), "later"), "/later");
  // Not in the cpu hierarchy (another controller's, or removed): the kernel's name stays.
  EXPECT_EQ(paths.Path(Inode(memory + "/demo"), "demo"), "demo");
}

TEST(CgroupPathsTest, Cgroup2WhenNoV1CpuMount) {
  testing::TempDir tmp;
  const std::string unified = tmp.path() + "/unified";
  std::filesystem::create_directories(unified + "/svc.slice/web");
  const std::string mountinfo = tmp.path() + "/mountinfo";
  std::ofstream(mountinfo) << "40 31 0:37 / " << unified << " rw - cgroup2 cgroup2 rw\n";
  CgroupPaths paths(mountinfo);
  EXPECT_EQ(paths.Path(Inode(unified + "/svc.slice/web"), "web"), "/svc.slice/web");
}

}  // namespace
}  // namespace causeway::record
