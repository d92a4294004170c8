#include "ctf/reader/event_reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <map>
#include <numeric>
#include <system_error>
#include <thread>
#include <tuple>

#include <fmt/format.h>

namespace causeway::ctf {

namespace fs = std::filesystem;

StatusOr<std::vector<std::string>> FindTraceDirs(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return NotFound(fmt::format("Cannot open trace: {} does not exist", path));
  if (!fs::is_directory(path, ec))
    return InvalidArgument(fmt::format("Cannot open trace: {} is not a directory", path));
  if (fs::exists(fs::path(path) / "metadata", ec)) return std::vector<std::string>{path};
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(
           path, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 8) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && it->path().filename() == "metadata")
      found.push_back(it->path().parent_path().string());
  }
  if (found.empty())
    return NotFound(fmt::format("Cannot open trace: no CTF metadata file in or below {}", path));
  std::sort(found.begin(), found.end());
  return found;
}

ReaderOptions ReaderOptions::ByHost(std::map<std::string, ClockTransform> by_host) {
  ReaderOptions o;
  if (by_host.empty()) return o;
  o.clock_transform = [m = std::move(by_host)](const Trace& t) {
    auto it = m.find(t.hostname());
    return it != m.end() ? it->second : ClockTransform{};
  };
  return o;
}

StatusOr<std::unique_ptr<EventReader>> EventReader::Open(const std::vector<std::string>& paths,
                                                         const ReaderOptions& options) {
  auto r = std::unique_ptr<EventReader>(new EventReader());
  if (paths.empty()) return InvalidArgument("no trace directory given");
  MetadataCache metadata;  // the chunks of a rotated recording share theirs
  for (const auto& p : paths) {
    ASSIGN_OR_RETURN(std::vector<std::string> dirs, FindTraceDirs(p));
    for (const auto& d : dirs) {
      ASSIGN_OR_RETURN(std::unique_ptr<Trace> t, Trace::Open(d, &metadata));
      if (options.use_trace && !options.use_trace(*t)) {
        r->skipped_traces_.push_back(t->dir());
        continue;
      }
      r->traces_.push_back(std::move(t));
    }
  }
  std::vector<ClockTransform> transforms;
  for (uint32_t ti = 0; ti < r->traces_.size(); ++ti) {
    const uint32_t class_base = r->num_event_classes_;
    r->num_event_classes_ += r->traces_[ti]->plan().num_event_classes;
    transforms.push_back(options.clock_transform ? options.clock_transform(*r->traces_[ti])
                                                 : ClockTransform{});
    for (const auto& path : r->traces_[ti]->stream_paths()) {
      auto c = std::make_unique<StreamCursor>(r->traces_[ti].get(), ti,
                                              static_cast<uint32_t>(r->cursors_.size()), class_base,
                                              path, transforms.back());
      RETURN_IF_ERROR(c->Open());
      r->total_bytes_ += c->stats().file_bytes;
      r->cursors_.push_back(std::move(c));
    }
  }
  r->LinkChunks(transforms);
  std::vector<StreamCursor*> cursors;
  for (auto& c : r->cursors_) cursors.push_back(c.get());
  r->pipeline_ = std::make_unique<DecodePipeline>(cursors, options.decode_threads,
                                                  options.decode_batch_events, r->successor_);
  return r;
}

void EventReader::LinkChunks(const std::vector<ClockTransform>& transforms) {
  successor_.assign(cursors_.size(), kNoStream);
  predecessor_.assign(cursors_.size(), kNoStream);
  std::map<std::array<uint8_t, 16>, int> traces_per_uuid;
  for (const auto& t : traces_)
    if (const auto& uuid = t->trace_class().uuid) ++traces_per_uuid[*uuid];
  // A stream of a chunk: its cursor, and its first packet's counters. Streams are matched
  // by trace UUID, stream class and instance id (LTTng keeps a ring buffer's across
  // chunks, and names its file the same), and ordered by their first packet's time.
  struct Piece {
    uint32_t cursor;
    StreamCursor::PacketCounters first;
  };
  using Key = std::tuple<std::array<uint8_t, 16>, uint64_t, uint64_t>;
  std::map<Key, std::vector<Piece>> pieces;
  auto probe = [&](uint32_t s) {
    const StreamCursor& c = *cursors_[s];
    const uint32_t ti = c.stats().trace_index;
    return std::make_unique<StreamCursor>(traces_[ti].get(), ti, s, 0, c.stats().path,
                                          transforms[ti]);
  };
  for (uint32_t s = 0; s < cursors_.size(); ++s) {
    const Trace& t = *traces_[cursors_[s]->stats().trace_index];
    if (!t.trace_class().uuid || traces_per_uuid[*t.trace_class().uuid] < 2) continue;
    auto p = probe(s);
    Piece piece{s, {}};
    // A stream that does not open or whose first packet does not decode stays alone: the
    // read itself reports its error.
    if (!p->Open().ok() || !p->ReadPacketCounters(true, &piece.first, nullptr).ok() ||
        p->stats().packets == 0 || !piece.first.has_instance_id)
      continue;
    pieces[{*t.trace_class().uuid, piece.first.class_id, piece.first.instance_id}].push_back(piece);
  }
  for (auto& [key, chain] : pieces) {
    std::stable_sort(chain.begin(), chain.end(), [](const Piece& a, const Piece& b) {
      return a.first.begin_ns < b.first.begin_ns;
    });
    for (size_t i = 1; i < chain.size(); ++i) {
      auto p = probe(chain[i - 1].cursor);
      StreamCursor::PacketCounters first, last;
      if (!p->Open().ok() || !p->ReadPacketCounters(false, &first, &last).ok()) continue;
      const StreamCursor::PacketCounters& next = chain[i].first;
      // The counts go on from the chunk before only if they did not go back (the same
      // trace given twice, say, starts again: it is read as a trace of its own).
      if (next.begin_ns < last.end_ns) continue;
      if (last.has_seq && next.has_seq && next.seq <= last.seq) continue;
      if (last.has_discarded && next.has_discarded && next.discarded < last.discarded) continue;
      cursors_[chain[i].cursor]->ContinueFrom(last);
      cursors_[chain[i - 1].cursor]->ContinuedBy(last);
      successor_[chain[i - 1].cursor] = chain[i].cursor;
      predecessor_[chain[i].cursor] = chain[i - 1].cursor;
    }
  }
}

