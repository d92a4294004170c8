// Merges every stream of one or more traces into one timestamp-ordered sequence.
//
// Events are ordered by (timestamp, stream index), so equal timestamps come out in a
// stable, deterministic order. Each stream is ordered by construction (StreamCursor clamps
// the rare step back and counts it), so the merged sequence is ordered too, whatever the
// disorder across streams. One path whatever ReaderOptions::decode_threads says:
// DecodePipeline decodes the streams into batches (on worker threads, or on the caller's
// when there are none) and finds runs of decoded events that can be ordered now
// (MergeNextRun); Next() takes a run of up to 4 streams one tree step per event (TreeRun),
// one of 5 to 256 streams one step of a tree of losers per event (WideRun), and any other
// (times too far apart for the trees' keys, events at UINT64_MAX, more streams) as the
// pipeline merged it with a heap, in the same order. ForEach() gives the same events to a
// callback, the 4-leaf tree's heads kept in registers through each run: the fastest way to
// read a whole trace.
//
// Traces that share a UUID are chunks of one recording (`lttng rotate` writes each chunk
// as a trace of its own under archives/, as babeltrace2 merges them back): a stream of a
// later chunk goes on from the stream of the same class and instance id in the chunk
// before, so the tracer's running counts (discarded events, packet sequence numbers) are
// taken across the chunk boundary instead of starting again at 0 (LinkChunks).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/clock_transform.h"
#include "base/status.h"
#include "ctf/reader/decode_pipeline.h"
#include "ctf/reader/event.h"
#include "ctf/reader/stream_cursor.h"
#include "ctf/reader/trace.h"

namespace causeway::ctf {

struct ReaderOptions {
  // Called once per trace after its metadata is read: the transform from the trace's clock
  // to the analysis timebase (multi-host synchronization). Timestamps are transformed
  // before the merge, so the merged order is the synchronized order. Unset: identity.
  std::function<ClockTransform(const Trace&)> clock_transform;

  // Threads decoding stream files while the caller's thread merges (DecodePipeline); 0
  // decodes in the caller's thread, a batch at a time as the merge needs it. The events,
  // their order and the errors are the same.
  unsigned decode_threads = DefaultDecodeThreads();

  // Events per decoded batch (at most
  // DecodePipeline::kMaxBatchEvents); 0 sizes them automatically (64 to 1024, smaller with
  // more streams). Tests and the merge fuzzer set a few events, so that a small trace
  // crosses many batch ends, where each run of the merge is cut.
  uint32_t decode_batch_events = 0;

  // Called once per trace after its metadata is read: false leaves the trace out (its
  // streams are not opened; EventReader::skipped_traces() names it). Unset: every trace.
  // A reader that needs only some event classes skips the traces holding none of them
  // instead of decoding their events for nothing.
  std::function<bool(const Trace&)> use_trace;

  // Options whose clock_transform looks each trace's env hostname up in `by_host` (identity
  // for hosts not listed; no transform at all when the map is empty).
  static ReaderOptions ByHost(std::map<std::string, ClockTransform> by_host);
};

// Cache-line aligned, like StreamCursor and BufferedStream: each is written on every event
// by one thread, and a line shared with a heap object that the other thread writes makes
// the two threads fight over it. Which objects share lines depends on the size of earlier
// allocations, so without the alignment an unrelated change of a member's size moves the
// read's speed.
class alignas(64) EventReader {
 public:
  // Opens every trace directory. A directory that holds no `metadata` but has trace
  // directories below it (LTTng's output layout) is searched recursively.
  static StatusOr<std::unique_ptr<EventReader>> Open(const std::vector<std::string>& paths,
                                                     const ReaderOptions& options = {});

  // The next event, or nullptr at the end or on error (then status() is not OK). The
  // event stays valid until the next call. Always inlined: GCC does not inline it into a
  // reading loop on its own (ForEach's instance takes its place), and the call costs a
  // few dozen instructions an event.
  [[gnu::always_inline]] const Event* Next() {
    if (tree_.left > 0) [[likely]] {  // a run merged as it is taken
      --tree_.left;
      size_t leaf;
      const EventRecord* record = tree_.tree.Take(&leaf);
      return tree_.stream_of_leaf[leaf]->Take(record);
    }
    if (wide_.left > 0) {  // likewise, a run of more than 4 streams
      --wide_.left;
      size_t leaf;
      const EventRecord* record = wide_.tree.Take(&leaf);
      return wide_.stream_of_leaf[leaf]->Take(record);
    }
    if (run_.pos < run_.size) {  // a run merged before (by the heap)
      const size_t k = run_.pos++;
      return run_.streams[run_.order[k]]->Take(run_.records[k]);
    }
    return NextSlow();
  }
  const Status& status() const { return status_; }

