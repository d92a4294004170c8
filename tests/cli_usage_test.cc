// Bad command lines get a clear message and exit code 2; unreadable input exits 1.
#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::testing {
namespace {

TEST(CliUsageTest, BadFlagsExitTwoWithAMessage) {
  const std::string trace = TestTrace("lttng/memory");
  struct Case {
    std::string args, message;
  } cases[] = {
      {"events '" + trace + "' --format xml", "--format"},
      {"stats '" + trace + "' --format yaml", "--format"},
      {"events '" + trace + "' --clock martian", "--clock"},
      {"events '" + trace + "' --begin 12:00", "invalid time '12:00'"},
      {"events '" + trace + "' --end -3", "--end"},
      {"events '" + trace + "' --limit many", "--limit"},
      {"events", "traces is required"},
      {"frobnicate", "frobnicate"},
      {"", "A subcommand is required"},
  };
  for (const auto& c : cases) {
    std::string err;
    CommandResult r = RunCli(c.args, &err);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << c.args << "\n" << err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
}

TEST(CliUsageTest, MissingTraceExitsOneNamingThePath) {
  std::string err;
  CommandResult r = RunCli("stats /nonexistent/causeway-trace", &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("/nonexistent/causeway-trace does not exist"), std::string::npos) << err;
}

TEST(CliUsageTest, HelpAndVersionExitZero) {
  std::string err;
  CommandResult help = RunCli("events --help", &err);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--name"), std::string::npos);
  CommandResult version = RunCli("--version", &err);
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("causeway"), std::string::npos);
}

}  // namespace
}  // namespace causeway::testing
