// Transparent huge pages for the heap of the commands that allocate most.
//
// `causeway requests` builds and frees hundreds of MB of short-lived arrays (spans,
// critical-path segments, merged nodes, JSON). On a kernel whose THP mode is `madvise`
// (Debian's default) every 4 KiB of that is a page fault, and on a virtual machine a fault
// is expensive. glibc does not advise huge pages for its heap unless told so by
// GLIBC_TUNABLES at process start, which would mean running the program a second time.
// Instead, at the start of main, the heap is grown once by a large reserve of address space
// (M_TOP_PAD, no memory is touched) and that range is advised MADV_HUGEPAGE: whatever the
// heap hands out from it, the blocks above the mmap threshold included, comes in huge pages
// as it is first touched. CAUSEWAY_HUGEPAGES=0 turns it off.
#pragma once

#include <cstddef>

namespace causeway::cli {

// The address space reserved and advised at once: beyond it the heap grows as usual.
inline constexpr size_t kHugePageHeapReserve = size_t{1} << 30;

// At the start of main, after KeepFreedHeapForReuse: grows the heap by
// kHugePageHeapReserve and advises huge pages over it. Returns false when nothing was done:
// THP mode not `madvise`, CAUSEWAY_HUGEPAGES=0, or the heap is not glibc's brk heap (a
// sanitizer's or valgrind's allocator) or could not grow.
bool AdviseHugePagesForHeap();

// Keeps freed heap memory for reuse instead of giving it back to the kernel: blocks up to
// 32 MiB come from the heap (not from mmap, which glibc would unmap at free) and the top of
// the heap is not trimmed. The phases of `causeway requests` free large arrays that the next
// phase allocates again; given back, every reuse is a fresh page fault and a kernel page
// clear. All threads share one arena, so that memory freed by the thread reading the spans
// serves the analysis too. CAUSEWAY_HEAP_REUSE=0 turns it off.
void KeepFreedHeapForReuse();

}  // namespace causeway::cli