  // Calls f(const Event&) for each event, in the order Next() gives them, until the end,
  // an error (status()), or f returning false when it returns bool; returns whether f
  // stopped it. Next() may go on after f stopped it; f must not call Next() itself. The
  // same events as Next(), faster: the merge's heads stay in
  // registers through a run (MergeTreeSteps::TakeRest) instead of being stored and loaded
  // back on every call, and each view is built inline. A consumer that reads every field
  // gains little: the field reads' registers crowd the heads'.
  template <typename F>
  bool ForEach(F&& f) {
    // f's result as a bool: true (go on) for an f that returns nothing.
    auto call = [&f](const Event& e) __attribute__((always_inline))->bool {
      if constexpr (std::is_void_v<std::invoke_result_t<F&, const Event&>>) {
        f(e);
        return true;
      } else {
        return static_cast<bool>(f(e));
      }
    };
    // Takes the rest of a run merged as it is taken (TreeRun or WideRun) from its streams,
    // one per leaf; true when f stopped it.
    auto take_rest = [&](auto& run, const auto& streams) __attribute__((always_inline)) {
      bool stopped = false;
      auto take = [&](size_t leaf, const EventRecord* r) __attribute__((always_inline)) {
        stopped = !call(*streams[leaf]->TakeInline(r));
        return !stopped;
      };
      run.left -= run.tree.TakeRest(run.left, take);
      return stopped;
    };
    for (;;) {
      if (tree_.left > 0) {
        // Copied out of the reader, as the 4-leaf loop has taken its streams since a8f445f.
        const std::array<BufferedStream*, 4> streams = tree_.stream_of_leaf;
        if (take_rest(tree_, streams)) return true;
        continue;
      }
      if (wide_.left > 0) {
        if (take_rest(wide_, wide_.stream_of_leaf.data())) return true;
        continue;
      }
      if (run_.pos < run_.size) {
        const size_t k = run_.pos++;
        if (!call(*run_.streams[run_.order[k]]->TakeInline(run_.records[k]))) return true;
        continue;
      }
      const Event* e = NextSlow();
      if (!e) return false;
      if (!call(*e)) return true;
    }
  }

  // For consumers whose result does not depend on the order across streams (counts by
  // name, time range, per-stream summaries): decodes each stream from start to end without
  // merging, the streams spread over `threads` threads, largest file first. Calls
  // scan_stream(worker, cursor) once per stream, from thread `worker` (0 is the caller's,
  // 1.. are started here, at most one per stream); the callback calls cursor.Next() until
  // it returns false and sees that stream's events in their order. Callbacks of different
  // workers run at the same time, so whatever they share must be per worker or atomic.
  // Streams run to their end even when another one fails; the status returned is the error
  // the merged read would have stopped at (of the failing streams, one that failed before
  // its first record, else the one whose last good record is earliest), else OK. Only on a reader
  // opened with decode_threads = 0 and before the first Next(); afterwards Next() returns nullptr
  // and stream_stats() holds every stream's statistics.
  Status ScanUnordered(
      unsigned threads,
      const std::function<void(unsigned worker, StreamCursor& cursor)>& scan_stream);

  const std::vector<std::unique_ptr<Trace>>& traces() const { return traces_; }
  // The directories of the traces ReaderOptions::use_trace left out, in the order found.
  const std::vector<std::string>& skipped_traces() const { return skipped_traces_; }
  std::vector<StreamStats> stream_stats() const;
  uint64_t total_bytes() const { return total_bytes_; }
  // Event::class_index is below this.
  uint32_t num_event_classes() const { return num_event_classes_; }
  uint64_t consumed_bytes() const;

 private:
  EventReader() = default;
  // Has each stream of a later chunk (traces sharing a UUID) continue the same stream of
  // the chunk before (StreamCursor::ContinueFrom), when its first packet's counters go on
  // from that chunk's last ones. Reads the packet headers of every chunk but the last;
  // streams it cannot place are left to count from 0. `transforms` per trace.
  void LinkChunks(const std::vector<ClockTransform>& transforms);
  const Event* NextSlow();

  std::vector<std::unique_ptr<Trace>> traces_;
  std::vector<std::string> skipped_traces_;
  std::vector<std::unique_ptr<StreamCursor>> cursors_;
  // Chunks linked by LinkChunks: the stream that goes on from each (kNoStream: none) and
  // the one each goes on from. A stream that goes on from another joins the merge only
  // when that one ends (its events all come after), so that a recording of
  // many chunks merges as many heads as one chunk has streams, and holds the memory of
  // that many cursors.
  static constexpr uint32_t kNoStream = UINT32_MAX;
  std::vector<uint32_t> successor_, predecessor_;
  uint32_t num_event_classes_ = 0;
  // Declared after cursors_: destroyed (workers joined) before the cursors they decode.
  // Null once ScanUnordered has read the cursors itself.
  std::unique_ptr<DecodePipeline> pipeline_;
  // The pipeline's streams, and the run it merged last (stream indexes
  // in merged order; pos is the next one to return), on a cache line of their own.
  struct alignas(64) Run {
    BufferedStream* const* streams = nullptr;
    const uint32_t* order = nullptr;
    const EventRecord* const* records = nullptr;
    size_t pos = 0, size = 0;
  } run_;
  TreeRun tree_;
  WideRun wide_;
  std::vector<BufferedStream*> buffered_;
  bool started_ = false;
  Status status_;
  uint64_t total_bytes_ = 0;
};

// Finds trace directories (those holding a `metadata` file) at or below `path`.
StatusOr<std::vector<std::string>> FindTraceDirs(const std::string& path);

}  // namespace causeway::ctf
