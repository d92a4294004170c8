#include "cli/huge_pages.h"

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace causeway::cli {
namespace {

TEST(HugePagesTest, AddsTheTunableToWhatTheCallerSet) {
  EXPECT_EQ(TunablesWithHugePages(nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePages(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePages("glibc.malloc.check=3"),
            "glibc.malloc.check=3:glibc.malloc.hugetlb=1");
  // The caller's own choice wins, whatever it is.
  EXPECT_EQ(TunablesWithHugePages("glibc.malloc.hugetlb=0"), std::nullopt);
}

TEST(HugePagesTest, TheReexecutedProcessGetsTheCallersEnvironmentBack) {
  // What the re-executed process sees: the saved value and the tunables it was started with.
  setenv("CAUSEWAY_SAVED_GLIBC_TUNABLES", "=glibc.malloc.check=3", 1);
  setenv("GLIBC_TUNABLES", "glibc.malloc.check=3:glibc.malloc.hugetlb=1", 1);
  char arg0[] = "causeway";
  char* argv[] = {arg0, nullptr};
  UseHugePagesForHeap(argv);  // restores and returns: no second exec
  ASSERT_NE(std::getenv("GLIBC_TUNABLES"), nullptr);
  EXPECT_STREQ(std::getenv("GLIBC_TUNABLES"), "glibc.malloc.check=3");
  EXPECT_EQ(std::getenv("CAUSEWAY_SAVED_GLIBC_TUNABLES"), nullptr);

  // A caller without GLIBC_TUNABLES gets none.
  setenv("CAUSEWAY_SAVED_GLIBC_TUNABLES", "-", 1);
  setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
  UseHugePagesForHeap(argv);
  EXPECT_EQ(std::getenv("GLIBC_TUNABLES"), nullptr);
  EXPECT_EQ(std::getenv("CAUSEWAY_SAVED_GLIBC_TUNABLES"), nullptr);
}

}  // namespace
}  // namespace causeway::cli
