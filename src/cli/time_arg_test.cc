#include "cli/time_arg.h"

#include <gtest/gtest.h>

namespace causeway::cli {
namespace {

TEST(TimeArgTest, ParsesNanosecondsAndSeconds) {
  EXPECT_EQ(*ParseTimeArg("1376592664828559410"), 1376592664828559410u);
  EXPECT_EQ(*ParseTimeArg("1376592664.828559410"), 1376592664828559410u);
  EXPECT_EQ(*ParseTimeArg("12.5"), 12'500'000'000u);
  EXPECT_EQ(*ParseTimeArg("0"), 0u);
}

TEST(TimeArgTest, RejectsGarbageWithMessage) {
  for (const char* bad :
       {"", "abc", "1.2.3", "-5", "1.0000000001", "99999999999999999999999", ".5"}) {
    auto r = ParseTimeArg(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("invalid time"), std::string::npos);
  }
}

}  // namespace
}  // namespace causeway::cli
