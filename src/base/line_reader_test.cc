#include "base/line_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace causeway {
namespace {

namespace fs = std::filesystem;

struct Line {
  std::string text;
  uint64_t offset;
  uint64_t number;
  bool unterminated;
  bool operator==(const Line&) const = default;
};

std::vector<Line> AllLines(LineReader& r) {
  std::vector<Line> out;
  std::string_view line;
  while (r.Next(&line))
    out.push_back(
        {std::string(line), r.line_offset(), r.line_number(), r.last_line_unterminated()});
  return out;
}

// The lines as the format defines them: split at '\n', the last one kept if not empty.
std::vector<Line> Expected(const std::string& text) {
  std::vector<Line> out;
  uint64_t begin = 0, number = 0;
  while (begin < text.size()) {
    const size_t nl = text.find('\n', begin);
    const bool last = nl == std::string::npos;
    const size_t end = last ? text.size() : nl;
    out.push_back({text.substr(begin, end - begin), begin, ++number, last});
    begin = end + 1;
  }
  return out;
}

class LineReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("causeway-line-reader-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  fs::path dir_;
};

// Random texts (short and long lines, blank lines, '\r', a last line with or without '\n')
// read from files through windows smaller and larger than their lines give the lines a
// plain split gives, at the same offsets; so does the text read from memory.
TEST_F(LineReaderTest, WindowsOfAnySizeGiveTheSameLines) {
  std::mt19937 rng(7);
  for (int round = 0; round < 60; ++round) {
    std::string text;
    const int lines = static_cast<int>(rng() % 20);
    for (int i = 0; i < lines; ++i) {
      const size_t length = rng() % 4 == 0 ? rng() % 300 : rng() % 12;
      for (size_t k = 0; k < length; ++k) text += static_cast<char>('a' + rng() % 26);
      if (rng() % 5 == 0) text += '\r';
      if (i + 1 < lines || rng() % 2) text += '\n';
    }
    const std::string path = Write("t" + std::to_string(round), text);
    const std::vector<Line> want = Expected(text);
    for (size_t window : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{4096}}) {
      auto r = LineReader::Open(path, window);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ((*r)->size(), text.size());
      EXPECT_EQ(AllLines(**r), want) << "round " << round << " window " << window;
      EXPECT_TRUE((*r)->status().ok()) << (*r)->status().ToString();
    }
    auto memory = LineReader::OfText(text);
    EXPECT_EQ(AllLines(*memory), want) << "round " << round << " from memory";
  }
}

// The bytes a line's buffer holds after it (what a parser may read as padding) are the
// input that follows the line, whatever the window.
TEST_F(LineReaderTest, BytesAfterALineAreTheInputThatFollowsIt) {
  std::mt19937 rng(11);
  for (int round = 0; round < 30; ++round) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < lines; ++i) {
      const size_t length = rng() % 3 == 0 ? rng() % 200 : rng() % 10;
      for (size_t k = 0; k < length; ++k) text += static_cast<char>('a' + rng() % 26);
      if (i + 1 < lines || rng() % 2) text += '\n';
    }
    const std::string path = Write("after" + std::to_string(round), text);
    for (size_t window : {size_t{1}, size_t{16}, size_t{256}, size_t{4096}}) {
      auto r = LineReader::Open(path, window);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      std::string_view line;
      size_t some_after = 0;
      while ((*r)->Next(&line)) {
        const size_t after = (*r)->bytes_after_line();
        const size_t end = (*r)->line_offset() + line.size();
        ASSERT_LE(end + after, text.size());
        EXPECT_EQ(std::string_view(line.data() + line.size(), after), text.substr(end, after))
            << "round " << round << " window " << window << " line " << (*r)->line_number();
        if ((*r)->last_line_unterminated()) {
          EXPECT_EQ(after, 0u);
        }
        some_after += after;
      }
      if (window == 4096 && lines > 1) {
        EXPECT_GT(some_after, 0u);
      }
    }
    auto memory = LineReader::OfText(text);
    std::string_view line;
    while (memory->Next(&line)) {
      const size_t end = memory->line_offset() + line.size();
      EXPECT_EQ(memory->bytes_after_line(), text.size() - end);
    }
  }
}

TEST_F(LineReaderTest, EmptyInputsHaveNoLines) {
  std::string_view line;
  auto file = LineReader::Open(Write("empty", ""));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_FALSE((*file)->Next(&line));
  EXPECT_TRUE((*file)->status().ok());
  EXPECT_FALSE(LineReader::OfText(std::string_view())->Next(&line));
  // A lone newline is one empty line, terminated.
  auto newline = LineReader::Open(Write("newline", "\n"), 1);
  ASSERT_TRUE(newline.ok());
  EXPECT_EQ(AllLines(**newline), (std::vector<Line>{{"", 0, 1, false}}));
}

TEST_F(LineReaderTest, MissingFilesAndDirectoriesAreErrorsNamingThePath) {
  auto missing = LineReader::Open((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("nope"), std::string::npos);
  auto directory = LineReader::Open(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().ToString().find("not a regular file"), std::string::npos);
}

// A file cut short after it was opened: the lines read before stay good, then an error
// naming the file and the byte where it ended — not a shorter file read as if whole.
TEST_F(LineReaderTest, AFileCutShortWhileReadIsAnErrorNamingTheByte) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string path = Write("cut", text);
  auto r = LineReader::Open(path, 64);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::string_view line;
  ASSERT_TRUE((*r)->Next(&line));
  EXPECT_EQ(line, "line 0");
  fs::resize_file(path, 300);
  int more = 0;
  while ((*r)->Next(&line)) ++more;
  EXPECT_LT(more, 60);
  const std::string error = (*r)->status().ToString();
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("ends at byte 300"), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(text.size())), std::string::npos) << error;
}

}  // namespace
}  // namespace causeway
