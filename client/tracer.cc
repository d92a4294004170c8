// The tracer: spans, their export, the user-space trace and the background thread.
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "causeway/client.h"
#include "causeway/detail/thread_ring.h"
#include "causeway/tracepoint.h"
#include "raw_clock.h"
#include "ring_registry.h"
#include "snapshot_request.h"
#include "span_export.h"
#include "ust_trace_writer.h"

namespace causeway::client {
namespace {

struct RawSpan {
  FinishedSpan span;  // times not yet set
  uint64_t start_raw = 0;
  uint64_t end_raw = 0;
};

struct TracerState {
  std::mutex mutex;  // everything below but the atomics and what ust_mutex guards
  TracerOptions options;
  bool running = false;
  int32_t pid = 0;
  int64_t unix_minus_monotonic_ns = 0;
  ClockCalibration clock;
  // Finished spans some sink still needs: the OTLP file and the endpoint take them as they
  // come, the Jaeger document (rewritten whole) keeps all of them.
  std::vector<RawSpan> finished;
  size_t posted = 0;    // finished[0, posted) went to the OTLP endpoint (or failed to)
  size_t appended = 0;  // finished[0, appended) are in the OTLP file (or failed to be)
  std::unique_ptr<OtlpHttpExporter> http;
  std::string control_socket;
  uint64_t trigger_ns = 0;
  std::string pending_trigger;
  uint64_t last_trigger_mono = 0;

  std::mutex ust_mutex;
  std::unique_ptr<UstTraceWriter> ust;

  // The OTLP JSON Lines file, appended by the worker at every interval and by Flush();
  // taken before `mutex`, so appends happen one at a time and in order.
  std::mutex file_mutex;
  LineFile otlp_file;
  bool otlp_file_has_lines = false;
  bool otlp_file_failed = false;  // its error was printed; later ones are only counted
  std::atomic<uint64_t> span_file_errors{0};
  std::atomic<uint64_t> spans_not_in_file{0};

  std::mutex worker_mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread worker;

