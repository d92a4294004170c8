#include "server/access.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace causeway::server {
namespace {

TEST(AccessTest, BearerTokenMustMatchExactly) {
  EXPECT_TRUE(BearerTokenMatches("Bearer abc123", "abc123"));
  EXPECT_TRUE(BearerTokenMatches("bearer abc123", "abc123"));  // the scheme ignores case
  EXPECT_FALSE(BearerTokenMatches("Bearer abc12", "abc123"));
  EXPECT_FALSE(BearerTokenMatches("Bearer abc1234", "abc123"));
  EXPECT_FALSE(BearerTokenMatches("Bearer ABC123", "abc123"));
  EXPECT_FALSE(BearerTokenMatches("Basic abc123", "abc123"));
  EXPECT_FALSE(BearerTokenMatches("", "abc123"));
  EXPECT_FALSE(BearerTokenMatches("Bearer ", ""));  // no token configured: nothing matches
}

TEST(AccessTest, LoopbackAddresses) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackAddress("::1"));
  EXPECT_TRUE(IsLoopbackAddress("localhost"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackAddress("::"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackAddress("1270.0.0.1"));
}

TEST(AccessTest, PathsResolvedInsideTheRootsOnly) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("causeway-access-" + std::to_string(getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "root" / "trace");
  fs::create_directories(base / "rootx");  // shares the root's name as a prefix
  fs::create_directories(base / "outside");
  fs::create_directory_symlink(base / "outside", base / "root" / "link");
  auto roots = AllowedRoots::Make({(base / "root").string()});
  ASSERT_TRUE(roots.ok());
  EXPECT_TRUE(roots->Resolve((base / "root" / "trace").string()).ok());
  EXPECT_TRUE(roots->Resolve((base / "root").string()).ok());
  EXPECT_EQ(roots->Resolve((base / "rootx").string()).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(roots->Resolve((base / "root" / ".." / "outside").string()).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(roots->Resolve((base / "root" / "link").string()).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(roots->Resolve((base / "root" / "missing").string()).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(roots->Resolve("/etc/passwd").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(roots->Resolve("").status().code(), StatusCode::kInvalidArgument);
  fs::remove_all(base);
}

}  // namespace
}  // namespace causeway::server