const Event* EventReader::NextSlow() {
  // The merged run is used up: the pipeline merges the next one.
  if (!pipeline_ || !status_.ok()) return nullptr;
  if (!started_) {
    started_ = true;
    for (size_t s = 0; s < pipeline_->num_streams(); ++s)
      buffered_.push_back(&pipeline_->stream(s));
    run_.streams = buffered_.data();
  }
  run_.pos = 0;
  run_.size = 0;
  const uint32_t* order = nullptr;
  const size_t n = pipeline_->MergeNextRun(&order, &status_, &tree_, &wide_);
  if (n == 0) return nullptr;
  if (!order) return Next();  // tree_ or wide_ holds the run
  run_.order = order;
  run_.size = n;
  run_.records = pipeline_->run_records();
  const size_t k = run_.pos++;
  return run_.streams[run_.order[k]]->Take(run_.records[k]);
}

Status EventReader::ScanUnordered(
    unsigned threads,
    const std::function<void(unsigned worker, StreamCursor& cursor)>& scan_stream) {
  if (started_) return Internal("ScanUnordered after Next()");
  if (pipeline_->num_workers() > 0)
    return Internal("ScanUnordered needs a reader opened with decode_threads = 0");
  // The cursors are read here, not through the pipeline: Next() returns nullptr from now on.
  started_ = true;
  pipeline_.reset();
  // Largest file first: the thread that takes the last stream is then done soonest.
  std::vector<uint32_t> order(cursors_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return cursors_[a]->stats().file_bytes > cursors_[b]->stats().file_bytes;
  });
  std::atomic<size_t> next{0};
  auto work = [&](unsigned worker) {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < order.size();)
      scan_stream(worker, *cursors_[order[i]]);
  };
  const size_t workers = std::clamp<size_t>(threads, 1, std::max<size_t>(1, order.size()));
  std::vector<std::thread> started;
  for (unsigned w = 1; w < workers; ++w) {
    try {
      started.emplace_back(work, w);
    } catch (const std::system_error&) {
      break;  // no more threads to be had (RLIMIT_NPROC…): the ones started do the rest
    }
  }
  work(0);
  for (std::thread& t : started) t.join();
  // The merged read stops at the failing stream whose last good record comes first: right
  // after it, in (timestamp, stream) order. A stream that failed before returning any
  // record stops the merged read before its first event (the lowest such stream index,
  // since Start() reads each stream's first record in index order). A stream of a later
  // chunk is read once the one it goes on from has ended: never if that one failed. Failing
  // before any record of its own, it stops the read right after the last record of its
  // chain, in that record's stream's place in the (timestamp, stream) order; with no record
  // in its chain at all, in its chain's first stream's place in Start()'s order.
  std::tuple<bool, uint64_t, uint32_t> first_failure{true, UINT64_MAX, UINT32_MAX};
  uint32_t failed = UINT32_MAX;
  for (uint32_t s = 0; s < cursors_.size(); ++s) {
    if (cursors_[s]->status().ok()) continue;
    uint64_t ts = 0;
    uint32_t at = s;  // the stream whose place in the merge's order the failure takes
    bool returned = cursors_[s]->LastRecordTime(&ts), reached = true;
    for (uint32_t p = predecessor_[s]; p != kNoStream; p = predecessor_[p]) {
      reached = reached && cursors_[p]->status().ok();
      if (!returned) {
        at = p;
        returned = cursors_[p]->LastRecordTime(&ts);
      }
    }
    if (!reached) continue;
    if (std::tuple{returned, ts, at} < first_failure) {
      first_failure = {returned, ts, at};
      failed = s;
    }
  }
  if (failed != UINT32_MAX) status_ = cursors_[failed]->status();
  return status_;
}

std::vector<StreamStats> EventReader::stream_stats() const {
  std::vector<StreamStats> out;
  for (size_t s = 0; s < cursors_.size(); ++s)
    out.push_back(pipeline_ ? pipeline_->stream(s).stats() : cursors_[s]->stats());
  return out;
}

uint64_t EventReader::consumed_bytes() const {
  uint64_t n = 0;
  for (size_t s = 0; s < cursors_.size(); ++s)
    n += pipeline_ ? pipeline_->stream(s).bytes_consumed() : cursors_[s]->bytes_consumed();
  return n;
}

}  // namespace causeway::ctf
