#include "graph/path_state_times.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace causeway::graph {

namespace {

bool IsWait(State s) { return s == State::kBlocked || s == State::kNetwork; }

// Separate loops for adding and subtracting, which the compiler vectorizes (a multiply by
// the sign it does not).
void AddTo(StateTimesArray* acc, const StateTimesArray& x, int64_t sign) {
  if (sign > 0)
    for (int s = 0; s < kNumStates; ++s) (*acc)[s] += x[s];
  else
    for (int s = 0; s < kNumStates; ++s) (*acc)[s] -= x[s];
}

}  // namespace

PathStateTimes::PathStateTimes(const ExecutionGraph& g, uint32_t pool_chunk_bits)
    : g_(g),
      chunk_bits_(std::clamp<uint32_t>(pool_chunk_bits, 4, 30)),
      chunk_words_(1u << chunk_bits_) {
  const size_t n = g.num_workers();
  link_base_.resize(n);
  uint64_t links = 0;
  for (WorkerId w = 0; w < n; ++w) {
    link_base_[w] = static_cast<uint32_t>(links);
    links += g.worker(w).in.size();
  }
  // Written before read, so left uninitialized: pages are touched only as sums are stored.
  num_slots_ = links;
  slot_at_.reset(new uint32_t[links]);
  computed_.assign(n, 0);
  running_.assign(n, StateTimesArray{});
  // One flat array for every worker's checkpoints (checkpoint 0, all zeros, included).
  checkpoint_base_.resize(n);
  uint64_t checkpoints = 0;
  for (WorkerId w = 0; w < n; ++w) {
    checkpoint_base_[w] = checkpoints;
    checkpoints += g.worker(w).size() / kCheckpoint + 1;
  }
  num_checkpoints_ = checkpoints;
  checkpoints_.reset(new StateTimesArray[checkpoints]);
  link_at_checkpoint_.reset(new uint32_t[checkpoints]);
  for (WorkerId w = 0; w < n; ++w) {
    checkpoints_[checkpoint_base_[w]] = StateTimesArray{};
    link_at_checkpoint_[checkpoint_base_[w]] = 0;
  }
  hints_.assign(n, 0);
  on_stack_.assign(n, 0);
}

void PathStateTimes::StoreSlot(uint32_t slot, const StateTimesArray& sums, int64_t length) {
  uint32_t header = 0;
  uint32_t words = 2;  // a long wait: header and index
  if (length >= 0 && length < UINT32_MAX) {
    // Every part of a wait's resolution is within the wait: 32 bits hold it.
    for (int s = 0; s < kNumStates; ++s) header |= static_cast<uint32_t>(sums[s] != 0) << s;
    words = 1 + static_cast<uint32_t>(__builtin_popcount(header));
  } else {
    header = kLongWait;
  }
  // Entries never straddle chunks: a new chunk when the last one has no room (also when it
  // is exactly full, where the offset alone would read 0).
  if (pool_words_ + words > static_cast<uint64_t>(pool_.size()) << chunk_bits_) {
    pool_.emplace_back(new uint32_t[chunk_words_]);
    pool_words_ = static_cast<uint64_t>(pool_.size() - 1) << chunk_bits_;
  }
  const uint64_t offset = pool_words_ & (chunk_words_ - 1);
  // Slot positions are 32 bits: 16 GiB of sums, far beyond what a graph of 2^32 in-links
  // could need; past it the position would wrap, so stop with a message instead.
  if (pool_words_ > UINT32_MAX) {
    std::fprintf(stderr, "causeway: path sums exceed 16 GiB (%llu in-links); cannot continue\n",
                 static_cast<unsigned long long>(num_slots_));
    std::abort();
  }
  slot_at_[slot] = static_cast<uint32_t>(pool_words_);
  uint32_t* out = pool_.back().get() + offset;
  pool_words_ += words;
  *out++ = header;
  if (header == kLongWait) {
    *out = static_cast<uint32_t>(long_sums_.size());
    long_sums_.push_back(sums);
    return;
  }
  for (int s = 0; s < kNumStates; ++s)
    if (sums[s] != 0) *out++ = static_cast<uint32_t>(sums[s]);
}

void PathStateTimes::AddSlot(uint32_t slot, int64_t sign, StateTimesArray* acc) const {
  const uint32_t* in = PoolAt(slot_at_[slot]);
  uint32_t mask = *in++;
  if (mask == kLongWait) {
    AddTo(acc, long_sums_[*in], sign);
    return;
  }
  if (sign > 0) {
    for (; mask != 0; mask &= mask - 1) (*acc)[__builtin_ctz(mask)] += *in++;
  } else {
    for (; mask != 0; mask &= mask - 1) (*acc)[__builtin_ctz(mask)] -= *in++;
  }
}

