// Decodes stream files into batches, on worker threads or on the caller's, while the
// caller's thread merges: the reader's one path to merged events.
//
// Streams are decoded ahead into batches: compact per-event records (time, class, where
// the event starts, or where its clock value and slots are) plus the packets they lie in. Every
// stream has a small ring of batches (one consumer: the merging thread); a batch is filled by
// whichever thread claims the stream first (its `busy` flag): a worker, or the merging thread
// itself when the batch it needs next is not ready (rather than wait, it decodes; while another
// thread fills that stream, it fills some other stream). So the decoding spreads over every
// thread whatever the consumer costs: with a cheap consumer the merging thread decodes
// about as much as a worker, with a costly one the workers decode nearly everything. With
// no workers the merging thread decodes every batch, one per stream, as the merge needs it.
//
// The merging thread orders the batches' events a run at a time (MergeNextRun: every event
// up to the earliest last event of the current batches, merged without branches: up to 4
// streams one tree step per event taken, up to 256 one step of a tree of losers; a heap for
// what their keys cannot hold) and takes them
// through a BufferedStream, whose Take() is an Event view rebuilt from the record: callers see
// exactly what the cursor would have given them (same fields, same order, same errors, at the same
// point of the stream).
//
// Memory stays bounded: a stream is at most kRingBatches batches ahead of the merge (one
// without workers), and a
// cursor reuses its chunks only below the packets the merge still reads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "base/status.h"
#include "ctf/reader/event.h"
#include "ctf/reader/loser_tree.h"
#include "ctf/reader/merge_heap.h"
#include "ctf/reader/merge_tree.h"
#include "ctf/reader/stream_cursor.h"

namespace causeway::ctf {

class DecodePipeline;

// One stream as the merge sees it: its current batch of decoded events, each returned as
// the Event view the cursor would have given (same fields, same errors at the same point).
// Cache-line aligned: written on every event by the merging thread (see EventReader).
class alignas(64) BufferedStream {
 public:
  // The batch's next event, whose record DecodePipeline::MergeNextRun gave (run_records)
  // with the stream it comes from.
  const Event* Take(const EventRecord* record) {
    Load(index_++, *record);
    return &event_;
  }
  // Take() with the view built inline, for a loop that takes many events in a row
  // (EventReader::ForEach). Next() calls the out-of-line one: inlined there, the view takes
  // registers from the merge's step around it.
  [[gnu::always_inline]] const Event* TakeInline(const EventRecord* record) {
    LoadInline(index_++, *record);
    return &event_;
  }
  const Event& event() const { return event_; }
  const Status& status() const { return status_; }
  // As of the last event taken: what reading the stream alone up to there gives (events
  // decoded ahead in the batch are not counted).
  StreamStats stats() const;
  uint64_t bytes_consumed() const { return bytes_consumed_; }

 private:
  friend class DecodePipeline;
  struct Ring;
  // Moves to the stream's next batch, decoding it here when it is not ready; false at the
  // end of the stream (status() tells how it ended).
  bool NextBatch();
  void Load(uint32_t i, const EventRecord& record);
  // Builds event_ for the batch's event i. One of static layout gets its class's
  // StaticLayout for its header option, relative to its header start; any other,
  // LoadExtra.
  [[gnu::always_inline]] void LoadInline(uint32_t i, const EventRecord& record) {
    if (i == next_packet_event_) [[unlikely]]
      LoadPacket();
    event_.timestamp = record.timestamp;
    if (!record.is_static()) [[unlikely]]
      return LoadExtra(record);
    const uint32_t at = record.header_start_bits();
    constexpr int kHeader = static_cast<int>(Scope::kEventHeader);
    const StaticLayout& l = layouts_[record.plan_index * 2 + record.static_option()];
    // Read before any store: event_'s members might alias the layout for all the compiler
    // knows, which costs a test and a second copy of the stores.
    const EventPlan* plan = l.plan;
    const uint64_t* slots[4] = {l.slots[0], l.slots[1], l.slots[2], l.slots[3]};
    const StaticField* fields = l.fields;
    event_.kind = Event::Kind::kEvent;
    event_.plan = plan;
    event_.class_index = class_base_ + record.plan_index;
    event_.cycles = record.timestamp - clock_offset_ns_;
    event_.static_fields = fields;
    // The event's bytes were most likely copied and decoded on the decoding thread's CPU:
    // a caller reading fields waits on the lines crossing over. Asking for the stream's
    // bytes 1 KB ahead saves part of that wait, and costs a caller that reads no field
    // nothing measurable. A prefetch never faults, even past the buffer; the address is worked out
    // as an integer, since a pointer past the buffer's end is not valid C++.
    __builtin_prefetch(
        reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(event_.data) + (at >> 3) + 1024));
    for (int s = 0; s < 4; ++s) {
      event_.slots[kHeader + s] = slots[s];
      event_.slot_base[kHeader + s] = at;
    }
  }
  void LoadExtra(const EventRecord& record);
  void LoadPacket();  // the batch's next packet

