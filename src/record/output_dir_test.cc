#include "record/output_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::record {
namespace {

namespace fs = std::filesystem;

uint32_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(OutputDirTest, ModesAreExactWhateverTheUmask) {
  testing::TempDir tmp;
  const mode_t old_umask = ::umask(0);
  auto priv = OpenOutputDirectory(tmp.path() + "/a/rec", 0700);
  auto wide = OpenOutputDirectory(tmp.path() + "/wide", 0755);
  ::umask(old_umask);
  ASSERT_TRUE(priv.ok()) << priv.status().ToString();
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ(ModeOf(tmp.path() + "/a/rec"), 0700u);
  EXPECT_EQ(ModeOf(tmp.path() + "/wide"), 0755u);
  auto folder = MakeFolder(*priv, tmp.path() + "/a/rec", "kernel", 0700);
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_EQ(ModeOf(tmp.path() + "/a/rec/kernel"), 0700u);
  EXPECT_EQ(FileModeOf(0700), 0600u);
  EXPECT_EQ(FileModeOf(0755), 0644u);

  // An existing empty directory of ours is narrowed to the recording's mode.
  fs::create_directory(tmp.path() + "/open");
  fs::permissions(tmp.path() + "/open", fs::perms::all);
  ASSERT_TRUE(OpenOutputDirectory(tmp.path() + "/open", 0700).ok());
  EXPECT_EQ(ModeOf(tmp.path() + "/open"), 0700u);
}

TEST(OutputDirTest, LinksAreNeverFollowed) {
  testing::TempDir tmp;
  fs::create_directory(tmp.path() + "/elsewhere");
  fs::create_directory_symlink(tmp.path() + "/elsewhere", tmp.path() + "/rec");
  auto linked = OpenOutputDirectory(tmp.path() + "/rec", 0700);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().ToString().find("is a symbolic link"), std::string::npos)
      << linked.status().ToString();

  auto dir = OpenOutputDirectory(tmp.path() + "/real", 0700);
  ASSERT_TRUE(dir.ok());
  fs::create_directory_symlink(tmp.path() + "/elsewhere", tmp.path() + "/real/snapshot-1");
  bool existed = false;
  auto folder = MakeFolder(*dir, tmp.path() + "/real", "snapshot-1", 0700, &existed);
  EXPECT_FALSE(folder.ok());
  EXPECT_TRUE(existed);
  EXPECT_TRUE(fs::is_empty(tmp.path() + "/elsewhere"));
}

TEST(OutputDirTest, AnotherUsersDirectoryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "Skipped: needs root to give a directory to nobody";
  testing::TempDir tmp;
  const std::string theirs = tmp.path() + "/theirs";
  fs::create_directory(theirs);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  auto dir = OpenOutputDirectory(theirs, 0700);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().ToString().find("belongs to another user (uid 65534)"), std::string::npos)
      << dir.status().ToString();
  EXPECT_TRUE(fs::is_empty(theirs));
}

TEST(OutputDirTest, ExistingFilesAreNeverMixedIn) {
  testing::TempDir tmp;
  fs::create_directory(tmp.path() + "/full");
  std::ofstream(tmp.path() + "/full/old") << "x";
  auto dir = OpenOutputDirectory(tmp.path() + "/full", 0700);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().ToString().find("is not empty"), std::string::npos);
  std::ofstream(tmp.path() + "/file") << "x";
  EXPECT_FALSE(OpenOutputDirectory(tmp.path() + "/file", 0700).ok());
}

}  // namespace
}  // namespace causeway::record
