// Helpers shared by causeway-client's tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace causeway::client::testing {

// A fresh directory under the test temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("causeway-client-" + std::string(info->name()) + "-" + std::to_string(getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The documents of a JSON Lines file (the OTLP file format), one per non-empty line; a line
// that does not parse fails the test. `while_written`: the file is read while a writer
// appends to it, so a last line without its newline is one still being written (a reader
// can see a line's first pages before the rest) and is left for the next read.
inline std::vector<nlohmann::json> ReadJsonLines(const std::string& path,
                                                 bool while_written = false) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (while_written) text.erase(text.find_last_of('\n') + 1);  // npos + 1 == 0: all of it
  std::vector<nlohmann::json> docs;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (line.empty()) continue;
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << path << " line " << n << " is not JSON";
    docs.push_back(std::move(doc));
  }
  return docs;
}

// Every span of an OTLP JSON Lines file, in file order (`while_written`: see ReadJsonLines).
inline std::vector<nlohmann::json> ReadOtlpSpans(const std::string& path,
                                                 bool while_written = false) {
  std::vector<nlohmann::json> spans;
  for (const nlohmann::json& doc : ReadJsonLines(path, while_written))
    for (const nlohmann::json& rs : doc["resourceSpans"])
      for (const nlohmann::json& ss : rs["scopeSpans"])
        for (const nlohmann::json& sp : ss["spans"]) spans.push_back(sp);
  return spans;
}

}  // namespace causeway::client::testing
