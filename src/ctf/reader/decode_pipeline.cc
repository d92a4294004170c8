#include "ctf/reader/decode_pipeline.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "ctf/reader/merge_tree.h"

namespace causeway::ctf {

// One event as a worker decoded it (EventRecord), in 16 bytes: the
// records cross from the core that wrote them to the one that merges, and that costs by
// the byte (docs/performance.md). An event whose layout is static under the LTTng header
// (StreamCursor::static_start), and whose clock value is its timestamp less the stream's
// clock offset, is handed over as its header start alone; any other record keeps its
// clock value and slots in DecodedBatch::extras.
static_assert(sizeof(EventRecord) == 16);

// A record of kind EventRecord::kCopied or kLost. Its scopes' slot values follow each other in
// DecodedBatch::slots from slot_begin: event header, stream event context (the stream's
// sizes), event context, payload (the class's sizes).
struct DecodedExtra {
  uint64_t cycles;  // kLost: the number of events lost
  uint32_t slot_begin;
};

struct DecodedPacket {
  const uint8_t* data;
  const uint8_t* data_end;
  uint64_t content_end_bits;
  int64_t cpu;
  uint64_t discarded_begin = 0, discarded_end = 0;
  uint32_t slot_begin;   // packet header slots, then packet context slots
  uint32_t first_event;  // index in DecodedBatch::events
};

struct DecodedBatch {
  // The first `count`, then a sentinel whose timestamp is UINT64_MAX: the horizon merge
  // reads one record past a stream's last without a bounds check.
  std::vector<EventRecord> events;
  uint32_t count = 0;
  std::vector<DecodedPacket> packets;
  std::vector<DecodedExtra> extras;
  std::vector<uint64_t> slots;
  const StreamPlan* stream_plan = nullptr;
  // The cursor's (StreamCursor::static_layouts, class_base, clock_offset_ns).
  const StaticLayout* layouts = nullptr;
  uint32_t class_base = 0;
  uint64_t clock_offset_ns = 0;
  // Slot counts of the stream's per-packet and fixed per-event scopes.
  uint32_t packet_header_slots = 0, packet_context_slots = 0;
  uint32_t event_header_slots = 0, stream_event_context_slots = 0;
  uint64_t release_from = 0;  // no event of this or a later batch lies before this offset
  uint64_t bytes_consumed = 0;
  // The stream's statistics before the batch, after it, and after each event where they
  // changed other than by one more event (StreamCursor::stats_changes): so that a read
  // stopped within the batch reports what it read (BufferedStream::stats).
  StreamStats stats_before;
  StreamStats stats;
  struct StatsMark {
    uint32_t event;  // index in events
    StreamStats stats;
  };
  std::vector<StatsMark> marks;
  bool last = false;  // the stream ends after these events; `status` says how
  Status status;
};

struct BufferedStream::Ring {
  StreamCursor* cursor = nullptr;
  // The ring of the stream this one goes on from (a rotated recording's previous chunk):
  // not filled before that one is done, so that the chunks are decoded one after another.
  const Ring* after = nullptr;
  StreamStats initial_stats;
  DecodedBatch batches[DecodePipeline::kRingBatches];
  // Held by the thread filling a batch: the cursor and the batches not yet published are
  // its alone.
  std::atomic<bool> busy{false};
  std::atomic<bool> done{false};  // the last batch is published
  // The merge has taken this ring's last batch (JoinSuccessor; not set for the last chunk
  // of a chain): its bytes and batches are freed.
  std::atomic<bool> released{false};
  // Batches published by the fillers and released by the merge; a batch may be filled
  // while produced - consumed < kRingBatches.
  alignas(64) std::atomic<uint64_t> produced{0};
  alignas(64) std::atomic<uint64_t> consumed{0};
  std::atomic<uint64_t> done_offset{0};  // the merge reads no packet before this offset
};

unsigned DefaultDecodeThreads() {
  if (const char* env = std::getenv("CAUSEWAY_DECODE_THREADS"); env && *env)
    return static_cast<unsigned>(std::min(std::max(std::atoi(env), 0), 64));
  return 0;
}

unsigned AnalysisDecodeThreads() {
  if (const char* env = std::getenv("CAUSEWAY_DECODE_THREADS"); env && *env)
    return DefaultDecodeThreads();
  return std::thread::hardware_concurrency() >= 2 ? 1 : 0;
}

DecodePipeline::DecodePipeline(const std::vector<StreamCursor*>& cursors, unsigned threads,
                               uint32_t batch_events, const std::vector<uint32_t>& successors)
    : successors_(successors) {
  successors_.resize(cursors.size(), kNoSuccessor);
  // The streams decoded at a time: one per chain of chunks.
  size_t chains = 0;
  {
    std::vector<bool> continues(cursors.size(), false);
    for (const uint32_t n : successors_)
      if (n != kNoSuccessor) continues[n] = true;
    for (const bool c : continues) chains += !c;
  }
  // Each batch handed over costs a few cache lines bounced between cores, so batches are
  // large while a stream's ring stays within the cache; with many streams, smaller so that
  // memory stays bounded (about 256 Ki records in all).
  ring_batches_ = threads > 0 ? kRingBatches : 1;
  batch_events_ = batch_events > 0
                      ? std::min<uint32_t>(batch_events, kMaxBatchEvents)
                      : static_cast<uint32_t>(std::clamp<size_t>(
                            262144 / (std::max<size_t>(chains, 1) * kRingBatches), 64, 4096));
  threads =
      std::clamp<unsigned>(threads, 0, static_cast<unsigned>(std::max<size_t>(cursors.size(), 1)));
  for (size_t i = 0; i < cursors.size(); ++i) {
    auto ring = std::make_unique<BufferedStream::Ring>();
    ring->cursor = cursors[i];
    ring->initial_stats = cursors[i]->stats();
    auto stream = std::make_unique<BufferedStream>();
    stream->ring_ = ring.get();
    stream->pipeline_ = this;
    stream->event_ = cursors[i]->event();  // the stream's constants: trace, indexes
    rings_.push_back(std::move(ring));
    streams_.push_back(std::move(stream));
  }
  for (size_t i = 0; i < cursors.size(); ++i)
    if (successors_[i] != kNoSuccessor) rings_[successors_[i]]->after = rings_[i].get();
  // Each worker starts its scans at a different stream so that they rarely contend.
  for (unsigned i = 0; i < threads; ++i)
    workers_.emplace_back([this, first = i * cursors.size() / threads] { Run(first); });
}

DecodePipeline::~DecodePipeline() {
  stop_.store(true, std::memory_order_release);
  WakeWorkers();
  for (auto& w : workers_) w.join();
}

void DecodePipeline::WakeWorkers() {
  // The system call only when a worker sleeps or is about to: with seq_cst on both sides,
  // either this sees its count or its wait sees the new wake_ and does not sleep.
  wake_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) wake_.notify_all();
}

