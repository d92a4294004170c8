#include "cli/huge_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace causeway::cli {
namespace {

// Only the `madvise` mode needs the advice: `always` gives huge pages anyway, `never` none.
bool ThpModeIsMadvise() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return mode.find("[madvise]") != std::string::npos;
}

}  // namespace

void KeepFreedHeapForReuse() {
  if (const char* off = std::getenv("CAUSEWAY_HEAP_REUSE"); off && std::strcmp(off, "0") == 0)
    return;
  // 32 MiB is glibc's largest mmap threshold on 64-bit (HEAP_MAX_SIZE / 2).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  // One arena for every thread: what the span-reading thread frees is then reused by the
  // analysis on the main thread instead of staying idle in an arena of its own.
  mallopt(M_ARENA_MAX, 1);
}

bool AdviseHugePagesForHeap() {
  if (const char* off = std::getenv("CAUSEWAY_HUGEPAGES"); off && std::strcmp(off, "0") == 0)
    return false;
  if (!ThpModeIsMadvise()) return false;
  // A block larger than what is left at the top of the heap (but below the mmap threshold)
  // makes glibc extend the heap by its size plus M_TOP_PAD: one brk call reserves the whole
  // range, untouched. Freed, the block goes back to the top, and later blocks of any size
  // are cut from that top before glibc would consider mmap.
  char* const before = static_cast<char*>(sbrk(0));
  mallopt(M_TOP_PAD, static_cast<int>(kHugePageHeapReserve));
  void* probe = std::malloc(size_t{1} << 20);
  // An asm the compiler cannot see through takes the block's address: the malloc stays (a
  // block never used may be dropped), and the address comes out as a plain number, used
  // after the block is freed without GCC taking it for a use of the freed block.
  auto probe_at = reinterpret_cast<uintptr_t>(probe);
  __asm__ volatile("" : "+r"(probe_at) : : "memory");
  char* const after = static_cast<char*>(sbrk(0));
  // The block began in what was left of the old top, below `before`: freed, the new top
  // starts there, and so will the next blocks.
  const uintptr_t top = std::min(probe_at, reinterpret_cast<uintptr_t>(before));
  std::free(probe);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default, for any growth beyond the reserve
  // Under a sanitizer or valgrind the allocator is not glibc's and brk does not move; if the
  // brk call failed, glibc mapped the block elsewhere: either way, nothing to advise.
  if (before == reinterpret_cast<char*>(-1) || after < before + kHugePageHeapReserve / 2)
    return false;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  char* const start = reinterpret_cast<char*>(top & ~(page - 1));
  return madvise(start, static_cast<size_t>(after - start), MADV_HUGEPAGE) == 0;
}

}  // namespace causeway::cli