uint32_t PathStateTimes::ResolvedSlot(WorkerId w, uint32_t e) const {
  const Worker& k = g_.worker(w);
  if (!IsWait(k.state(e)) || e + 1 >= k.size()) return kNoSlot;
  // The in-link ending at vertex e + 1, if any: from the cursor stored at the checkpoint
  // below it when that checkpoint is computed, else by search.
  const uint32_t v = e + 1;
  const uint32_t c = v / kCheckpoint;
  uint32_t i;
  if (c * kCheckpoint <= computed_[w]) {
    i = link_at_checkpoint_[checkpoint_base_[w] + c];  // first in-link above c * kCheckpoint
    if (i > 0 && k.in[i - 1].vertex == v) --i;         // v is the checkpoint's own vertex
    while (i < k.in.size() && k.in[i].vertex < v) ++i;
  } else {
    i = static_cast<uint32_t>(
        std::lower_bound(k.in.begin(), k.in.end(), v,
                         [](const InLink& l, uint32_t x) { return l.vertex < x; }) -
        k.in.begin());
  }
  if (i >= k.in.size() || k.in[i].vertex != v || k.in[i].kind() == LinkKind::kFork) return kNoSlot;
  return link_base_[w] + i;
}

bool PathStateTimes::AddResolution(const InLink& link, int64_t wake, int64_t start,
                                   StateTimesArray* acc, Need* need) const {
  const InLink* l = &link;
  // One chain: each step resolves the signaller's walk down to `start`, whose only cut
  // edge (the one holding `start`) is the next step.
  for (;;) {
    if (wake <= start) return true;
    const WorkerId src = l->from_worker;
    const uint32_t fv = l->from_vertex();
    if (src == kNoWorker || src >= g_.num_workers() || fv >= g_.worker(src).size()) {
      (*acc)[static_cast<int>(State::kUnknown)] += wake - start;
      return true;
    }
    const Worker& k = g_.worker(src);
    int64_t from_ts = wake;
    if (l->kind() == LinkKind::kNetwork) {
      from_ts = k.ts[fv];
      if (from_ts < start || from_ts > wake) {
        (*acc)[static_cast<int>(State::kNetwork)] += wake - start;
        return true;
      }
      (*acc)[static_cast<int>(State::kNetwork)] += wake - from_ts;
    }
    if (from_ts <= start) return true;
    // The signaller's edge at the signal is never resolved (the walk starts on it).
    (*acc)[static_cast<int>(k.state(fv))] += from_ts - std::max(k.ts[fv], start);
    if (k.ts[fv] <= start) return true;
    if (computed_[src] < fv) {
      *need = Need{src, fv};
      return false;
    }
    // Edges u+1 .. fv-1 whole; u holds `start` (-1: start is before the worker's life).
    // u is usually a few edges below fv: gallop down, then search.
    uint32_t lo = fv, step = 1;
    while (lo > 0 && k.ts[lo - 1] > start) {
      const uint32_t next = lo > step ? lo - step : 0;
      if (k.ts[next] > start) {
        lo = next;
        step *= 2;
      } else {
        lo = static_cast<uint32_t>(std::upper_bound(k.ts.begin() + next, k.ts.begin() + lo, start) -
                                   k.ts.begin());
        break;
      }
    }
    const int64_t u = static_cast<int64_t>(lo) - 1;  // ts[lo] > start >= ts[lo - 1]
    // Whichever walks fewer edges: the edges between, or two stored prefixes.
    if (fv - lo <= PrefixCost(src, fv) + PrefixCost(src, lo)) {
      AddEdges(src, lo, fv, 1, acc);
    } else {
      AddPrefix(src, fv, 1, acc);
      AddPrefix(src, lo, -1, acc);
    }
    if (u >= 0) {
      const uint32_t slot = ResolvedSlot(src, static_cast<uint32_t>(u));
      if (slot == kNoSlot) {
        (*acc)[static_cast<int>(k.state(static_cast<size_t>(u)))] +=
            k.ts[static_cast<size_t>(u) + 1] - start;
        return true;
      }
      l = &k.in[slot - link_base_[src]];
      wake = k.ts[static_cast<size_t>(u) + 1];
      continue;
    }
    // Before the worker's first vertex: the parent that forked it, else unknown.
    if (!k.in.empty() && k.in[0].vertex == 0 && k.in[0].kind() == LinkKind::kFork) {
      l = &k.in[0];
      wake = k.ts[0];
      continue;
    }
    (*acc)[static_cast<int>(State::kUnknown)] += k.ts[0] - start;
    return true;
  }
}

