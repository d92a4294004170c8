// Transparent huge pages for the heap of the commands that allocate most.
//
// `causeway requests` builds and frees hundreds of MB of short-lived arrays (span DOMs,
// critical-path segments, merged nodes, JSON). On a kernel whose THP mode is `madvise`
// (Debian's default) every 4 KiB of that is a page fault; on a virtual machine a fault is
// expensive: a third of the command's CPU time on a 10,000-request recording. glibc
// (>= 2.35) can advise huge pages for its own heap, but only from the GLIBC_TUNABLES
// environment variable read at process start, so the process runs itself again once with
// `glibc.malloc.hugetlb=1` added, and puts the variable back as it was before anything
// else runs (commands that start other programs pass the caller's environment on).
// Measured on that recording: 3.7 -> 2.2 s CPU, peak RSS within 1%; `causeway threads`
// (the kernel graph alone) 0.35 -> 0.26 s, peak RSS 38 -> 46 MB.
// CAUSEWAY_HUGEPAGES=0 turns it off.
#pragma once

#include <optional>
#include <string>

namespace causeway::cli {

// The GLIBC_TUNABLES value asking for huge pages, given the current one (nullptr: unset),
// or nothing when it already sets glibc.malloc.hugetlb.
std::optional<std::string> TunablesWithHugePages(const char* current);

// At the start of main: re-executes the program with huge pages when it is worth it and
// not done yet; in the re-executed process, restores the caller's GLIBC_TUNABLES. Returns
// when nothing is to be done or the re-exec failed (the command then runs as is).
void UseHugePagesForHeap(char** argv);

// Keeps freed heap memory for reuse instead of giving it back to the kernel: blocks up to
// 32 MiB come from the heap (not from mmap, which glibc would unmap at free) and the top of
// the heap is not trimmed. The phases of `causeway requests` free large arrays that the next
// phase allocates again; given back, every reuse is a fresh page fault and a kernel page
// clear. Measured on a 10,000-request recording (scripts/bench_requests.sh's): minor faults
// 10.8k -> 4.7k, CPU -7..-12% (median of 7-9, noisy machine), peak RSS +1%. All threads
// share one arena, so that memory freed by the thread reading the spans serves the analysis
// too (peak RSS 209 -> 197 MB there). CAUSEWAY_HEAP_REUSE=0 turns it off.
void KeepFreedHeapForReuse();

}  // namespace causeway::cli
