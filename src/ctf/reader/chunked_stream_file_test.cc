// The stream file medium alone: which bytes a Map brings in, when a chunk is read and when
// one is reused, memory mode, and the errors.
#include "ctf/reader/chunked_stream_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "support/test_util.h"

namespace causeway::ctf {
namespace {

constexpr uint64_t kChunk = ChunkedStreamFile::kChunkBytes;

// Byte i of the test file: varied, so that a wrong offset shows.
uint8_t ByteAt(uint64_t i) { return static_cast<uint8_t>(i * 7 + i / 251); }

std::string WriteFile(const testing::TempDir& tmp, uint64_t size) {
  const std::string path = tmp.path() + "/stream_0";
  std::string bytes(size, '\0');
  for (uint64_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(ByteAt(i));
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// The span holds [offset, offset + size) with the file's bytes.
void ExpectBytes(const ChunkedStreamFile::Span& s, uint64_t offset, uint64_t size) {
  ASSERT_GE(static_cast<uint64_t>(s.end - s.data), size);
  for (uint64_t i = 0; i < size; ++i) ASSERT_EQ(s.data[i], ByteAt(offset + i)) << offset + i;
}

TEST(ChunkedStreamFileTest, MapsWithinAChunkAndReadsANewOneAtItsEnd) {
  testing::TempDir tmp;
  const uint64_t size = 3 * kChunk + 1000;
  ChunkedStreamFile f(WriteFile(tmp, size));
  ASSERT_TRUE(f.Open().ok());
  EXPECT_EQ(f.size(), size);
  EXPECT_TRUE(f.padded());

  ChunkedStreamFile::Span a;
  ASSERT_TRUE(f.Map(0, 100, &a).ok());
  ExpectBytes(a, 0, 100);
  EXPECT_EQ(static_cast<uint64_t>(a.end - a.data), kChunk);  // a whole chunk is read
  // Within that chunk: no read, the same buffer.
  ChunkedStreamFile::Span b;
  ASSERT_TRUE(f.Map(5000, kChunk - 5000, &b).ok());
  EXPECT_EQ(b.data, a.data + 5000);
  EXPECT_EQ(b.end, a.end);
  // Past its end: a chunk starting at the offset asked for, the first one still held.
  ChunkedStreamFile::Span c;
  ASSERT_TRUE(f.Map(kChunk - 10, 20, &c).ok());
  ExpectBytes(c, kChunk - 10, 20);
  EXPECT_EQ(static_cast<uint64_t>(c.end - c.data), kChunk);
  ExpectBytes(a, 0, kChunk);
  // Larger than a chunk: one chunk of that size. The file's end bounds the last one, and
  // zeros follow it.
  ChunkedStreamFile::Span d;
  ASSERT_TRUE(f.Map(kChunk + 10, 2 * kChunk, &d).ok());
  ExpectBytes(d, kChunk + 10, 2 * kChunk);
  ChunkedStreamFile::Span e;
  ASSERT_TRUE(f.Map(3 * kChunk + 900, 100, &e).ok());
  EXPECT_EQ(e.end - e.data, 100);
  ExpectBytes(e, 3 * kChunk + 900, 100);
  for (uint64_t i = 0; i < ChunkedStreamFile::kSlack; ++i) EXPECT_EQ(e.end[i], 0) << i;
}

TEST(ChunkedStreamFileTest, ReusesChunksOnlyBehindTheLimit) {
  testing::TempDir tmp;
  ChunkedStreamFile f(WriteFile(tmp, 8 * kChunk));
  ASSERT_TRUE(f.Open().ok());
  ChunkedStreamFile::Span first, second;
  ASSERT_TRUE(f.Map(0, 10, &first).ok());
  ASSERT_TRUE(f.Map(kChunk, 10, &second).ok());
  EXPECT_NE(first.data, second.data);

  // Another reader is not past the first chunk yet: it stays, and the next read takes a
  // new buffer.
  f.LimitReleaseTo(kChunk - 1);
  f.ReleaseBehind(2 * kChunk);
  ChunkedStreamFile::Span third;
  ASSERT_TRUE(f.Map(2 * kChunk, 10, &third).ok());
  EXPECT_NE(third.data, first.data);
  ExpectBytes(first, 0, kChunk);

  // Once it is, the first chunk's buffer serves the next read.
  f.LimitReleaseTo(kChunk);
  f.ReleaseBehind(3 * kChunk);
  ChunkedStreamFile::Span fourth;
  ASSERT_TRUE(f.Map(3 * kChunk, 10, &fourth).ok());
  EXPECT_EQ(fourth.data, first.data);
  ExpectBytes(fourth, 3 * kChunk, kChunk);
  // The chunk behind the cursor but not behind the limit is still held.
  ExpectBytes(second, kChunk, kChunk);
}

TEST(ChunkedStreamFileTest, ReadsOnlyWhatIsAskedWhenTold) {
  testing::TempDir tmp;
  ChunkedStreamFile f(WriteFile(tmp, 4 * kChunk));
  ASSERT_TRUE(f.Open().ok());
  f.ReadOnlyWhatIsAsked();
  ChunkedStreamFile::Span s;
  ASSERT_TRUE(f.Map(kChunk, 64, &s).ok());
  EXPECT_EQ(s.end - s.data, 64);
  ExpectBytes(s, kChunk, 64);
}

TEST(ChunkedStreamFileTest, MemoryIsServedInPlace) {
  std::string bytes(1000, '\0');
  for (uint64_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(ByteAt(i));
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  ChunkedStreamFile f("fuzz input");
  f.OpenMemory(data, bytes.size());
  EXPECT_EQ(f.size(), 1000u);
  EXPECT_FALSE(f.padded());
  EXPECT_EQ(f.path(), "fuzz input");
  ChunkedStreamFile::Span s;
  ASSERT_TRUE(f.Map(300, 10, &s).ok());
  EXPECT_EQ(s.data, data + 300);
  EXPECT_EQ(s.end, data + 1000);
}

TEST(ChunkedStreamFileTest, ErrorsNameTheFileAndTheByte) {
  testing::TempDir tmp;
  ChunkedStreamFile missing(tmp.path() + "/no_such_stream");
  const Status s = missing.Open();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find(tmp.path() + "/no_such_stream"), std::string::npos) << s.ToString();

  // A file cut short after it was opened: the read names the byte where it now ends.
  const std::string path = WriteFile(tmp, 2 * kChunk);
  ChunkedStreamFile f(path);
  ASSERT_TRUE(f.Open().ok());
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(kChunk + 123)), 0);
  ChunkedStreamFile::Span span;
  ASSERT_TRUE(f.Map(0, 10, &span).ok());
  const Status cut = f.Map(kChunk, 10, &span);
  EXPECT_EQ(cut.code(), StatusCode::kDataLoss) << cut.ToString();
  EXPECT_NE(cut.ToString().find(std::to_string(kChunk + 123)), std::string::npos) << cut.ToString();
}

}  // namespace
}  // namespace causeway::ctf
