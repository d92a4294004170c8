// Fuzzes the kernel model and the critical path with arbitrary event sequences (few CPUs,
// tids and hosts, so events collide): nothing may crash or hang, and every thread's path
// must tile its range exactly with links between existing workers; the holders of the CPU
// a PREEMPTED segment waited for never add up to more than the segment.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "graph/cpu_holders.h"
#include "graph/critical_path.h"
#include "graph/execution_graph.h"
#include "kernel/kernel_model.h"
#include "kernel/page_cache.h"

using causeway::graph::CriticalPath;
using causeway::graph::CriticalPathFinder;
using causeway::graph::ExecutionGraph;
using causeway::graph::WorkerId;
using causeway::kernel::KernelEvent;
using causeway::kernel::KernelModel;
using causeway::kernel::Kind;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckPath(const ExecutionGraph& g, const CriticalPath& p) {
  int64_t at = p.begin;
  for (const auto& s : p.segments) {
    Check(s.start == at && s.start < s.end && s.worker < g.num_workers());
    at = s.end;
  }
  Check(at == p.end || (p.segments.empty() && p.begin == p.end));
  for (const auto& l : p.links) Check(l.from < g.num_workers() && l.to < g.num_workers());
  for (const auto& s : p.segments) {
    if (s.state != causeway::graph::State::kPreempted) continue;
    const auto wait = causeway::graph::WhoHeldTheCpu(g, s.worker, s.start, s.end, SIZE_MAX);
    int64_t sum = 0;
    for (const auto& h : wait.holders) {
      Check(h.ns > 0);
      sum += h.ns;
    }
    Check(sum <= s.end - s.start);
    Check(wait.cpu < 4);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ExecutionGraph g;
  KernelModel model(&g);
  model.AddHost("a");
  model.AddHost("b");
  // The page cache counts take the same events (their kinds among them): few files and
  // pages, ranges sometimes empty, so that a read's batches and re-reads collide.
  causeway::kernel::PageCacheCounter page_cache;
  static const char* kNames[] = {"", "x", "eth0", "/bin/ls"};
  int64_t ts = 1000;
  constexpr size_t kRecord = 7;
  for (size_t i = 0; i + kRecord <= size; i += kRecord) {
    const uint8_t* r = data + i;
    KernelEvent e;
    e.kind = static_cast<Kind>(r[0] % (static_cast<int>(Kind::kPageCacheRead) + 1));
    e.cpu = r[1] % 4;
    e.host = (r[1] >> 2) & 1;
    e.tid = r[2] % 8;
    // The kind's second task and number (next_tid or child_tid, prev_state, irq, …).
    e.set_next_tid(r[3] % 8);
    e.set_prev_state(r[4] % 12);
    if (r[1] & 0x80) {
      e.has_context_flags = true;
      e.context_flags = r[4] & 0x18;
      e.current_tid = r[3] % 8;
    }
    e.set_name(kNames[r[4] % 4]);
    e.set_next_comm(kNames[r[3] % 4]);
    e.seq = r[2] % 4;
    e.ack_seq = r[3] % 4;
    e.tcp_flags = r[4] % 2;
    // Block requests (dev is the number slot, set above): few sectors, so that queue,
    // issue and completion events collide.
    e.sector = r[3] % 4;
    e.block_reason = r[0] >> 7;
    // Mostly forward in time, sometimes backward (unsynchronized hosts, clamped streams).
    const int delta = static_cast<int>(r[5] | (r[6] << 8)) % 4096 - 200;
    ts += delta;
    e.ts = ts;
    e.end_ts = ts + 50;
    e.pid = static_cast<int32_t>(r[4] % 3) - 1;
    e.inode = r[2] % 2;
    e.page_first = r[3] % 8;
    e.page_last = e.page_first + r[4] % 6 - 1;
    e.page_write = r[0] & 0x40;
    model.Process(e);
    page_cache.Process(e);
  }
  model.Finish();
  uint64_t read = 0, missed = 0;
  for (const auto& [file, counts] : page_cache.files()) {
    read += counts.pages_read;
    missed += counts.cache_misses;
    Check(counts.miss_ratio() >= 0 && counts.miss_ratio() <= 1);
  }
  Check(read == page_cache.totals().pages_read && missed == page_cache.totals().pages_missed);
  CriticalPathFinder finder(g);
  CriticalPath p;
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    finder.Compute(w, INT64_MIN, INT64_MAX, &p);
    CheckPath(g, p);
    const int64_t mid = g.worker(w).start() + (g.end() - g.worker(w).start()) / 2;
    finder.Compute(w, mid, mid + 500, &p);
    CheckPath(g, p);
  }
  return 0;
}
