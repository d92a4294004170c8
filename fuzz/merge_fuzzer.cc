// libFuzzer target, differential: the merge of many streams, read four ways, must agree.
//
// The input is a recipe for a trace, written with our CtfWriter into a temporary directory:
// how many streams (up to 24: the merge takes runs of up to 4 on its 4-leaf tree and more
// on a tree of losers, and those their keys cannot hold on a heap), in one trace or two (the second
// with its clock origin a few ns later, and maybe mapped through a clock transform with a slope, as
// multi-host synchronization does), LTTng's compact event header or perf's plain one, the packet
// size, then events on chosen streams with small time steps (ties across streams all the time),
// jumps past the compact header's 27 bits, events at the clock's last value (UINT64_MAX, where the
// decoding pipeline's end-of-batch markers sit), and discarded events; maybe rotations (each trace
// a recording cut into chunks by CtfWriter::Rotate, which leaves an idle stream's file empty or, as
// LTTng does, closes it with a packet of no event); maybe the 32-bit field of one class declared
// afterwards as fields off byte boundaries over the same bits (ReshapeTick); last, bytes flipped in
// the stream files (errors mid-stream, events that go back in time, broken packet sizes). The trace
// is then read:
//   - merged, decoded in the caller's thread (the reference), and checked against what a
//     merge must give: time never going back, each stream's events in its own order, as
//     the stream read alone gives them;
//   - merged through the decoding pipeline with 1 to 3 threads and batches of 1 to 16
//     events (so that each run of the merge is cut at many batch ends), the events taken
//     by Next(), by EventReader::ForEach, or by ForEach stopped every few events with a
//     few taken by Next() in between;
//   - stream by stream with ScanUnordered on 1 and 2 threads.
// The pipeline must give every event with every field (as JSON, and read through the
// compact refs of its named fields) in the same order, the same error (at the same point)
// and, when the read ends cleanly, the same statistics; the scans the same error and, at a
// clean end, the same statistics. A difference aborts with both sides.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/clock_transform.h"
#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "ctf/writer/ctf_writer.h"
#include "report/event_format.h"

