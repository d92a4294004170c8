#include "ctf/metadata/metadata_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace causeway::ctf {
namespace {

namespace fs = std::filesystem;

std::string ReadDataFile(const std::string& name) {
  std::ifstream in(std::string(CAUSEWAY_TEST_DATA) + "/metadata/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory holding `bytes` as its `metadata` file; removed on destruction.
class TraceDir {
 public:
  explicit TraceDir(const std::string& bytes) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(::testing::TempDir()) /
            ("causeway_metadata_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
    std::ofstream out(path_ / "metadata", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ~TraceDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TraceDir(const TraceDir&) = delete;
  TraceDir& operator=(const TraceDir&) = delete;
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

void Put32(std::string* out, uint32_t v, bool big_endian) {
  for (int i = 0; i < 4; ++i) {
    int shift = big_endian ? 8 * (3 - i) : 8 * i;
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

struct PacketSpec {
  std::string text;
  bool big_endian = false;
  uint32_t packet_bytes = 64;  // 0: header + text exactly
  int64_t content_bits = -1;   // -1: header + text
  uint8_t compression = 0;
  uint8_t encryption = 0;
  uint32_t magic = kMetadataPacketMagic;
};

std::string Packet(const PacketSpec& p) {
  std::string out;
  uint32_t content = p.content_bits >= 0
                         ? static_cast<uint32_t>(p.content_bits)
                         : static_cast<uint32_t>((kMetadataPacketHeaderSize + p.text.size()) * 8);
  uint32_t packet_bytes = p.packet_bytes
                              ? p.packet_bytes
                              : static_cast<uint32_t>(kMetadataPacketHeaderSize + p.text.size());
  Put32(&out, p.magic, p.big_endian);
  out.append(16, '\x42');        // uuid
  Put32(&out, 0, p.big_endian);  // checksum
  Put32(&out, content, p.big_endian);
  Put32(&out, packet_bytes * 8, p.big_endian);
  out.push_back(static_cast<char>(p.compression));
  out.push_back(static_cast<char>(p.encryption));
  out.push_back(0);  // checksum scheme
  out.push_back(1);  // major
  out.push_back(8);  // minor
  out += p.text;
  if (out.size() < packet_bytes) out.append(packet_bytes - out.size(), '\0');
  return out;
}

TEST(MetadataFileTest, ReadsPacketizedLttngMetadata) {
  std::string bytes = ReadDataFile("hello-lost.metadata");
  EXPECT_TRUE(IsPacketizedMetadata(bytes));
  TraceDir dir(bytes);
  auto text = ReadMetadataText(dir.path());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->size(), 3849u);
  EXPECT_EQ(
      text->rfind("typealias integer { size = 8; align = 8; signed = false; } := uint8_t;", 0), 0u);
  EXPECT_EQ(text->find('\0'), std::string::npos);
  EXPECT_EQ(text->substr(text->size() - 5), "\n};\n\n");
}

TEST(MetadataFileTest, DecodesAllPacketsOfLargeMetadata) {
  // 76 packets of 4096 bytes, each partly filled.
  std::string bytes = ReadDataFile("many-threads.metadata");
  ASSERT_EQ(bytes.size(), 76u * 4096u);
  auto text = DecodeMetadataPackets(bytes, "many-threads");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->size(), 304669u);
  EXPECT_EQ(text->find('\0'), std::string::npos);
  EXPECT_NE(text->find("hostname = \"wilbrod\";"), std::string::npos);
  // Text spanning a packet boundary is joined back: every event block is complete.
  size_t opened = 0, closed = 0;
  for (size_t p = text->find("event {"); p != std::string::npos; p = text->find("event {", p + 1))
    ++opened;
  for (size_t p = text->find("fields := struct {"); p != std::string::npos;
       p = text->find("fields := struct {", p + 1))
    ++closed;
  EXPECT_EQ(opened, 1181u);
  EXPECT_EQ(closed, 1181u);
}

TEST(MetadataFileTest, ReadsPlainTextMetadataUnchanged) {
  std::string bytes = ReadDataFile("perf.metadata");
  EXPECT_FALSE(IsPacketizedMetadata(bytes));
  TraceDir dir(bytes);
  auto text = ReadMetadataText(dir.path());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, bytes);
  EXPECT_EQ(text->rfind("/* CTF 1.8 */", 0), 0u);
}

TEST(MetadataFileTest, EmptyFileIsEmptyText) {
  TraceDir dir("");
  auto text = ReadMetadataText(dir.path());
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "");
}

TEST(MetadataFileTest, MissingFileIsNotFound) {
  auto text = ReadMetadataText("/nonexistent/trace");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(text.status().ToString(),
            "Cannot open metadata: file=/nonexistent/trace/metadata: No such file or directory");
}

TEST(MetadataFileTest, BothByteOrdersAndPadding) {
  std::string bytes = Packet({.text = "trace { major = 1; ", .big_endian = true}) +
                      Packet({.text = "minor = 8; };\n", .big_endian = false, .packet_bytes = 0}) +
                      Packet({.text = "", .big_endian = true, .packet_bytes = 40});
  EXPECT_TRUE(IsPacketizedMetadata(bytes));
  auto text = DecodeMetadataPackets(bytes, "/x/metadata");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "trace { major = 1; minor = 8; };\n");
}

TEST(MetadataFileTest, LastPacketWithoutItsPaddingIsAccepted) {
  std::string bytes = Packet({.text = "abc", .packet_bytes = 4096});
  bytes.resize(kMetadataPacketHeaderSize + 3);
  auto text = DecodeMetadataPackets(bytes, "/x/metadata");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "abc");
}

TEST(MetadataFileTest, ContentLargerThanPacket) {
  std::string bytes = Packet({.text = "x", .packet_bytes = 4096}) +
                      Packet({.text = "y", .packet_bytes = 4096, .content_bits = 99999});
  auto text = DecodeMetadataPackets(bytes, "/x/metadata");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(text.status().ToString(),
            "Cannot read metadata packet: file=/x/metadata, offset=4096: content_size 99999 "
            "exceeds packet_size 32768");
}

TEST(MetadataFileTest, CorruptPackets) {
  auto error = [](const std::string& bytes) {
    auto text = DecodeMetadataPackets(bytes, "/x/metadata");
    EXPECT_FALSE(text.ok());
    return text.ok() ? "" : text.status().ToString();
  };
  EXPECT_EQ(error(Packet({.text = "a"}) + std::string(10, 'z')),
            "Cannot read metadata packet: file=/x/metadata, offset=64: truncated packet header "
            "(10 bytes left, the header has 37)");
  EXPECT_EQ(error(Packet({.text = "a"}) + Packet({.text = "b", .magic = 0x12345678})),
            "Cannot read metadata packet: file=/x/metadata, offset=64: bad magic 0x12345678 "
            "(expected 0x75d11d57)");
  EXPECT_EQ(error(Packet({.text = "a", .content_bits = 96})),
            "Cannot read metadata packet: file=/x/metadata, offset=0: content_size 96 is "
            "smaller than the 296-bit packet header");
  EXPECT_EQ(error(Packet({.text = "a", .content_bits = 301})),
            "Cannot read metadata packet: file=/x/metadata, offset=0: content_size 301 or "
            "packet_size 512 is not a whole number of bytes");
  std::string cut = Packet({.text = "abcdef", .packet_bytes = 64});
  cut.resize(kMetadataPacketHeaderSize + 2);
  EXPECT_EQ(error(cut),
            "Cannot read metadata packet: file=/x/metadata, offset=0: content_size 344 goes past "
            "the end of the file (39 bytes left)");
}

TEST(MetadataFileTest, CompressionAndEncryptionAreUnimplemented) {
  auto compressed = DecodeMetadataPackets(Packet({.text = "a", .compression = 1}), "/x/metadata");
  ASSERT_FALSE(compressed.ok());
  EXPECT_EQ(compressed.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(compressed.status().ToString(),
            "Cannot read metadata packet: file=/x/metadata, offset=0: compressed metadata packets "
            "are not supported (compression_scheme 1)");
  auto encrypted = DecodeMetadataPackets(Packet({.text = "a", .encryption = 2}), "/x/metadata");
  ASSERT_FALSE(encrypted.ok());
  EXPECT_EQ(encrypted.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(encrypted.status().ToString(),
            "Cannot read metadata packet: file=/x/metadata, offset=0: encrypted metadata packets "
            "are not supported (encryption_scheme 2)");
}

}  // namespace
}  // namespace causeway::ctf