  Ring* ring_ = nullptr;
  DecodePipeline* pipeline_ = nullptr;
  const struct DecodedBatch* batch_ = nullptr;  // being read; null before the first
  uint32_t index_ = 0, count_ = 0;
  uint32_t packet_ = UINT32_MAX;    // index in batch_ of the packet event_ points into
  uint32_t next_packet_event_ = 0;  // the event that starts the batch's next packet
  // batch_'s (layouts, class_base, clock_offset_ns), beside the rest of Load's state.
  const StaticLayout* layouts_ = nullptr;
  uint32_t class_base_ = 0;
  uint64_t clock_offset_ns_ = 0;
  uint64_t bytes_consumed_ = 0;
  bool ended_ = false;
  Status status_;
  Event event_;
};

// A run that MergeNextRun left to be merged as it is taken: at most 4 streams have events
// in it, each a leaf of the tree (in stream order; unused leaves hold a record past every
// other). Take `left` records, each with stream_of_leaf[leaf]->Take(tree.Take(&leaf)).
struct alignas(64) TreeRun {
  MergeTreeSteps<4, EventRecord> tree;
  std::array<BufferedStream*, 4> stream_of_leaf{};
  size_t left = 0;
};

// A run of 5 to LoserTree::kMaxLeaves streams with events in it, left to be merged as it is
// taken, likewise: each stream a leaf of a tree of losers (in stream order; unused leaves
// hold a record past every other).
struct alignas(64) WideRun {
  LoserTree<EventRecord> tree;
  std::vector<BufferedStream*> stream_of_leaf;
  size_t left = 0;
};

class DecodePipeline {
 public:
  // Starts `threads` workers (none for 0) over `cursors`, which must outlive the pipeline
  // and are only touched through it from now on. `batch_events`: events per batch, 0 for
  // the automatic size (see ReaderOptions::decode_batch_events). `successors` (empty, or
  // one per cursor, kNoSuccessor for none): the stream that goes on from each in the next
  // chunk of a rotated recording (EventReader::LinkChunks). Such a stream is decoded once
  // its predecessor is and the merge has gone past the stream before that (one chunk
  // decoded ahead, no more), and joins the merge when its predecessor ends, its events all
  // coming after; the one that ended gives its memory back. So a recording of many chunks
  // holds the memory of about twice as many streams as one chunk has.
  static constexpr uint32_t kNoSuccessor = UINT32_MAX;
  DecodePipeline(const std::vector<StreamCursor*>& cursors, unsigned threads,
                 uint32_t batch_events = 0, const std::vector<uint32_t>& successors = {});
  ~DecodePipeline();  // stops and joins the workers
  DecodePipeline(const DecodePipeline&) = delete;
  DecodePipeline& operator=(const DecodePipeline&) = delete;

  // Worker threads (0: batches are decoded on the merging thread as it needs them).
  size_t num_workers() const { return workers_.size(); }
  BufferedStream& stream(size_t i) { return *streams_[i]; }
  const BufferedStream& stream(size_t i) const { return *streams_[i]; }
  size_t num_streams() const { return streams_.size(); }

  // Sets up the next run of events: every event up to the horizon, the smallest last key
  // of the streams' current batches (a stream whose batch is its last and ended cleanly
  // sets no bound), since no stream has an earlier event still to come. The run ends with
  // the last event of the batch that set the horizon, so that stream needs its next batch
  // before the next run, and its error (if it fails there) comes right after its last good
  // event. Returns how many events the run holds: 0 at the end of every stream, or on error
  // with *status set.
  // A run of up to 4 streams with events in it is left in *tree, one of 5 to
  // LoserTree::kMaxLeaves in *wide, and *order is set to null: the caller merges it as it
  // takes it (EventReader::Next), so that the merge's chain of loads and selects overlaps
  // the work on each event instead of running before it. Any other run (times too far
  // apart for the trees' keys, events at UINT64_MAX, more streams) is merged here with a
  // heap: *order is set to the stream index of each event in merged order (timestamp, then
  // stream index), taken with stream(i).Take(run_records()[k]), valid until the next call.
  size_t MergeNextRun(const uint32_t** order, Status* status, TreeRun* tree, WideRun* wide);
  // The record of each event of the last run, beside *order: the merge has it at hand,
  // and Take() then need not find it in the batch.
  const EventRecord* const* run_records() const { return records_.data(); }

