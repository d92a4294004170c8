#include "analysis/recording_analysis.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::analysis {
namespace {

namespace fs = std::filesystem;

TEST(RecordingAnalysisTest, DefaultSpansAreBesideOrInsideEachTraceDirectory) {
  testing::TempDir tmp;
  const fs::path root(tmp.path());
  fs::create_directories(root / "a" / "kernel");
  fs::create_directories(root / "a" / "spans");
  fs::create_directories(root / "b" / "spans");
  fs::create_directories(root / "c" / "kernel");
  const std::vector<std::string> found =
      DefaultSpans({(root / "b").string(), (root / "a" / "kernel").string(), (root / "a").string(),
                    (root / "c" / "kernel").string()});
  // a/kernel and a both give a/spans, once; c has none.
  EXPECT_EQ(found, (std::vector<std::string>{(root / "a" / "spans").string(),
                                             (root / "b" / "spans").string()}));
}

TEST(RecordingAnalysisTest, NoSpansSaysWhereToPutThem) {
  testing::TempDir tmp;
  auto r = AnalyzeRecording({tmp.path()}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().ToString().find("No spans: give --spans FILE_OR_DIR"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace causeway::analysis