  std::atomic<uint64_t> spans_started{0};
  std::atomic<uint64_t> spans_finished{0};
  std::atomic<uint64_t> posts_failed{0};
  std::atomic<uint64_t> snapshots{0};
  uint64_t ust_written_before = 0;  // by earlier traces of this process
  uint64_t ust_lost_before = 0;
};

// Leaked on purpose: threads may end spans during static destruction.
TracerState& State() {
  static TracerState* state = new TracerState;
  return *state;
}

int32_t CurrentTid() {
  thread_local int32_t tid = static_cast<int32_t>(syscall(SYS_gettid));
  return tid;
}

uint64_t RandomNonZero() {
  thread_local std::mt19937_64 rng(
      std::random_device{}() ^ (static_cast<uint64_t>(CurrentTid()) << 32) ^ detail::MonotonicNs());
  uint64_t v = 0;
  while (v == 0) v = rng();
  return v;
}

int64_t ClockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

uint64_t EnvU64(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  return (end && *end == '\0') ? x : 0;
}

std::string EnvString(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Writes one span or activation record into the calling thread's ring.
void WriteSpanEvent(uint32_t key, const SpanContext& c, uint64_t parent, std::string_view op,
                    uint64_t* raw_out) {
  detail::ThreadRing* ring = detail::CurrentRing();
  const bool is_span = key == detail::kStartSpanKey || key == detail::kEndSpanKey;
  const uint16_t op_len = static_cast<uint16_t>(std::min<size_t>(op.size(), 1024));
  const uint32_t payload = is_span ? 4 * 8 + 2 + op_len : 3 * 8;
  uint64_t end;
  uint8_t* p = detail::Reserve(ring, payload, key, &end);
  if (!p) {
    if (raw_out) *raw_out = detail::RawNow();
    return;
  }
  if (raw_out) std::memcpy(raw_out, p - 8, 8);  // the record's own time: span and event agree
  std::memcpy(p, &c.trace_id_high, 8);
  std::memcpy(p + 8, &c.trace_id_low, 8);
  std::memcpy(p + 16, &c.span_id, 8);
  if (is_span) {
    std::memcpy(p + 24, &parent, 8);
    std::memcpy(p + 32, &op_len, 2);
    if (op_len) std::memcpy(p + 34, op.data(), op_len);
  }
  detail::Commit(ring, end);
}

std::vector<FinishedSpan> Convert(TracerState& s, std::vector<RawSpan> raw) {
  std::vector<FinishedSpan> out;
  out.reserve(raw.size());
  for (RawSpan& r : raw) {
    r.span.start_unix_ns = static_cast<uint64_t>(
        static_cast<int64_t>(s.clock.ToMonotonic(r.start_raw)) + s.unix_minus_monotonic_ns);
    r.span.end_unix_ns = static_cast<uint64_t>(
        static_cast<int64_t>(s.clock.ToMonotonic(r.end_raw)) + s.unix_minus_monotonic_ns);
    out.push_back(std::move(r.span));
  }
  return out;
}

// Drops the finished spans that every sink has taken. Called with s.mutex held.
void TrimFinished(TracerState& s) {
  if (!s.options.jaeger_json_file.empty()) return;  // rewritten whole at each flush
  size_t done = s.finished.size();
  if (!s.options.otlp_json_file.empty()) done = std::min(done, s.appended);
  if (s.http) done = std::min(done, s.posted);
  if (done == 0) return;
  s.finished.erase(s.finished.begin(), s.finished.begin() + static_cast<ptrdiff_t>(done));
  s.appended -= std::min(s.appended, done);
  s.posted -= std::min(s.posted, done);
}

void ReportFileError(TracerState& s, const Status& st) {
  s.span_file_errors.fetch_add(1);
  if (!s.otlp_file_failed) {
    s.otlp_file_failed = true;
    std::fprintf(stderr, "causeway-client: %s (further failures are only counted)\n",
                 st.ToString().c_str());
  }
}

// Appends the spans finished since the last append to the OTLP file, as whole lines. With
// `final` (at shutdown) a file that got no span yet gets a line with none, so that it still
// names its service. Called without s.mutex held.
void AppendPendingSpans(TracerState& s, bool final) {
  std::lock_guard file_lock(s.file_mutex);
  std::vector<RawSpan> batch;
  std::string service;
  int32_t pid;
  {
    std::lock_guard lock(s.mutex);
    if (s.options.otlp_json_file.empty()) return;
    if (s.appended == s.finished.size() && !(final && !s.otlp_file_has_lines)) return;
    batch.assign(s.finished.begin() + static_cast<ptrdiff_t>(s.appended), s.finished.end());
    s.appended = s.finished.size();
    service = s.options.service_name;
    pid = s.pid;
    // A file that could not be created (reported by Init) takes nothing: the spans are
    // counted and dropped rather than kept for ever.
    if (!s.otlp_file.is_open()) {
      s.spans_not_in_file.fetch_add(batch.size());
      TrimFinished(s);
      return;
    }
  }
  s.clock.Sample();  // after the spans ended: their raw times convert by interpolation
  const size_t batch_spans = batch.size();
  const Status st = s.otlp_file.Append(ToOtlpJsonLines(service, pid, Convert(s, std::move(batch))));
  std::lock_guard lock(s.mutex);
  if (st.ok()) {
    s.otlp_file_has_lines = true;
  } else {
    s.spans_not_in_file.fetch_add(batch_spans);
    ReportFileError(s, st);
  }
  TrimFinished(s);
}

// Posts the spans finished since the last post. Called without s.mutex held.
void PostPending(TracerState& s) {
  std::vector<RawSpan> batch;
  std::string service;
  int32_t pid;
  OtlpHttpExporter* http;
  {
    std::lock_guard lock(s.mutex);
    if (!s.http || s.posted == s.finished.size()) return;
    batch.assign(s.finished.begin() + static_cast<ptrdiff_t>(s.posted), s.finished.end());
    s.posted = s.finished.size();
    service = s.options.service_name;
    pid = s.pid;
    http = s.http.get();
  }
  s.clock.Sample();
  const Status st = http->Post(ToOtlpJson(service, pid, Convert(s, std::move(batch))));
  if (!st.ok() && s.posts_failed.fetch_add(1) == 0)
    std::fprintf(stderr, "causeway-client: %s (further failures are only counted)\n",
                 st.ToString().c_str());
  std::lock_guard lock(s.mutex);
  TrimFinished(s);
}

void SendPendingTrigger(TracerState& s) {
  std::string reason, socket;
  {
    std::lock_guard lock(s.mutex);
    if (s.pending_trigger.empty()) return;
    reason = std::exchange(s.pending_trigger, {});
    socket = s.control_socket;
  }
  auto reply = RequestSnapshot(socket, reason, 2000);
  s.snapshots.fetch_add(1);
  if (!reply.ok()) {
    std::fprintf(stderr, "causeway-client: %s\n", reply.status().ToString().c_str());
  } else if (reply->rfind("ok", 0) != 0) {
    std::fprintf(stderr, "causeway-client: snapshot refused: %s\n", reply->c_str());
  }
}

void DrainUst(TracerState& s) {
  std::lock_guard lock(s.ust_mutex);
  if (s.ust) s.ust->Drain(s.clock);
}

void WorkerLoop(TracerState& s, uint32_t interval_ms) {
  std::unique_lock lock(s.worker_mutex);
  while (!s.stop) {
    s.wake.wait_for(lock, std::chrono::milliseconds(interval_ms));
    if (s.stop) break;
    lock.unlock();
    s.clock.Sample();
    DrainUst(s);
    AppendPendingSpans(s, /*final=*/false);
    PostPending(s);
    SendPendingTrigger(s);
    lock.lock();
  }
}

// The Jaeger document holds every span since Init, so it is rewritten whole.
void WriteJaegerFile(TracerState& s) {
  std::vector<RawSpan> all;
  TracerOptions options;
  {
    std::lock_guard lock(s.mutex);
    if (s.options.jaeger_json_file.empty()) return;
    all = s.finished;
    options = s.options;
  }
  s.clock.Sample();
  const std::vector<FinishedSpan> spans = Convert(s, std::move(all));
  const Status st = WriteFileAtomically(options.jaeger_json_file,
                                        ToJaegerJson(options.service_name, s.pid, spans));
  if (!st.ok()) std::fprintf(stderr, "causeway-client: %s\n", st.ToString().c_str());
}

std::string ProcName() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  for (char& c : name)
    if (c == '/' || c == ' ') c = '_';
  return name.empty() ? "unknown" : name;
}

// Shuts the tracer down at exit when the program did not, so that its files are complete.
struct ExitFlush {
  ~ExitFlush() { Tracer::Get().Shutdown(); }
} g_exit_flush;

}  // namespace

Span::Span(Tracer* tracer, std::string name, SpanContext context, uint64_t parent_span_id, int kind,
           uint64_t start_raw)
    : tracer_(tracer),
      name_(std::move(name)),
      context_(context),
      parent_span_id_(parent_span_id),
      kind_(kind),
      start_raw_(start_raw) {}

Span::Span(Span&& o) noexcept
    : tracer_(std::exchange(o.tracer_, nullptr)),
      name_(std::move(o.name_)),
      context_(o.context_),
      parent_span_id_(o.parent_span_id_),
      kind_(o.kind_),
      start_raw_(o.start_raw_),
      end_raw_(o.end_raw_),
      attributes_(std::move(o.attributes_)) {}

Span& Span::operator=(Span&& o) noexcept {
  if (this != &o) {
    End();
    tracer_ = std::exchange(o.tracer_, nullptr);
    name_ = std::move(o.name_);
    context_ = o.context_;
    parent_span_id_ = o.parent_span_id_;
    kind_ = o.kind_;
    start_raw_ = o.start_raw_;
    end_raw_ = o.end_raw_;
    attributes_ = std::move(o.attributes_);
  }
  return *this;
}

Span::~Span() { End(); }

void Span::SetAttribute(std::string_view key, std::string_view value) {
  if (tracer_) attributes_.push_back({std::string(key), Attribute::kString, std::string(value)});
}
void Span::SetAttribute(std::string_view key, int64_t value) {
  if (tracer_) attributes_.push_back({std::string(key), Attribute::kInt, {}, value});
}
void Span::SetAttribute(std::string_view key, double value) {
  if (tracer_) attributes_.push_back({std::string(key), Attribute::kDouble, {}, 0, value});
}
void Span::SetAttribute(std::string_view key, bool value) {
  if (tracer_) attributes_.push_back({std::string(key), Attribute::kBool, {}, value ? 1 : 0});
}

void Span::End() {
  if (!tracer_) return;
  if (detail::g_ust_enabled.load(std::memory_order_relaxed)) {
    WriteSpanEvent(detail::kEndSpanKey, context_, parent_span_id_, name_, &end_raw_);
  } else {
    end_raw_ = detail::RawNow();
  }
  Tracer* tracer = std::exchange(tracer_, nullptr);
  tracer->Finish(std::move(*this));
}

Tracer& Tracer::Get() {
  static Tracer tracer;
  return tracer;
}

Tracer& Tracer::Init(TracerOptions options) {
  Tracer& tracer = Get();
  tracer.Shutdown();
  TracerState& s = State();
  RawClockInit();
  if (options.ust_trace_dir.empty()) options.ust_trace_dir = EnvString("CAUSEWAY_TRACE_DIR");
  if (options.record_tracepoints.empty())
    options.record_tracepoints = EnvString("CAUSEWAY_TRACEPOINTS");
  if (options.thread_buffer_bytes == 0)
    options.thread_buffer_bytes = static_cast<uint32_t>(EnvU64("CAUSEWAY_UST_BUFFER_BYTES"));
  if (options.thread_buffer_bytes == 0) options.thread_buffer_bytes = 256 * 1024;
  if (options.thread_buffer_bytes < 4096 ||
      (options.thread_buffer_bytes & (options.thread_buffer_bytes - 1)) != 0) {
    std::fprintf(stderr,
                 "causeway-client: thread buffer of %u bytes is not a power of 2 >= 4096; using "
                 "256 KiB\n",
                 options.thread_buffer_bytes);
    options.thread_buffer_bytes = 256 * 1024;
  }
  if (options.trigger_latency_ns == 0)
    options.trigger_latency_ns = EnvU64("CAUSEWAY_TRIGGER_LATENCY_NS");
  if (options.flush_interval_ms == 0) options.flush_interval_ms = 100;

  // The recorder passes its trace's clock offset (realtime minus monotonic at its start): the
  // user-space trace and the span times then use exactly the kernel trace's time scale.
  const char* offset_env = std::getenv("CAUSEWAY_CLOCK_OFFSET_NS");
  int64_t offset = ClockNs(CLOCK_REALTIME) - ClockNs(CLOCK_MONOTONIC);
  if (offset_env && *offset_env) offset = std::strtoll(offset_env, nullptr, 10);

  std::unique_ptr<UstTraceWriter> ust;
  if (!options.ust_trace_dir.empty()) {
    // Named after the service when there is one (the demo's services share one executable).
    std::string who = options.service_name;
    for (char& c : who)
      if (c == '/' || c == ' ') c = '_';
    if (who.empty() || who == "unknown_service") who = ProcName();
    const std::string base = fmt::format("{}/ust/{}-{}", options.ust_trace_dir, who, getpid());
    std::string dir = base;
    for (int i = 1; std::filesystem::exists(dir); ++i) dir = fmt::format("{}.{}", base, i);
    auto w = UstTraceWriter::Create(dir, offset);
    if (w.ok()) {
      ust = std::move(*w);
    } else {
      std::fprintf(stderr, "causeway-client: no user-space trace: %s\n",
                   w.status().ToString().c_str());
    }
  }
  std::unique_ptr<OtlpHttpExporter> http;
  if (!options.otlp_endpoint.empty()) {
    auto e = OtlpHttpExporter::Create(options.otlp_endpoint);
    if (e.ok()) {
      http = std::move(*e);
    } else {
      std::fprintf(stderr, "causeway-client: %s\n", e.status().ToString().c_str());
    }
  }

  // The worker is stopped (Shutdown above): nothing else touches the file.
  {
    std::lock_guard file_lock(s.file_mutex);
    s.otlp_file_has_lines = false;
    s.otlp_file_failed = false;
    s.span_file_errors = 0;
    s.spans_not_in_file = 0;
    if (!options.otlp_json_file.empty()) {
      const Status st = s.otlp_file.Open(options.otlp_json_file);
      if (!st.ok()) ReportFileError(s, st);
    }
  }

  std::lock_guard lock(s.mutex);
  // Statistics count from this Init (ust_* are guarded by ust_mutex, not taken yet: the
  // worker is stopped, so nothing else touches them).
  s.spans_started = 0;
  s.spans_finished = 0;
  s.posts_failed = 0;
  s.snapshots = 0;
  s.ust_written_before = 0;
  s.ust_lost_before = 0;
  s.pid = getpid();
  s.unix_minus_monotonic_ns = offset;
  s.finished.clear();
  s.posted = 0;
  s.appended = 0;
  s.http = std::move(http);
  s.control_socket = EnvString("CAUSEWAY_CONTROL_SOCKET");
  s.trigger_ns = s.control_socket.empty() ? 0 : options.trigger_latency_ns;
  s.pending_trigger.clear();
  s.last_trigger_mono = 0;
  // Two pairs a millisecond apart give the raw clock's rate from the start, for what must be
  // converted before the next sample (the slow-span trigger).
  s.clock.Sample();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.clock.Sample();
  if (ust) {
    SetThreadRingBytes(options.thread_buffer_bytes);
    std::lock_guard ust_lock(s.ust_mutex);
    s.ust = std::move(ust);
    detail::g_ust_enabled.store(true);
    TracepointRegistry::Get().SetRecorded(options.record_tracepoints);
    TracepointRegistry::Get().SetTraceOpen(true);
  }
  s.options = std::move(options);
  s.running = true;
  {
    std::lock_guard wl(s.worker_mutex);
    s.stop = false;
  }
  s.worker = std::thread(WorkerLoop, std::ref(s), s.options.flush_interval_ms);
  return tracer;
}

Span Tracer::StartSpan(std::string_view operation, const SpanContext* parent, int kind) {
  SpanContext c;
  uint64_t parent_id = 0;
  if (parent && parent->valid()) {
    c.trace_id_high = parent->trace_id_high;
    c.trace_id_low = parent->trace_id_low;
    c.flags = parent->flags;
    parent_id = parent->span_id;
  } else {
    c.trace_id_high = RandomNonZero();
    c.trace_id_low = RandomNonZero();
    c.flags = 1;  // sampled: Causeway records every span
  }
  c.span_id = RandomNonZero();
  TracerState& s = State();
  s.spans_started.fetch_add(1, std::memory_order_relaxed);
  uint64_t start_raw;
  if (detail::g_ust_enabled.load(std::memory_order_relaxed)) {
    WriteSpanEvent(detail::kStartSpanKey, c, parent_id, operation, &start_raw);
  } else {
    start_raw = detail::RawNow();
  }
  return Span(this, std::string(operation), c, parent_id, kind, start_raw);
}

void Tracer::Finish(Span&& span) {
  TracerState& s = State();
  RawSpan r;
  r.span.context = span.context_;
  r.span.parent_span_id = span.parent_span_id_;
  r.span.name = std::move(span.name_);
  r.span.kind = span.kind_;
  r.span.tid = CurrentTid();
  for (auto& a : span.attributes_)
    r.span.attributes.push_back({std::move(a.key), static_cast<SpanAttribute::Type>(a.type),
                                 std::move(a.string_value), a.int_value, a.double_value});
  r.start_raw = span.start_raw_;
  r.end_raw = span.end_raw_;
  bool trigger = false;
  {
    std::lock_guard lock(s.mutex);
    if (!s.running) return;
    if (s.trigger_ns) {
      const uint64_t start = s.clock.ToMonotonic(r.start_raw);
      const uint64_t end = s.clock.ToMonotonic(r.end_raw);
      if (end > start && end - start >= s.trigger_ns && end - s.last_trigger_mono >= 1000000000u) {
        s.last_trigger_mono = end;
        s.pending_trigger =
            fmt::format("span {:016x} {} took {} ns (threshold {} ns)", r.span.context.span_id,
                        r.span.name, end - start, s.trigger_ns);
        trigger = true;
      }
    }
    s.finished.push_back(std::move(r));
  }
  s.spans_finished.fetch_add(1, std::memory_order_relaxed);
  if (trigger) s.wake.notify_one();
}

void Tracer::Flush() {
  TracerState& s = State();
  {
    std::lock_guard lock(s.mutex);
    if (!s.running) return;
  }
  DrainUst(s);
  AppendPendingSpans(s, /*final=*/false);
  WriteJaegerFile(s);
  PostPending(s);
}

void Tracer::Shutdown() {
  TracerState& s = State();
  {
    std::lock_guard lock(s.mutex);
    if (!s.running) return;
  }
  {
    std::lock_guard wl(s.worker_mutex);
    s.stop = true;
  }
  s.wake.notify_all();
  if (s.worker.joinable()) s.worker.join();
  SendPendingTrigger(s);
  Flush();
  AppendPendingSpans(s, /*final=*/true);
  {
    std::lock_guard file_lock(s.file_mutex);
    s.otlp_file.Close();
  }
  {
    std::lock_guard ust_lock(s.ust_mutex);
    detail::g_ust_enabled.store(false);
    TracepointRegistry::Get().SetTraceOpen(false);
    if (s.ust) {
      const Status st = s.ust->Close(s.clock);
      if (!st.ok()) std::fprintf(stderr, "causeway-client: %s\n", st.ToString().c_str());
      s.ust_written_before += s.ust->events_written();
      s.ust_lost_before += s.ust->events_lost();
      s.ust.reset();
    }
  }
  std::lock_guard lock(s.mutex);
  s.running = false;
  s.http.reset();
}

TracerStats Tracer::stats() const {
  TracerState& s = State();
  TracerStats out;
  out.spans_started = s.spans_started.load();
  out.spans_finished = s.spans_finished.load();
  out.otlp_posts_failed = s.posts_failed.load();
  out.snapshots_requested = s.snapshots.load();
  out.span_file_errors = s.span_file_errors.load();
  out.spans_not_in_file = s.spans_not_in_file.load();
  std::lock_guard lock(s.ust_mutex);
  out.ust_events_written = s.ust_written_before + (s.ust ? s.ust->events_written() : 0);
  out.ust_events_lost = s.ust_lost_before + (s.ust ? s.ust->events_lost() : 0);
  return out;
}

ScopedActivation::ScopedActivation(const SpanContext& context) : context_(context) {
  if (detail::g_ust_enabled.load(std::memory_order_relaxed))
    WriteSpanEvent(detail::kActivateKey, context_, 0, {}, nullptr);
}

ScopedActivation::~ScopedActivation() {
  if (detail::g_ust_enabled.load(std::memory_order_relaxed))
    WriteSpanEvent(detail::kDeactivateKey, context_, 0, {}, nullptr);
}

std::string TriggerSnapshot(std::string_view reason) {
  const std::string socket = EnvString("CAUSEWAY_CONTROL_SOCKET");
  if (socket.empty())
    return "error no recorder to ask: CAUSEWAY_CONTROL_SOCKET is not set (run the program "
           "under `causeway record --snapshot`)";
  auto reply = RequestSnapshot(socket, reason, 5000);
  State().snapshots.fetch_add(1);
  if (!reply.ok()) return "error " + reply.status().ToString();
  return *reply;
}

}  // namespace causeway::client