void PathStateTimes::AddEdges(WorkerId w, uint32_t from, uint32_t to, int64_t sign,
                              StateTimesArray* acc) const {
  if (from >= to) return;
  const Worker& k = g_.worker(w);
  // Walk the edges and the in-links side by side, from the in-link cursor stored at the
  // checkpoint below `from` (no search).
  const InLink* link = k.in.data() + link_at_checkpoint_[checkpoint_base_[w] + from / kCheckpoint];
  const InLink* const links_end = k.in.data() + k.in.size();
  while (link != links_end && link->vertex < from + 1) ++link;
  for (uint32_t e = from; e < to; ++e) {
    if (link != links_end && link->vertex == e) ++link;  // an in-link ending edge e - 1
    const State st = k.state(e);
    if (IsWait(st) && link != links_end && link->vertex == e + 1 &&
        link->kind() != LinkKind::kFork) {
      AddSlot(link_base_[w] + static_cast<uint32_t>(link - k.in.data()), sign, acc);
    } else {
      (*acc)[static_cast<int>(st)] += sign * (k.ts[e + 1] - k.ts[e]);
    }
  }
}

uint32_t PathStateTimes::PrefixCost(WorkerId w, uint32_t v) const {
  const uint32_t computed = computed_[w];
  if (v == computed) return 0;
  const uint32_t c = v / kCheckpoint;
  const uint32_t above = (c + 1) * kCheckpoint;
  uint32_t edges = std::min(v - c * kCheckpoint, computed - v);
  if (above <= computed) edges = std::min(edges, above - v);
  return edges + 1;
}

void PathStateTimes::AddPrefix(WorkerId w, uint32_t v, int64_t sign, StateTimesArray* acc) const {
  const uint32_t computed = computed_[w];
  if (v == computed) {
    AddTo(acc, running_[w], sign);
    return;
  }
  // From the nearest stored prefix: the checkpoint at or below v, the next one, or the
  // running sums.
  const uint32_t c = v / kCheckpoint;
  const uint32_t below = c * kCheckpoint;
  const uint32_t above = below + kCheckpoint;
  const uint32_t to_above = above <= computed ? above - v : UINT32_MAX;
  const uint32_t to_running = computed - v;
  if (v - below <= std::min(to_above, to_running)) {
    AddTo(acc, checkpoints_[checkpoint_base_[w] + c], sign);
    AddEdges(w, below, v, sign, acc);
  } else if (to_above <= to_running) {
    AddTo(acc, checkpoints_[checkpoint_base_[w] + c + 1], sign);
    AddEdges(w, v, above, -sign, acc);
  } else {
    AddTo(acc, running_[w], sign);
    AddEdges(w, v, computed, -sign, acc);
  }
}

void PathStateTimes::EnsurePrefix(WorkerId w, uint32_t upto) {
  if (computed_[w] >= upto) return;
  stack_.push_back(Need{w, upto});
  on_stack_[w] = 1;
  while (!stack_.empty()) {
    const Need top = stack_.back();
    const WorkerId x = top.worker;
    if (computed_[x] >= top.vertex) {
      on_stack_[x] = 0;
      stack_.pop_back();
      continue;
    }
    // Runs through x's timeline until done or until a wait needs another timeline first.
    const Worker& k = g_.worker(x);
    const uint32_t target = top.vertex;
    uint32_t i = computed_[x];
    // Accumulated in place: AddResolution may read x's own prefix (never past vertex i),
    // and computed_[x] says how far it is.
    StateTimesArray& run = running_[x];
    size_t hint = hints_[x];
    bool blocked = false;
    for (; i < target; ++i) {
      const State st = k.state(i);
      const int64_t length = k.ts[i + 1] - k.ts[i];
      while (hint < k.in.size() && k.in[hint].vertex < i + 1) ++hint;
      const uint32_t slot = IsWait(st) && hint < k.in.size() && k.in[hint].vertex == i + 1 &&
                                    k.in[hint].kind() != LinkKind::kFork
                                ? link_base_[x] + static_cast<uint32_t>(hint)
                                : kNoSlot;
      if (slot != kNoSlot) {
        StateTimesArray sums{};
        Need need{};
        computed_[x] = i;
        if (!AddResolution(k.in[slot - link_base_[x]], k.ts[i + 1], k.ts[i], &sums, &need)) {
          if (!on_stack_[need.worker]) {
            // Its signaller's timeline first (created earlier: this never cycles).
            stack_.push_back(need);
            on_stack_[need.worker] = 1;
            blocked = true;
            break;
          }
          // A cycle cannot come from the graph builder (links point to earlier vertices);
          // should one appear, the wait keeps its own label rather than loop forever.
          sums = StateTimesArray{};
          sums[static_cast<int>(st)] = length;
        }
        StoreSlot(slot, sums, length);
        AddTo(&run, sums, 1);
      } else {
        run[static_cast<int>(st)] += length;
      }
      if ((i + 1) % kCheckpoint == 0) {
        const uint64_t at = checkpoint_base_[x] + (i + 1) / kCheckpoint;
        checkpoints_[at] = run;
        // The first in-link past vertex i + 1 (in-links hold one per vertex at most).
        uint32_t li = link_at_checkpoint_[at - 1];
        while (li < k.in.size() && k.in[li].vertex <= i + 1) ++li;
        link_at_checkpoint_[at] = li;
      }
    }
    computed_[x] = i;
    hints_[x] = hint;
    if (!blocked) {
      on_stack_[x] = 0;
      stack_.pop_back();
    }
  }
}