void DecodePipeline::Run(size_t first_ring) {
  const size_t n = rings_.size();
  for (;;) {
    const uint32_t seen = wake_.load(std::memory_order_acquire);
    bool progressed = false, open = false;
    for (size_t k = 0; k < n; ++k) {
      if (stop_.load(std::memory_order_acquire)) return;
      BufferedStream::Ring* r = rings_[(first_ring + k) % n].get();
      if (r->done.load(std::memory_order_acquire)) continue;
      open = true;
      progressed |= TryFill(r);
    }
    if (!open) return;
    if (!progressed) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(seen, std::memory_order_seq_cst);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

bool DecodePipeline::TryFill(BufferedStream::Ring* r) {
  if (r->busy.load(std::memory_order_relaxed) || r->done.load(std::memory_order_acquire))
    return false;
  if (const BufferedStream::Ring* before = r->after) {
    if (!before->done.load(std::memory_order_acquire)) return false;
    // One chunk decoded ahead of the one the merge reads, no more: a ring that is done
    // holds its bytes and batches until the merge has read them, and the fillers would
    // otherwise decode a rotated recording's chunks far ahead, holding memory that grows
    // with the recording.
    if (before->after && !before->after->released.load(std::memory_order_acquire)) return false;
  }
  if (r->produced.load(std::memory_order_relaxed) - r->consumed.load(std::memory_order_acquire) >=
      ring_batches_)
    return false;
  if (r->busy.exchange(true, std::memory_order_acquire)) return false;
  // Checked again now that the ring is ours: another filler may have ended the stream or
  // filled the last free batch in between.
  const bool room =
      !r->done.load(std::memory_order_relaxed) &&
      r->produced.load(std::memory_order_relaxed) - r->consumed.load(std::memory_order_acquire) <
          ring_batches_;
  if (room) Fill(r);
  r->busy.store(false, std::memory_order_release);
  return room;
}

bool DecodePipeline::FillAnother(const BufferedStream::Ring* except) {
  const size_t n = rings_.size();
  for (size_t k = 0; k < n; ++k) {
    BufferedStream::Ring* r = rings_[(help_next_ + k) % n].get();
    if (r == except) continue;
    if (TryFill(r)) {
      help_next_ = (help_next_ + k + 1) % n;
      return true;
    }
  }
  return false;
}

namespace {

// Copies n slots. Every source array holds at least StreamCursor::kMinSlotArray and the
// destination has as much slack at its end: the common small case is one fixed-size copy.
inline uint64_t* CopySlots(uint64_t* out, const uint64_t* from, uint32_t n) {
  static_assert(StreamCursor::kMinSlotArray == 4);
  if (n <= 4) [[likely]] {
    std::memcpy(out, from, 4 * sizeof(uint64_t));
  } else {
    std::memcpy(out, from, n * sizeof(uint64_t));
  }
  return out + n;
}

}  // namespace

void DecodePipeline::Fill(BufferedStream::Ring* r) {
  const uint64_t p = r->produced.load(std::memory_order_relaxed);
  DecodedBatch& b = r->batches[p % ring_batches_];
  b.packets.clear();
  b.extras.clear();
  b.last = false;
  if (b.events.size() < batch_events_ + 1) b.events.resize(batch_events_ + 1);
  StreamCursor& c = *r->cursor;
  // The merge reads no packet before the batch it reads now; when it has consumed every
  // batch published (always so without workers), none before this one's start.
  const bool merge_holds_none =
      r->produced.load(std::memory_order_relaxed) == r->consumed.load(std::memory_order_acquire);
  c.LimitReleaseTo(merge_holds_none ? c.packet_offset()
                                    : r->done_offset.load(std::memory_order_acquire));
  b.release_from = c.packet_offset();
  b.class_base = c.class_base();
  b.stats_before = c.stats();
  b.marks.clear();
  uint64_t stats_changes = c.stats_changes();
  const uint8_t* packet_data = nullptr;
  uint64_t clock_offset = 0;
  // Slots are written through a pointer into b.slots.
  uint64_t* slot = b.slots.data();
  uint64_t* slots_end = slot + b.slots.size();
  size_t per_event_max = 0;  // set at the first packet: the stream's layout is known
  // Room for `need` more slots; grown as needed so that a batch takes the memory its
  // events use, not the worst case for all of them.
  const auto reserve = [&](size_t need) {
    if (static_cast<size_t>(slots_end - slot) >= need) [[likely]]
      return;
    const size_t used = static_cast<size_t>(slot - b.slots.data());
    b.slots.resize(std::max(b.slots.size() * 2, used + 64 * need));
    slot = b.slots.data() + used;
    slots_end = b.slots.data() + b.slots.size();
  };
  // Not re-read from the vector per event: the slot stores below might alias it.
  EventRecord* const records = b.events.data();
  uint32_t n = 0;
  for (; n < batch_events_; ++n) {
    if (!c.NextNotingLayout()) {
      b.last = true;
      b.status = c.status();
      break;
    }
    const Event& e = c.event();
    if (c.stats_changes() != stats_changes) [[unlikely]] {
      stats_changes = c.stats_changes();
      b.marks.push_back({n, c.stats()});
    }
    EventRecord& d = records[n];
    d.timestamp = e.timestamp;
    d.plan_index = e.class_index - b.class_base;
    if (e.data != packet_data) [[unlikely]] {
      packet_data = e.data;
      b.stream_plan = e.stream_plan;
      b.layouts = c.static_layouts();
      b.clock_offset_ns = clock_offset = c.clock_offset_ns();
      b.packet_header_slots = static_cast<uint32_t>(c.num_slots(0));
      b.packet_context_slots = static_cast<uint32_t>(c.num_slots(1));
      b.event_header_slots = static_cast<uint32_t>(c.num_slots(2));
      b.stream_event_context_slots = static_cast<uint32_t>(c.num_slots(3));
      per_event_max = c.num_slots(0) + c.num_slots(1) + c.num_slots(2) + c.num_slots(3) +
                      c.num_slots(4) + c.num_slots(5) + StreamCursor::kMinSlotArray;
      reserve(per_event_max);
      b.packets.push_back({.data = e.data,
                           .data_end = e.data_end,
                           .content_end_bits = e.content_end_bits,
                           .cpu = e.cpu,
                           .slot_begin = static_cast<uint32_t>(slot - b.slots.data()),
                           .first_event = n});
      slot = CopySlots(slot, e.slots[0], b.packet_header_slots);
      slot = CopySlots(slot, e.slots[1], b.packet_context_slots);
    }
    // The common case: 16 bytes and nothing else.
    // (kNoStaticLayout fails the first test.)
    const uint64_t start = c.static_start();
    if (start <= EventRecord::kMaxAt && e.timestamp == e.cycles + clock_offset) [[likely]] {
      d.where = EventRecord::Where(c.static_option(), static_cast<uint32_t>(start));
      // The events that follow in the same shape, decoded by a loop that writes only
      // their records.
      n += c.NextStaticRun(records + n + 1, batch_events_ - n - 1);
      continue;
    }
    reserve(per_event_max);
    d.where = EventRecord::Where(
        e.kind == Event::Kind::kEvent ? EventRecord::kCopied : EventRecord::kLost,
        static_cast<uint32_t>(b.extras.size()));
    b.extras.push_back(
        {.cycles = e.cycles, .slot_begin = static_cast<uint32_t>(slot - b.slots.data())});
    slot = CopySlots(slot, e.slots[2], b.event_header_slots);
    slot = CopySlots(slot, e.slots[3], b.stream_event_context_slots);
    if (e.kind == Event::Kind::kEvent) [[likely]] {
      slot = CopySlots(slot, e.slots[4], e.plan->context.num_slots);
      slot = CopySlots(slot, e.slots[5], e.plan->payload.num_slots);
    } else {
      d.plan_index = 0;
      b.extras.back().cycles = e.discarded;
      b.packets.back().discarded_begin = e.discarded_begin;
      b.packets.back().discarded_end = e.discarded_end;
    }
  }
  b.count = n;
  b.events[n].timestamp = UINT64_MAX;
  b.bytes_consumed = c.bytes_consumed();
  b.stats = c.stats();
  if (b.last) r->done.store(true, std::memory_order_release);
  r->produced.store(p + 1, std::memory_order_release);
  r->produced.notify_one();
}

bool BufferedStream::NextBatch() {
  for (;;) {
    if (ended_) return false;
    if (batch_) {
      if (batch_->last) {
        status_ = batch_->status;
        ended_ = true;
        return false;
      }
      ring_->consumed.fetch_add(1, std::memory_order_release);
      pipeline_->WakeWorkers();
    }
    const uint64_t c = ring_->consumed.load(std::memory_order_relaxed);
    // Not ready: decode it here, or while another thread does, some other stream; wait
    // only when there is nothing to decode.
    for (uint64_t p; (p = ring_->produced.load(std::memory_order_acquire)) == c;) {
      if (pipeline_->TryFill(ring_) || pipeline_->FillAnother(ring_)) continue;
      ring_->produced.wait(p, std::memory_order_acquire);
    }
    batch_ = &ring_->batches[c % pipeline_->ring_batches_];
    ring_->done_offset.store(batch_->release_from, std::memory_order_release);
    bytes_consumed_ = batch_->bytes_consumed;
    index_ = 0;
    count_ = batch_->count;
    packet_ = UINT32_MAX;
    next_packet_event_ = 0;
    layouts_ = batch_->layouts;
    class_base_ = batch_->class_base;
    clock_offset_ns_ = batch_->clock_offset_ns;
    if (count_ > 0) return true;
  }
}

namespace {

// A record past every other, for the tree's unused leaves.
const EventRecord kPastEveryRecord{.timestamp = UINT64_MAX, .plan_index = 0, .where = 0};

}  // namespace

size_t DecodePipeline::MergeNextRun(const uint32_t** order, Status* status, TreeRun* tree,
                                    WideRun* wide) {
  const size_t n = streams_.size();
  if (!merge_started_) {
    merge_started_ = true;
    for (uint32_t s = 0; s < n; ++s)
      if (!rings_[s]->after) live_.push_back(s);  // a later chunk's joins later
    run_left_.assign(n, 0);
    run_next_.assign(n, nullptr);
  }
  // Streams whose batch is used up move to their next one, in index order (at the start,
  // every stream, as the inline merge starts them); an error stops the read right there.
  // A stream that ended and goes on in a later chunk is replaced by that chunk's stream.
  size_t kept = 0;
  bool joined = false;
  for (const uint32_t s : live_) {
    BufferedStream& b = *streams_[s];
    if (b.index_ == b.count_ && !b.NextBatch()) {
      if (!b.status_.ok()) {
        *status = b.status_;
        return 0;
      }
      const uint32_t next = JoinSuccessor(s, status);  // ended: goes on, or not
      if (!status->ok()) return 0;
      if (next == kNoSuccessor) continue;
      live_[kept++] = next;
      joined = true;
      continue;
    }
    live_[kept++] = s;
  }
  live_.resize(kept);
  if (live_.empty()) return 0;
  if (joined) {
    std::sort(live_.begin(), live_.end());  // ties go by stream index, as inline
    heap_valid_ = false;
  }

  if (live_.size() <= LoserTree<EventRecord>::kMaxLeaves) {
    const size_t total = MergeCountedRun(tree, wide);
    if (total > 0) {
      *order = nullptr;
      return total;
    }
  }
  const size_t total = MergeHeapRun();
  *order = order_.data();
  return total;
}

bool DecodePipeline::EndsForGood(uint32_t s, const DecodedBatch& batch) const {
  return batch.last && batch.status.ok() && successors_[s] == kNoSuccessor;
}

uint32_t DecodePipeline::JoinSuccessor(uint32_t s, Status* status) {
  for (;;) {
    // No thread fills this ring again (done), and the merge took its last batch: what its
    // cursor and batches hold can go. The batches' statistics stay (stats()).
    BufferedStream::Ring& ring = *rings_[s];
    ring.cursor->ReleaseBuffers();
    for (DecodedBatch& b : ring.batches) {
      std::vector<EventRecord>().swap(b.events);
      std::vector<DecodedPacket>().swap(b.packets);
      std::vector<DecodedExtra>().swap(b.extras);
      std::vector<uint64_t>().swap(b.slots);
      std::vector<DecodedBatch::StatsMark>().swap(b.marks);
    }
    ring.released.store(true, std::memory_order_release);
    WakeWorkers();  // the chunk after the next may be decoded now
    s = successors_[s];
    if (s == kNoSuccessor) return s;
    BufferedStream& next = *streams_[s];
    if (next.NextBatch()) return s;
    if (!next.status_.ok()) {
      *status = next.status_;
      return kNoSuccessor;
    }
  }
}

size_t DecodePipeline::MergeCountedRun(TreeRun* tree, WideRun* wide) {
  // The horizon: every event up to the smallest last key of the current batches can be
  // ordered now. A batch that ends its stream cleanly bounds nothing; one that ends it
  // with an error bounds the run at its last good event, where the error must surface.
  MergeHead horizon{UINT64_MAX, UINT32_MAX};
  bool bounded = false;
  for (const uint32_t s : live_) {
    const DecodedBatch& batch = *streams_[s]->batch_;
    // A stream that goes on in a next chunk bounds the run at its last event: the next
    // chunk's first batch may fail, and its error must come right after that event.
    if (EndsForGood(s, batch)) continue;
    const MergeHead last{batch.events[batch.count - 1].timestamp, s};
    if (!bounded || last < horizon) horizon = last;
    bounded = true;
  }
  // How many events of each stream lie up to the horizon: the pass below then needs no
  // bounds and no branch.
  size_t total = 0;
  heap_valid_ = false;  // heads_ is reused here
  heads_.clear();
  uint64_t latest = 0;  // the run's last timestamp
  for (const uint32_t s : live_) {
    const BufferedStream& b = *streams_[s];
    const EventRecord* first = b.batch_->events.data() + b.index_;
    const EventRecord* end = b.batch_->events.data() + b.count_;
    const EventRecord* stop = end;
    if (bounded) {
      // Keys (ts, s) <= (horizon.ts, horizon.stream): at the horizon's time, only streams
      // that come first (or the horizon's own).
      stop =
          s <= horizon.stream
              ? std::upper_bound(first, end, horizon.ts,
                                 [](uint64_t t, const EventRecord& e) { return t < e.timestamp; })
              : std::lower_bound(first, end, horizon.ts,
                                 [](const EventRecord& e, uint64_t t) { return e.timestamp < t; });
    }
    const size_t count = static_cast<size_t>(stop - first);
    run_next_[s] = first;
    if (count == 0) continue;
    // An event at UINT64_MAX would tie with the batches' end markers: MergeHeapRun.
    if (stop[-1].timestamp == UINT64_MAX) return 0;
    total += count;
    heads_.push_back({first->timestamp, s});
    latest = std::max(latest, stop[-1].timestamp);
  }
  tree->left = 0;
  wide->left = 0;
  // heads_ is in stream order: the trees' leaf order. Their keys hold times below 2^62 ns
  // (MergeTreeSteps::Fits) or relative to the run's start (LoserTree::Fits); a run past
  // that, from a corrupt stream or a clock of another origin, is left to the heap.
  if (heads_.size() <= 4) {
    if (!decltype(tree->tree)::Fits(latest)) return 0;
    std::array<const EventRecord*, 4> leaves;
    for (size_t i = 0; i < 4; ++i) {
      leaves[i] = i < heads_.size() ? run_next_[heads_[i].stream] : &kPastEveryRecord;
      tree->stream_of_leaf[i] = i < heads_.size() ? streams_[heads_[i].stream].get() : nullptr;
    }
    tree->tree.Start(leaves);
    tree->left = total;
    return total;
  }
  using Tree = LoserTree<EventRecord>;
  const size_t leaves = Tree::LeavesFor(heads_.size());
  uint64_t base = UINT64_MAX;
  for (const MergeHead& h : heads_) base = std::min(base, h.ts);
  if (!Tree::Fits(leaves, base, latest)) return 0;
  std::array<const EventRecord*, Tree::kMaxLeaves> first;
  wide->stream_of_leaf.assign(leaves, nullptr);
  for (size_t i = 0; i < leaves; ++i) {
    first[i] = i < heads_.size() ? run_next_[heads_[i].stream] : &kPastEveryRecord;
    if (i < heads_.size()) wide->stream_of_leaf[i] = streams_[heads_[i].stream].get();
  }
  wide->tree.Start(first.data(), leaves, base);
  wide->left = total;
  return total;
}

size_t DecodePipeline::MergeHeapRun() {
  // A binary min-heap of the streams' heads; the top advances in place and sinks in one
  // pass. The run ends right after the last event of a batch that does not end its stream
  // cleanly: that stream's next event is not known yet. (The same horizon as
  // MergeCountedRun, found on the way: no counting, which with many streams costs more than
  // it saves.) The heap lasts from run to run: only the stream that ended the last run
  // changed since.
  MergeHead* h = heads_.data();
  if (!heap_valid_) {
    heads_.clear();
    for (const uint32_t s : live_) {
      const BufferedStream& b = *streams_[s];
      run_next_[s] = b.batch_->events.data() + b.index_;
      run_left_[s] = b.count_ - b.index_;
      heads_.push_back({run_next_[s]->timestamp, s});
    }
    h = heads_.data();
    heap_size_ = heads_.size();
    for (size_t i = heap_size_ / 2; i-- > 0;) SiftDown(h, heap_size_, i);
    heap_valid_ = true;
  } else if (heap_top_refilled_) {
    const uint32_t s = h[0].stream;
    const BufferedStream& b = *streams_[s];
    if (b.ended_) {
      h[0] = h[--heap_size_];
    } else {
      run_next_[s] = b.batch_->events.data() + b.index_;
      run_left_[s] = b.count_ - b.index_;
      h[0].ts = run_next_[s]->timestamp;
    }
    SiftDown(h, heap_size_, 0);
  }
  heap_top_refilled_ = false;
  size_t n = heap_size_;
  size_t k = 0;
  while (n > 0) {
    const uint32_t s = h[0].stream;
    if (k == order_.size()) {
      order_.resize(std::max<size_t>(1024, 2 * k));
      records_.resize(order_.size());
    }
    records_[k] = run_next_[s];
    order_[k++] = s;
    if (--run_left_[s] == 0) [[unlikely]] {
      const DecodedBatch& batch = *streams_[s]->batch_;
      if (!EndsForGood(s, batch)) {  // the horizon
        heap_top_refilled_ = true;
        break;
      }
      h[0] = h[--n];  // the stream ends with this event
    } else {
      h[0].ts = (++run_next_[s])->timestamp;
    }
    SiftDown(h, n, 0);
  }
  heap_size_ = n;
  return k;
}

void BufferedStream::LoadPacket() {
  const DecodedBatch& b = *batch_;
  const DecodedPacket& pk = b.packets[++packet_];
  next_packet_event_ =
      packet_ + 1 < b.packets.size() ? b.packets[packet_ + 1].first_event : UINT32_MAX;
  event_.stream_plan = b.stream_plan;
  event_.data = pk.data;
  event_.data_end = pk.data_end;
  event_.content_end_bits = pk.content_end_bits;
  event_.cpu = pk.cpu;
  event_.discarded_begin = pk.discarded_begin;
  event_.discarded_end = pk.discarded_end;
  event_.slots[0] = b.slots.data() + pk.slot_begin;
  event_.slots[1] = event_.slots[0] + b.packet_header_slots;
}

void BufferedStream::Load(uint32_t i, const EventRecord& d) { LoadInline(i, d); }

void BufferedStream::LoadExtra(const EventRecord& d) {
  const EventRecord::Kind kind = d.kind();
  constexpr int kHeader = static_cast<int>(Scope::kEventHeader);
  const DecodedBatch& b = *batch_;
  const DecodedExtra& x = b.extras[d.extra_index()];
  for (int s = 0; s < 4; ++s) event_.slot_base[kHeader + s] = 0;
  event_.static_fields = nullptr;
  const uint64_t* slot = b.slots.data() + x.slot_begin;
  event_.slots[kHeader] = slot;
  slot += b.event_header_slots;
  event_.slots[kHeader + 1] = slot;
  slot += b.stream_event_context_slots;
  if (kind == EventRecord::kCopied) [[likely]] {
    const EventPlan* plan = layouts_[d.plan_index * 2].plan;
    event_.kind = Event::Kind::kEvent;
    event_.plan = plan;
    event_.class_index = class_base_ + d.plan_index;
    event_.cycles = x.cycles;
    event_.slots[kHeader + 2] = slot;
    event_.slots[kHeader + 3] = slot + plan->context.num_slots;
  } else {
    event_.kind = Event::Kind::kDiscarded;
    event_.plan = nullptr;
    event_.discarded = x.cycles;
  }
}

StreamStats BufferedStream::stats() const {
  if (!batch_) return ring_->initial_stats;
  if (index_ >= count_) return batch_->stats;
  // Part of the batch taken: the statistics as of its last event taken, from the last mark
  // at or before it and one more event for each after the mark (with its time).
  const DecodedBatch& b = *batch_;
  StreamStats s = b.stats_before;
  uint32_t counted = 0;  // the events s covers
  for (const DecodedBatch::StatsMark& m : b.marks) {
    if (m.event >= index_) break;
    s = m.stats;
    counted = m.event + 1;
  }
  if (index_ > counted) {
    s.events += index_ - counted;
    s.last_ts = b.events[index_ - 1].timestamp;
  }
  return s;
}

}  // namespace causeway::ctf