namespace {

using namespace causeway;

// Reads the recipe; past the end every byte is 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  size_t left() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// One directory for every run of this process, removed at exit.
const std::string& WorkDir() {
  static const std::string dir = [] {
    std::string d =
        (std::filesystem::temp_directory_path() / "causeway-merge-fuzzer-XXXXXX").string();
    if (!mkdtemp(d.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    return d;
  }();
  static const bool cleanup = [] {
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(WorkDir(), ec);
    });
    return true;
  }();
  (void)cleanup;
  return dir;
}

std::string StatsLine(const ctf::StreamStats& s) {
  return fmt::format(
      "{} trace={} class={} instance={} cpu={} bytes={} packets={} events={} "
      "discarded={} lost_packets={} clamped={} back={} first={} last={}",
      s.path, s.trace_index, s.stream_class_id, s.stream_instance_id, s.cpu, s.file_bytes,
      s.packets, s.events, s.discarded_events, s.lost_packets, s.clamped_events, s.max_backward_ns,
      s.first_ts, s.last_ts);
}

// What WriteTraces made: the trace directories, and how to read them.
struct Traces {
  std::vector<std::string> dirs;
  ctf::ReaderOptions options;
};

struct Read {
  std::vector<std::string> events;
  // Each event's stream and timestamp (ReadMerged), or each stream's event lines (Scan).
  std::vector<std::pair<uint32_t, uint64_t>> keys;
  std::map<uint32_t, std::vector<std::string>> per_stream;
  std::vector<std::string> stats;
  std::string status;
  uint64_t consumed = 0;
};

// How ReadMerged takes the events: one Next() call each; EventReader::ForEach; or ForEach
// stopped every few events, a few taken by Next(), then ForEach again.
enum class Api { kNext, kForEach, kMixed };
const char* ApiName(Api api) {
  return api == Api::kNext ? "Next()" : api == Api::kForEach ? "ForEach" : "ForEach and Next()";
}

// An event's JSON, then its named fields read through the compact refs made for them
// (field_ref.h): an event of static layout is read from its table of places
// (Event::static_fields), the others through the slots.
void AppendEvent(report::EventFormatter& json, const ctf::Event& e, std::string* line) {
  json.AppendJson(e, line);
  *line += " refs:";
  for (int i = 0; i < static_cast<int>(e.plan->fields.size()); ++i) {
    if (auto r = ctf::ScalarRefOf(*e.plan, i))
      *line += fmt::format(" {}", e.GetUnsigned(*r));
    else if (auto t = ctf::TextRefOf(*e.plan, i))
      *line += fmt::format(" '{}'", e.GetString(*t));
  }
}

// An event as a line: its JSON with every field, plus what JSON leaves out.
std::string EventLine(report::EventFormatter& json, const ctf::Event& e) {
  std::string line = fmt::format("stream={} class={} t={} cycles={} ", e.stream_index,
                                 e.class_index, e.timestamp, e.cycles);
  if (e.kind == ctf::Event::Kind::kDiscarded)
    line += fmt::format("lost={} in [{}, {}]", e.discarded, e.discarded_begin, e.discarded_end);
  else
    AppendEvent(json, e, &line);
  return line;
}

Read ReadMerged(const Traces& traces, unsigned threads, uint32_t batch, Api api = Api::kNext) {
  Read r;
  ctf::ReaderOptions o = traces.options;
  o.decode_threads = threads;
  o.decode_batch_events = batch;
  auto reader = ctf::EventReader::Open(traces.dirs, o);
  if (!reader.ok()) {
    r.status = reader.status().ToString();
    return r;
  }
  report::EventFormatter json({.time = report::TimeFormat::kCycles, .delta = false});
  auto add = [&](const ctf::Event& e) {
    r.events.push_back(EventLine(json, e));
    r.keys.push_back({e.stream_index, e.timestamp});
  };
  ctf::EventReader& reader_ref = **reader;
  if (api == Api::kNext) {
    while (const ctf::Event* e = reader_ref.Next()) add(*e);
  } else if (api == Api::kForEach) {
    reader_ref.ForEach(add);
  } else {
    for (size_t round = 0;; ++round) {
      const size_t stop_at = r.events.size() + 1 + round % 7;
      if (!reader_ref.ForEach([&](const ctf::Event& e) {
            add(e);
            return r.events.size() < stop_at;
          }))
        break;
      const ctf::Event* e = nullptr;
      for (size_t k = 0; k < round % 3 && (e = reader_ref.Next()) != nullptr; ++k) add(*e);
      if (round % 3 > 0 && !e) break;
    }
  }
  r.status = reader_ref.status().ToString();
  for (const auto& s : (*reader)->stream_stats()) r.stats.push_back(StatsLine(s));
  r.consumed = (*reader)->consumed_bytes();
  return r;
}

Read Scan(const Traces& traces, unsigned threads) {
  Read r;
  ctf::ReaderOptions o = traces.options;
  o.decode_threads = 0;
  auto reader = ctf::EventReader::Open(traces.dirs, o);
  if (!reader.ok()) {
    r.status = reader.status().ToString();
    return r;
  }
  std::atomic<uint64_t> events{0};
  std::mutex mu;
  r.status = (*reader)
                 ->ScanUnordered(threads,
                                 [&](unsigned, ctf::StreamCursor& c) {
                                   report::EventFormatter json(
                                       {.time = report::TimeFormat::kCycles, .delta = false});
                                   std::vector<std::string> lines;
                                   uint32_t stream = 0;
                                   while (c.Next()) {
                                     lines.push_back(EventLine(json, c.event()));
                                     stream = c.event().stream_index;
                                   }
                                   events += lines.size();
                                   if (lines.empty()) return;
                                   std::lock_guard lock(mu);
                                   r.per_stream[stream] = std::move(lines);
                                 })
                 .ToString();
  for (const auto& s : (*reader)->stream_stats()) r.stats.push_back(StatsLine(s));
  r.events.resize(events.load());
  return r;
}

// The merge checked against what it must be, independently of how it is done: timestamps
// never go back, and each stream's events come out in the stream's own order, as reading
// the stream alone (`scan`) gives them: all of them when the read ends cleanly, a prefix
// when it stops at an error.
void ExpectMergeOf(const Read& merged, const Read& scan) {
  std::map<uint32_t, std::vector<std::string>> got;
  for (size_t k = 0; k < merged.events.size(); ++k) {
    if (k > 0 && merged.keys[k].second < merged.keys[k - 1].second) {
      std::fprintf(stderr, "merge_fuzzer: event %zu goes back in time:\n  %s\n  %s\n", k,
                   merged.events[k - 1].c_str(), merged.events[k].c_str());
      std::abort();
    }
    got[merged.keys[k].first].push_back(merged.events[k]);
  }
  const bool clean = merged.status == "OK" && scan.status == "OK";
  for (const auto& [stream, lines] : scan.per_stream) {
    const std::vector<std::string>& m = got[stream];
    const bool same =
        clean ? m == lines
              : m.size() <= lines.size() && std::equal(m.begin(), m.end(), lines.begin());
    if (!same) {
      std::fprintf(stderr,
                   "merge_fuzzer: stream %u merged (%zu events, %s) is not %s its own read (%zu "
                   "events, %s)\n",
                   stream, m.size(), merged.status.c_str(), clean ? "" : "a prefix of",
                   lines.size(), scan.status.c_str());
      std::abort();
    }
  }
  for (const auto& [stream, lines] : got)
    if (!lines.empty() && !scan.per_stream.count(stream)) {
      std::fprintf(stderr, "merge_fuzzer: stream %u has %zu merged events, none read alone\n",
                   stream, lines.size());
      std::abort();
    }
}

// Aborts with what differs, and both sides' statistics (how far each stream was read).
[[noreturn]] void Differ(const std::string& what, const std::string& want, const std::string& got,
                         const Read& want_read, const Read& got_read) {
  std::fprintf(stderr, "merge_fuzzer: %s differs\n  reference: %s\n  other:     %s\n", what.c_str(),
               want.c_str(), got.c_str());
  for (const auto& [side, r] :
       {std::pair{"reference", &want_read}, std::pair{"other", &got_read}}) {
    std::fprintf(stderr, "  %s read %zu events, ending: %s\n", side, r->events.size(),
                 r->status.c_str());
    for (const std::string& line : r->stats) std::fprintf(stderr, "    %s\n", line.c_str());
  }
  std::abort();
}

void ExpectSame(const std::string& how, const Read& want, const Read& got, bool compare_events) {
  if (got.status != want.status) Differ(how + " status", want.status, got.status, want, got);
  if (compare_events) {
    const size_t n = std::min(want.events.size(), got.events.size());
    for (size_t i = 0; i < n; ++i)
      if (got.events[i] != want.events[i])
        Differ(fmt::format("{} event {}", how, i), want.events[i], got.events[i], want, got);
  }
  // After an error the other streams' statistics (and, for a scan, which events were
  // read) depend on how far each way decoded them.
  if (compare_events && got.events.size() != want.events.size())
    Differ(how + " event count", std::to_string(want.events.size()),
           std::to_string(got.events.size()), want, got);
  if (want.status != "OK") return;
  if (got.events.size() != want.events.size())
    Differ(how + " event count", std::to_string(want.events.size()),
           std::to_string(got.events.size()), want, got);
  if (got.stats.size() != want.stats.size())
    Differ(how + " stream count", std::to_string(want.stats.size()),
           std::to_string(got.stats.size()), want, got);
  for (size_t i = 0; i < want.stats.size(); ++i)
    if (got.stats[i] != want.stats[i])
      Differ(how + " statistics", want.stats[i], got.stats[i], want, got);
}

// Declares the tick's `k` (32 bits on a byte) in the metadata at `path` as five fields
// over the same bits: in the first byte 3 bits, then a signed 5-bit field 3 bits into it;
// a big-endian 16-bit field (the byte order changes on byte boundaries only, as CTF
// readers such as babeltrace2 require); in the last byte 5 bits, then a signed 3-bit field
// 5 bits into it. The events' bytes and layout stay the same, but the named-field reads
// now shift (the pipeline's static-field entries) or take the general path (big endian),
// and must still read the same values as the stream read alone. (The ticks' values are spread over
// all 32 bits for that.)
void ReshapeTick(const std::string& path) {
  std::string text;
  {
    std::ifstream f(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  const size_t at = text.find(" _k;");
  if (at == std::string::npos) std::abort();  // the writer's declaration changed
  const size_t begin = text.rfind('\n', at) + 1;
  text.replace(begin, at + 4 - begin,
               "integer { size = 3; align = 8; signed = false; } _k3;\n"
               "integer { size = 5; align = 1; signed = true; } _ks5;\n"
               "integer { size = 16; align = 1; signed = false; byte_order = be; } _kbe;\n"
               "integer { size = 5; align = 1; signed = false; } _k5;\n"
               "integer { size = 3; align = 1; signed = true; } _ks3;");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Writes the traces the recipe describes below `root`; false when the recipe makes none.
// One trace, or two (hosts "a" and "b", streams alternating between them; "b"'s clock origin
// a few ns later, and with `transform` its clock mapped through a slope other than 1, as a
// multi-host synchronization would).
bool WriteTraces(Bytes& in, const std::string& root, Traces* out) {
  const uint8_t shape = in.Next();
  const uint32_t streams = 1 + shape % 24;
  const uint32_t traces = 1 + (shape / 24) % 2;
  const bool transform = (shape / 48) % 2 == 1;
  const bool plain_header = (shape / 96) % 2 == 1;  // perf's layout instead of LTTng's
  // Ops 252 and 253 rotate the trace of its stream: every trace is written as chunks
  // (chunk-N). A stream idle through the chunk leaves its file empty (252) or writes a
  // packet of no event up to the cut (253), a case where the merge once lost a
  // chain's chunks.
  // Shapes 192 and up: no plain header then, and the transform (shapes 240 and up) maps
  // host "b" only, so that it changes nothing for their single trace.
  const bool rotating = shape >= 192;
  const uint8_t packing = in.Next();
  std::vector<std::unique_ptr<ctf::CtfWriter>> writers;
  uint32_t tick = 0, note = 0;
  for (uint32_t i = 0; i < traces; ++i) {
    ctf::TraceOptions options;
    options.hostname = i == 0 ? "a" : "b";
    options.packet_size = size_t{256} << (packing % 4);
    options.plain_event_header = plain_header;
    options.clock_offset_ns = i == 0 ? 0 : (packing / 4) % 64;
    out->dirs.push_back(root + "/" + options.hostname);
    auto w = ctf::CtfWriter::Create(out->dirs.back() + (rotating ? "/chunk-0" : ""), options);
    if (!w.ok()) return false;
    tick = *(*w)->AddEventClass("tick", {{"k", ctf::FieldKind::kU32}});
    note =
        *(*w)->AddEventClass("note", {{"s", ctf::FieldKind::kString}, {"v", ctf::FieldKind::kS64}});
    writers.push_back(std::move(w).value());
  }
  // A rotated recording has every stream from the start, as LTTng has a file per CPU in
  // every chunk: a stream may then have no event in its first chunks.
  if (rotating)
    for (uint32_t s = 0; s < streams; ++s)
      if (!writers[s % traces]->SetDiscarded(s / traces, 0).ok()) return false;
  if (transform)
    out->options =
        ctf::ReaderOptions::ByHost({{"b", ClockTransform::FromLine(1.0001L, -50.0L, 5000)}});
  std::vector<uint64_t> ts(streams, 1000);
  std::vector<uint64_t> discarded(streams, 0);
  std::vector<uint32_t> chunks(traces, 0);
  // The flips at the end: 4 bytes each. Bit 2 of the same byte: the tick's 32-bit field
  // is declared, once the trace is written, as fields off byte boundaries over the same
  // bits (see ReshapeTick).
  const uint8_t flips_byte = in.Next();
  const size_t flips = flips_byte % 4;
  const bool reshape_tick = (flips_byte / 4) % 2 == 1;
  uint32_t k = 0;
  while (in.left() > 4 * flips) {
    const uint8_t op = in.Next();
    const uint8_t arg = in.Next();
    const uint32_t s = arg % streams;
    ctf::CtfWriter& w = *writers[s % traces];
    const uint32_t ws = s / traces;  // the stream's index in its trace
    uint64_t& t = ts[s];
    if (rotating && (op == 252 || op == 253)) {
      const uint32_t i = s % traces;
      const auto idle = op == 252 ? ctf::CtfWriter::IdleStreams::kLeaveFileEmpty
                                  : ctf::CtfWriter::IdleStreams::kWriteEmptyPacket;
      if (!w.Rotate(out->dirs[i] + "/chunk-" + std::to_string(++chunks[i]), idle).ok())
        return false;
      if (op == 253) {
        // An idle stream's clock moved on to the cut (the trace's latest event): so do
        // all the trace's streams, as in a recording cut at one time.
        uint64_t cut = 0;
        for (uint32_t j = i; j < streams; j += traces) cut = std::max(cut, ts[j]);
        for (uint32_t j = i; j < streams; j += traces) ts[j] = cut;
      }
      continue;
    }
    switch (op % 8) {
      case 5:  // the clock's last value: the stream stays there
        t = UINT64_MAX;
        break;
      case 6:  // events lost here
        discarded[s] += 1 + (op >> 3);
        if (!w.SetDiscarded(ws, discarded[s]).ok()) return false;
        continue;
      case 7:  // a jump the compact header cannot express
        t = UINT64_MAX - t < (uint64_t{op} << 24) ? UINT64_MAX : t + (uint64_t{op} << 24);
        break;
      default:  // a small step, often none
        t = UINT64_MAX - t < (op >> 4) ? UINT64_MAX : t + (op >> 4);
    }
    if (op % 2 == 0)
      w.Begin(ws, tick, t).U32(k++ * 2654435761u);  // every bit of the field in play
    else
      w.Begin(ws, note, t).String(std::string(op % 7, 'a' + arg % 26)).S64(-int64_t{op});
  }
  std::vector<std::string> files;
  for (size_t i = 0; i < traces; ++i) {
    if (!writers[i]->Close().ok()) return false;
    for (const auto& f : std::filesystem::recursive_directory_iterator(out->dirs[i])) {
      if (!f.is_regular_file()) continue;
      if (f.path().filename() != "metadata")
        files.push_back(f.path().string());
      else if (reshape_tick)
        ReshapeTick(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i < flips && !files.empty(); ++i) {
    const std::string& path = files[in.Next() % files.size()];
    const uint32_t at = uint32_t{in.Next()} << 8 | in.Next();
    const uint8_t mask = in.Next();
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto size = static_cast<uint64_t>(f.tellg());
    if (size == 0 || mask == 0) continue;
    char c = 0;
    f.seekg(static_cast<std::streamoff>(at % size));
    f.read(&c, 1);
    c = static_cast<char>(c ^ static_cast<char>(mask));
    f.seekp(static_cast<std::streamoff>(at % size));
    f.write(&c, 1);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  Bytes in(data, size);
  const std::string root = WorkDir() + "/t";
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  const unsigned threads = 1 + in.Next() % 3;
  // The low bits choose the batch size, the high ones how the events are taken.
  const uint8_t batch_byte = in.Next();
  const uint32_t batch = 1 + batch_byte % 16;
  const Api api = static_cast<Api>(batch_byte / 16 % 3);
  Traces traces;
  if (!WriteTraces(in, root, &traces)) return 0;

  const Read reference = ReadMerged(traces, 0, 0);
  // For checking what a seed covers: CAUSEWAY_MERGE_FUZZER_VERBOSE=1 merge_fuzzer SEED...
  static const bool verbose = std::getenv("CAUSEWAY_MERGE_FUZZER_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr,
                 "merge_fuzzer: %zu traces%s, %zu streams, %zu events, %u threads, batches of %u, "
                 "%s: %s\n",
                 traces.dirs.size(), traces.options.clock_transform ? " (transformed)" : "",
                 reference.stats.size(), reference.events.size(), threads, batch, ApiName(api),
                 reference.status.c_str());
  const Read piped = ReadMerged(traces, threads, batch, api);
  ExpectSame(fmt::format("pipeline ({} threads, batches of {}, {})", threads, batch, ApiName(api)),
             reference, piped, true);
  if (reference.status == "OK" && piped.consumed != reference.consumed)
    Differ("consumed bytes", std::to_string(reference.consumed), std::to_string(piped.consumed),
           reference, piped);
  for (unsigned scan_threads : {1u, 2u}) {
    const Read scan = Scan(traces, scan_threads);
    ExpectSame(fmt::format("scan on {} threads", scan_threads), reference, scan, false);
    if (scan_threads == 1) ExpectMergeOf(reference, scan);
  }
  return 0;
}
