// The heap setup of the graph-building commands (cli/huge_pages.h), checked in a process
// that uses glibc's allocator (support/huge_pages_probe.cc): the memory of a large block is
// advised and backed by huge pages.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway {
namespace {

std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return mode;
}

struct Probe {
  int advised = -1, hg = -1;
  long anon_huge_kb = -1;
};

Probe RunProbe(const std::string& env) {
  const testing::CommandResult r = testing::RunCommand(env + " " CAUSEWAY_HUGE_PAGES_PROBE);
  EXPECT_EQ(r.exit_code, 0);
  Probe p;
  EXPECT_EQ(std::sscanf(r.out.c_str(), "advised=%d hg=%d anon_huge_kb=%ld", &p.advised, &p.hg,
                        &p.anon_huge_kb),
            3)
      << r.out;
  return p;
}

TEST(HugePagesTest, ALargeBlockLandsInAdvisedHugePages) {
  if (ThpMode().find("[madvise]") == std::string::npos)
    GTEST_SKIP() << "Skipped: transparent huge pages are not in madvise mode here (" << ThpMode()
                 << "), so the heap is not advised";
  const Probe p = RunProbe("");
  EXPECT_EQ(p.advised, 1);
  // 64 MiB above the mmap threshold still comes from the advised heap, in huge pages.
  EXPECT_EQ(p.hg, 1);
  EXPECT_GT(p.anon_huge_kb, 0);
}

TEST(HugePagesTest, TurnedOffByTheEnvironment) {
  const Probe p = RunProbe("CAUSEWAY_HUGEPAGES=0");
  EXPECT_EQ(p.advised, 0);
  EXPECT_EQ(p.hg, 0);
}

}  // namespace
}  // namespace causeway