void PathStateTimes::ComputeAll() {
  int64_t lo = INT64_MAX, hi = g_.end();
  uint64_t vertices = 0;
  std::vector<WorkerId> by_start;
  for (WorkerId w = 0; w < g_.num_workers(); ++w) {
    const Worker& k = g_.worker(w);
    lo = std::min(lo, k.start());
    hi = std::max(hi, k.ts.back());
    vertices += k.size();
    if (computed_[w] + 1 < k.size()) by_start.push_back(w);
  }
  if (by_start.empty() || hi <= lo) return;
  std::stable_sort(by_start.begin(), by_start.end(), [this](WorkerId a, WorkerId b) {
    return g_.worker(a).start() < g_.worker(b).start();
  });
  // About 4096 vertices per window on average; only the threads alive and not done yet
  // are visited (a trace may hold tens of thousands of short-lived threads).
  const int64_t window =
      std::max<int64_t>(1, (hi - lo) / static_cast<int64_t>(vertices / 4096 + 1));
  std::vector<WorkerId> active;
  size_t next = 0;
  for (int64_t t = lo;; t += window) {
    const bool last = t >= hi;
    while (next < by_start.size() && (last || g_.worker(by_start[next]).start() <= t))
      active.push_back(by_start[next++]);
    size_t kept = 0;
    for (const WorkerId w : active) {
      const Worker& k = g_.worker(w);
      uint32_t upto = computed_[w];
      while (upto + 1 < k.size() && (last || k.ts[upto + 1] <= t)) ++upto;
      EnsurePrefix(w, upto);
      if (computed_[w] + 1 < k.size()) active[kept++] = w;
    }
    active.resize(kept);
    if (last) break;
  }
}

StateTimesArray PathStateTimes::PrefixAt(WorkerId w, int64_t t) {
  const Worker& k = g_.worker(w);
  StateTimesArray acc{};
  if (t <= k.start()) return acc;
  const uint32_t i =
      static_cast<uint32_t>(std::upper_bound(k.ts.begin(), k.ts.end(), t) - k.ts.begin()) - 1;
  const bool inner = i + 1 < k.size();
  EnsurePrefix(w, inner ? i + 1 : i);
  AddPrefix(w, i, 1, &acc);
  const uint32_t slot = inner ? ResolvedSlot(w, i) : kNoSlot;
  if (slot == kNoSlot) {
    acc[static_cast<int>(k.state(i))] += t - k.ts[i];
    return acc;
  }
  // A resolved wait holding t: all of it, less its part after t (the walk cut at t).
  AddSlot(slot, 1, &acc);
  StateTimesArray after{};
  Need need{};
  while (!AddResolution(k.in[slot - link_base_[w]], k.ts[i + 1], t, &after, &need)) {
    after = StateTimesArray{};
    EnsurePrefix(need.worker, need.vertex);
  }
  AddTo(&acc, after, -1);
  return acc;
}

StateTimesArray PathStateTimes::Of(WorkerId w, int64_t begin, int64_t end) {
  const Worker& k = g_.worker(w);
  begin = std::max(begin, k.start());
  end = std::min(end, g_.WorkerEnd(w));
  if (end < begin) end = begin;
  StateTimesArray sums = PrefixAt(w, end);
  AddTo(&sums, PrefixAt(w, begin), -1);
  return sums;
}

uint64_t PathStateTimes::memory_bytes() const {
  uint64_t n = num_slots_ * sizeof(uint32_t) + pool_.size() * chunk_words_ * sizeof(uint32_t) +
               long_sums_.capacity() * sizeof(StateTimesArray) +
               running_.capacity() * sizeof(StateTimesArray) +
               (computed_.capacity() + link_base_.capacity()) * sizeof(uint32_t) +
               hints_.capacity() * sizeof(size_t) + on_stack_.capacity();
  n += num_checkpoints_ * (sizeof(StateTimesArray) + sizeof(uint32_t)) +
       checkpoint_base_.capacity() * sizeof(uint64_t);
  return n;
}

}  // namespace causeway::graph
