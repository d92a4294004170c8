#include "record/control_socket.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::record {
namespace {

// With umask 000 the socket would be 0777: any local user could ask for snapshots.
TEST(ControlSocketTest, SocketIsOwnerOnlyWhateverTheUmask) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/control.sock";
  const mode_t old_umask = ::umask(0);
  auto sock = ControlSocket::Listen(path);
  const mode_t during = ::umask(old_umask);
  ASSERT_TRUE(sock.ok()) << sock.status().ToString();
  EXPECT_EQ(during, 0u) << "the caller's umask is given back";
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  sock->reset();
  EXPECT_FALSE(std::filesystem::exists(path)) << "removed when the recorder stops";
}

// Bound through another name of the directory (the recorder's /proc/self/fd/N), found and
// removed at its own path.
TEST(ControlSocketTest, BindsThroughTheGivenName) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/control.sock";
  const std::string link = tmp.path() + "/alias";
  std::filesystem::create_directory_symlink(tmp.path(), link);
  auto sock = ControlSocket::Listen(path, link + "/control.sock");
  ASSERT_TRUE(sock.ok()) << sock.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ((*sock)->path(), path);
  sock->reset();
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace causeway::record
