#include "base/mapped_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace causeway {
namespace {

namespace fs = std::filesystem;

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("causeway-mapped-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(MappedFileTest, TheTextIsTheFilesBytes) {
  std::string bytes = "first line\n";
  bytes += std::string(1, '\0') + "\xff binary tail";
  std::ofstream(dir_ / "a", std::ios::binary) << bytes;
  auto f = MappedFile::Open((dir_ / "a").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->text(), bytes);
  // Moving keeps the mapping valid and leaves the source empty.
  MappedFile g = std::move(*f);
  EXPECT_EQ(g.text(), bytes);
  EXPECT_TRUE(f->text().empty());
}

TEST_F(MappedFileTest, AnEmptyFileGivesAnEmptyText) {
  std::ofstream(dir_ / "empty");
  auto f = MappedFile::Open((dir_ / "empty").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->text().empty());
  EXPECT_NE(f->text().data(), nullptr);
}

TEST_F(MappedFileTest, MissingFilesAndDirectoriesAreErrorsNamingThePath) {
  auto missing = MappedFile::Open((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("nope"), std::string::npos);
  EXPECT_NE(missing.status().ToString().find("No such file"), std::string::npos);
  auto directory = MappedFile::Open(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().ToString().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace causeway
