#include "cli/huge_pages.h"

#include <gnu/libc-version.h>
#include <malloc.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

namespace causeway::cli {
namespace {

// Set in the re-executed process: "-" when GLIBC_TUNABLES was unset, else "=" + its value.
constexpr const char* kSavedTunables = "CAUSEWAY_SAVED_GLIBC_TUNABLES";

// Only the `madvise` mode needs the advice: `always` gives huge pages anyway, `never` none.
bool ThpModeIsMadvise() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return mode.find("[madvise]") != std::string::npos;
}

bool GlibcHasHugetlbTunable() {
  int major = 0, minor = 0;
  return std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2 &&
         (major > 2 || (major == 2 && minor >= 35));
}

}  // namespace

std::optional<std::string> TunablesWithHugePages(const char* current) {
  if (!current || !*current) return std::string("glibc.malloc.hugetlb=1");
  if (std::string_view(current).find("glibc.malloc.hugetlb") != std::string_view::npos)
    return std::nullopt;
  return std::string(current) + ":glibc.malloc.hugetlb=1";
}

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

void UseHugePagesForHeap(char** argv) {
  if (const char* saved = std::getenv(kSavedTunables)) {
    // The re-executed process: glibc has read the tunables; give the caller's back.
    if (saved[0] == '=')
      setenv("GLIBC_TUNABLES", saved + 1, 1);
    else
      unsetenv("GLIBC_TUNABLES");
    unsetenv(kSavedTunables);
    return;
  }
  // (Under a sanitizer the tunable does nothing, but the re-exec is kept: the tests then
  // run this path.)
  if (!GlibcHasHugetlbTunable() || !ThpModeIsMadvise()) return;
  if (const char* off = std::getenv("CAUSEWAY_HUGEPAGES"); off && std::strcmp(off, "0") == 0)
    return;
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tunables = TunablesWithHugePages(current);
  if (!tunables) return;
  // The executable's own path (readlink, not /proc/self/exe itself: under valgrind that
  // link names the tool, and readlink is translated to the program).
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  const std::string saved = current ? std::string("=") + current : std::string("-");
  setenv(kSavedTunables, saved.c_str(), 1);
  setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  execv(exe, argv);
  // Still here: the exec failed; run as is, with the environment as it was.
  unsetenv(kSavedTunables);
  if (current)
    setenv("GLIBC_TUNABLES", saved.c_str() + 1, 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace causeway::cli