  // Batches a stream may be ahead of the merge.
  static constexpr uint32_t kRingBatches = 4;
  // The largest batch_events taken; larger requests are cut to it.
  static constexpr uint32_t kMaxBatchEvents = 1 << 20;

 private:
  friend class BufferedStream;
  void Run(size_t first_ring);
  // Fills the next batch of `ring` if it has room and no other thread is filling it.
  bool TryFill(BufferedStream::Ring* ring);
  // Fills a batch of some stream other than `except`; false when none could take one.
  bool FillAnother(const BufferedStream::Ring* except);
  void Fill(BufferedStream::Ring* ring);
  void WakeWorkers();
  // MergeNextRun's two ways, over the streams in live_ (each with an event left in its
  // batch): each stream's part of the run counted, then left in *tree (up to 4 streams
  // with events in the run) or *wide (up to LoserTree::kMaxLeaves) when their keys hold
  // the run's times; 0 when an event at UINT64_MAX, the times or more streams rule that
  // out. Then a heap, into order_.
  size_t MergeCountedRun(TreeRun* tree, WideRun* wide);
  size_t MergeHeapRun();
  // Whether the batch ends its stream for good: last, without error, and the stream does
  // not go on in a next chunk. Such a batch bounds no run.
  bool EndsForGood(uint32_t s, const struct DecodedBatch& batch) const;
  // Stream s ended cleanly: frees what its cursor and ring hold, and returns the stream
  // that goes on from it with its first batch at hand (kNoSuccessor: none), or
  // kNoSuccessor with *status set when that one fails first.
  uint32_t JoinSuccessor(uint32_t s, Status* status);

  std::vector<std::unique_ptr<BufferedStream::Ring>> rings_;
  std::vector<std::unique_ptr<BufferedStream>> streams_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_{false};
  // Bumped when a batch is freed: a worker that found nothing to fill waits for it.
  alignas(64) std::atomic<uint32_t> wake_{0};
  std::atomic<uint32_t> sleepers_{0};  // workers in (or entering) wake_.wait
  size_t help_next_ = 0;               // merging thread: where FillAnother looks first
  // MergeNextRun's state (merging thread): the streams not yet ended, in index order, and
  // scratch space reused from run to run.
  bool merge_started_ = false;
  std::vector<uint32_t> live_;
  std::vector<uint32_t> successors_;  // per stream, kNoSuccessor for none
  std::vector<uint32_t> order_;
  std::vector<const EventRecord*> records_;
  std::vector<uint32_t> run_left_;            // MergeHeapRun, per stream: events left in its batch
  std::vector<const EventRecord*> run_next_;  // per stream: its next record
  std::vector<MergeHead> heads_;
  // MergeHeapRun's heap, heads_[0..heap_size_), when heap_valid_; heap_top_refilled_: the
  // last run ended with the top stream's batch, which has been replaced since.
  size_t heap_size_ = 0;
  bool heap_valid_ = false;
  bool heap_top_refilled_ = false;
  uint32_t batch_events_ = 0;
  uint32_t ring_batches_ = kRingBatches;  // 1 without workers: nothing decodes ahead
};

// Decoding threads when ReaderOptions::decode_threads is left at its default: the
// CAUSEWAY_DECODE_THREADS environment variable if set, else 0 (decode in the caller's
// thread). A worker costs CPU (records handed between cores): reads that share the machine
// with other work (span readers, tests, small traces) stay on the caller's thread, and
// whole-trace analyses take AnalysisDecodeThreads() below.
unsigned DefaultDecodeThreads();

// Decoding threads for a whole-trace analysis (the kernel graph that `causeway threads`,
// `critical-path` and the rest build): CAUSEWAY_DECODE_THREADS if set, else 1 on a
// machine with at least 2 CPUs, else 0: there a worker shortens the read for a little more
// CPU in all (bench/README.md).
unsigned AnalysisDecodeThreads();

}  // namespace causeway::ctf
