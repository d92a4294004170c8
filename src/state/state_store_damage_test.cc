// Damaged and foreign files are refused with the path and the reason, never read.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "state/state_format.h"
#include "state/state_store.h"
#include "support/test_util.h"

namespace causeway::state {
namespace {

class DamagedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = StateWriter::Create(good_);
    ASSERT_TRUE(w.ok());
    const AttributeId a = (*w)->Attribute("hosts/h0/threads/1/state");
    const AttributeId b = (*w)->Attribute("hosts/h0/cpus/0/thread");
    const StringRef run = (*w)->Intern("RUNNING");
    for (int i = 0; i < 12; ++i) {
      (*w)->Set(a, i * 10, i % 3 ? StateValue::String(run) : StateValue::Int(i));
      (*w)->Add(b, i * 10, i * 10 + 5, StateValue::Int(i));
    }
    ASSERT_TRUE((*w)->Finish(120).ok());
    std::ifstream in(good_, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
    ASSERT_GT(bytes_.size(), 200u);
    ASSERT_LT(bytes_.size(), 1000u);  // small: every byte is flipped below
  }

  // Writes `bytes` and opens them; the error (empty when it opened).
  std::string OpenBytes(const std::string& bytes) {
    // Rewritten in place, not truncated to zero first: ext4 flushes a file truncated to
    // zero when it is closed, which would make the tests below take seconds.
    const int fd = open(bad_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(pwrite(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(bytes.size())), 0);
    close(fd);
    auto s = StateStore::Open(bad_);
    if (s.ok()) return "";
    return s.status().ToString();
  }

  causeway::testing::TempDir dir_;
  std::string good_ = dir_.path() + "/good.cws";
  std::string bad_ = dir_.path() + "/bad.cws";
  std::string bytes_;
};

TEST_F(DamagedStoreTest, TheIntactFileOpens) { EXPECT_EQ(OpenBytes(bytes_), ""); }

TEST_F(DamagedStoreTest, AFlippedByteInANodeIsRefused) {
  std::string b = bytes_;
  b[format::kHeaderBytes + sizeof(format::NodeHeader) + 3] ^= 0x10;
  const std::string error = OpenBytes(b);
  EXPECT_NE(error.find("Cannot open state store: file=" + bad_), std::string::npos) << error;
  EXPECT_NE(error.find("checksum mismatch in node at offset 16"), std::string::npos) << error;
}

TEST_F(DamagedStoreTest, AFlippedByteInTheIndexIsRefused) {
  std::string b = bytes_;
  b[b.size() - sizeof(format::Footer) - 20] ^= 0x01;
  const std::string error = OpenBytes(b);
  EXPECT_NE(error.find("checksum mismatch in the index"), std::string::npos) << error;
  EXPECT_NE(error.find(bad_), std::string::npos) << error;
}

TEST_F(DamagedStoreTest, EveryFlippedByteIsRefused) {
  for (size_t i = 0; i < bytes_.size(); ++i) {
    std::string b = bytes_;
    b[i] ^= 0x40;
    const std::string error = OpenBytes(b);
    ASSERT_NE(error, "") << "byte " << i << " of " << bytes_.size() << " flipped, still opened";
    ASSERT_NE(error.find(bad_), std::string::npos) << error;
  }
}

TEST_F(DamagedStoreTest, EveryCutFileIsRefused) {
  for (size_t size = 0; size < bytes_.size(); ++size) {
    const std::string error = OpenBytes(bytes_.substr(0, size));
    ASSERT_NE(error, "") << "cut at " << size;
  }
  EXPECT_NE(OpenBytes(bytes_.substr(0, bytes_.size() - 1)).find("no footer"), std::string::npos);
  EXPECT_NE(OpenBytes("").find("empty file"), std::string::npos);
}

TEST_F(DamagedStoreTest, AnotherMagicOrVersionIsRefused) {
  std::string b = bytes_;
  b.replace(0, 8, "SQLite f");
  EXPECT_NE(OpenBytes(b).find("not a state store"), std::string::npos) << OpenBytes(b);
  b = bytes_;
  b[8] = 2;  // the header's version
  EXPECT_NE(OpenBytes(b).find("format version 2, this program reads version 1"), std::string::npos)
      << OpenBytes(b);
}

TEST_F(DamagedStoreTest, AMissingFileIsNamed) {
  auto s = StateStore::Open(dir_.path() + "/none.cws");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(s.status().ToString().find("none.cws"), std::string::npos);
}

TEST_F(DamagedStoreTest, ADirectoryIsRefused) {
  auto s = StateStore::Open(dir_.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().ToString().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace causeway::state
