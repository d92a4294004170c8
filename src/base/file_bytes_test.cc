#include "base/file_bytes.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace causeway {
namespace {

namespace fs = std::filesystem;

class FileBytesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("causeway-file-bytes-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileBytesTest, TheTextIsTheFilesBytes) {
  std::string bytes = "first line\n";
  bytes += std::string(1, '\0') + "\xff binary tail";
  std::ofstream(dir_ / "a", std::ios::binary) << bytes;
  auto f = FileBytes::Read((dir_ / "a").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->text(), bytes);
  // Moving keeps the bytes and leaves the source empty.
  FileBytes g = std::move(*f);
  EXPECT_EQ(g.text(), bytes);
  EXPECT_TRUE(f->text().empty());
}

TEST_F(FileBytesTest, AnEmptyFileGivesAnEmptyText) {
  std::ofstream(dir_ / "empty");
  auto f = FileBytes::Read((dir_ / "empty").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->text().empty());
  EXPECT_NE(f->text().data(), nullptr);
}

TEST_F(FileBytesTest, MissingFilesAndDirectoriesAreErrorsNamingThePath) {
  auto missing = FileBytes::Read((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("nope"), std::string::npos);
  EXPECT_NE(missing.status().ToString().find("No such file"), std::string::npos);
  auto directory = FileBytes::Read(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().ToString().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace causeway
