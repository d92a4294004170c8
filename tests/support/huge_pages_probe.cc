// Runs cli/huge_pages.h's heap setup under glibc's own allocator (built without sanitizers,
// which replace it), then allocates and touches a block above the mmap threshold and prints
// what the kernel says of the memory holding it:
//   advised=0|1 hg=0|1 anon_huge_kb=N
// advised: AdviseHugePagesForHeap()'s result; hg: the block's mapping is advised huge pages
// (smaps VmFlags `hg`); anon_huge_kb: that mapping's AnonHugePages.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/huge_pages.h"

int main() {
  causeway::cli::KeepFreedHeapForReuse();
  const bool advised = causeway::cli::AdviseHugePagesForHeap();
  constexpr size_t kBlock = size_t{64} << 20;  // above the 32 MiB mmap threshold
  auto* block = static_cast<char*>(std::malloc(kBlock));
  if (!block) return 1;
  std::memset(block, 1, kBlock);
  const auto at = reinterpret_cast<uintptr_t>(block);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false, hg = false;
  long anon_huge_kb = -1;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find(':') == std::string::npos || line.find('-') < line.find(':')) {
      // A mapping's header line: "lo-hi perms offset dev inode path".
      if (head >> std::hex >> lo >> dash >> hi && dash == '-') inside = lo <= at && at < hi;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("AnonHugePages:", 0) == 0)
      anon_huge_kb = std::strtol(line.c_str() + 14, nullptr, 10);
    if (line.rfind("VmFlags:", 0) == 0) hg = line.find(" hg") != std::string::npos;
  }
  std::printf("advised=%d hg=%d anon_huge_kb=%ld\n", advised ? 1 : 0, hg ? 1 : 0, anon_huge_kb);
  std::free(block);
  return 0;
}
