#include "record/recorder.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "record/bpf_probes.h"
#include "record/child_process.h"
#include "record/control_socket.h"
#include "record/http_message.h"
#include "record/kernel_ctf_writer.h"
#include "record/output_dir.h"
#include "record/record_buffer.h"
#include "record/statedump.h"

namespace causeway::record {

namespace fs = std::filesystem;

RecordSignals& Signals() {
  static RecordSignals s;
  return s;
}

namespace {

uint64_t Now(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_nsec);
}

// CLOCK_REALTIME - CLOCK_MONOTONIC, read between two monotonic readings to halve the error.
int64_t ClockOffset() {
  const uint64_t m0 = Now(CLOCK_MONOTONIC);
  const uint64_t r = Now(CLOCK_REALTIME);
  const uint64_t m1 = Now(CLOCK_MONOTONIC);
  return static_cast<int64_t>(r) - static_cast<int64_t>(m0 + (m1 - m0) / 2);
}

KernelTraceInfo TraceInfo(const RecordOptions& o, int64_t clock_offset) {
  KernelTraceInfo info;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  info.hostname = host;
  utsname u{};
  if (uname(&u) == 0) {
    info.kernel_release = u.release;
    info.kernel_version = u.version;
  }
  info.clock_offset_ns = clock_offset;
  info.syscalls = o.syscalls;
  info.file_mode = FileModeOf(o.mode);
  info.drop_packets_on_write_error = true;  // a full disk costs packets, not the recording
  return info;
}

class Session {
 public:
  Session(const RecordOptions& o, int64_t clock_offset)
      : o_(o), info_(TraceInfo(o, clock_offset)), ring_(o.snapshot_bytes_per_cpu) {}

  Status Run(RecordSummary* sum);

 private:
  void Drain(int timeout_ms);
  void ReadLost();
  void Release(bool all);
  StatusOr<std::string> WriteSnapshot();
  StatusOr<std::pair<DirFd, std::string>> NewSnapshotFolder();
  void HandleControl();
  void MaybeSnapshot(bool final_round);
  void AddHttpCounts(const KernelCtfWriter& w);
  void AddWriteLosses(const KernelCtfWriter& w);
  void PublishAndReportLosses();

  const RecordOptions& o_;
  KernelTraceInfo info_;
  std::unique_ptr<BpfProbes> probes_;
  DirFd out_dir_;  // before the writer and the socket, which use it
  std::unique_ptr<KernelCtfWriter> writer_;
  std::unique_ptr<ControlSocket> control_;
  int next_snapshot_ = 1;
  uint64_t failures_reported_ = 0;
  std::chrono::steady_clock::time_point last_publish_{};
  std::chrono::steady_clock::time_point last_loss_report_{};
  ReorderWindow window_;
  SnapshotRing ring_;
  std::vector<uint64_t> lost_seen_;
  HttpFieldStore http_fields_;
  uint64_t not_http_ = 0;  // bytes that began like HTTP but were not (HttpFields::valid)
  uint64_t unknown_ = 0;
  Status error_;
  // Snapshot requests wait until the window has passed the moment they were made, so the
  // slow request's last events are in the ring.
  std::vector<int> waiting_fds_;  // control clients waiting for the snapshot's path
  bool snapshot_pending_ = false;
  uint64_t snapshot_due_ts_ = 0;
  std::vector<std::string> snapshots_;
  RecordSummary* sum_ = nullptr;
};

void Session::Drain(int timeout_ms) {
  auto st = probes_->Poll(timeout_ms, [this](std::span<const uint8_t> rec) {
    RecordSlot slot;
    cw_header h;
    if (rec.size() >= sizeof(h)) std::memcpy(&h, rec.data(), sizeof(h));
    bool not_http = false;
    const bool ok = rec.size() >= sizeof(h) && h.type == CW_HTTP
                        ? ParseHttpRecord(rec, http_fields_, &slot, &not_http)
                        : slot.Assign(rec);
    if (not_http) {
      ++not_http_;
    } else if (!ok) {
      ++unknown_;
    } else {
      window_.Add(slot);
    }
  });
  if (!st.ok() && error_.ok()) error_ = st.status();
}

// New losses become a CW_LOST record at the newest time seen, on the CPU that lost them.
void Session::ReadLost() {
  auto lost = probes_->LostPerCpu();
  if (!lost.ok()) {
    if (error_.ok()) error_ = lost.status();
    return;
  }
  if (lost_seen_.size() < lost->size()) lost_seen_.resize(lost->size(), 0);
  for (size_t cpu = 0; cpu < lost->size(); ++cpu) {
    const uint64_t now = (*lost)[cpu];
    if (now <= lost_seen_[cpu]) continue;
    cw_lost r{};
    r.h.ts = window_.newest_ts();
    r.h.cpu = static_cast<uint32_t>(cpu);
    r.h.type = CW_LOST;
    r.h.size = sizeof(r);
    r.count = now - lost_seen_[cpu];
    lost_seen_[cpu] = now;
    RecordSlot slot;
    if (slot.Assign({reinterpret_cast<const uint8_t*>(&r), sizeof(r)})) window_.Add(slot);
  }
}

void Session::Release(bool all) {
  if (o_.snapshot) {
    window_.Release(all, [this](const RecordSlot& s) { ring_.Add(s); });
  } else {
    window_.Release(all, [this](const RecordSlot& s) { writer_->Write(s); });
    if (!writer_->status().ok() && error_.ok()) error_ = writer_->status();
  }
}

// The next snapshot-N that does not exist: one that does (made by someone else, or left
// by an earlier recorder in a directory emptied by hand) is skipped, and said so.
StatusOr<std::pair<DirFd, std::string>> Session::NewSnapshotFolder() {
  for (int tries = 0;; ++tries) {
    const int n = next_snapshot_++;
    const std::string name = fmt::format("snapshot-{}", n);
    bool existed = false;
    auto dir = MakeFolder(out_dir_, o_.output_dir, name, o_.mode, &existed);
    if (dir.ok()) return std::make_pair(std::move(*dir), o_.output_dir + "/" + name);
    if (!existed || tries >= 1000) return dir.status();
    if (o_.progress)
      o_.progress(
          fmt::format("{}/{} exists already (not written by this recorder): taking "
                      "snapshot-{}",
                      o_.output_dir, name, n + 1));
  }
}

StatusOr<std::string> Session::WriteSnapshot() {
  ASSIGN_OR_RETURN(auto folder, NewSnapshotFolder());
  ASSIGN_OR_RETURN(DirFd kernel_dir, MakeFolder(folder.first, folder.second, "kernel", o_.mode));
  const std::string dir = folder.second + "/kernel";
  ASSIGN_OR_RETURN(auto w, KernelCtfWriter::CreateAt(kernel_dir.get(), dir, info_));
  w->set_http_fields(&http_fields_);
  // The threads as they are now, stamped at the start of what the ring holds.
  const uint64_t oldest = ring_.OldestTs();
  for (const RecordSlot& s : ReadStatedump(oldest, 0)) w->Write(s);
  ring_.ForEach([&](const RecordSlot& s) { w->Write(s); });
  const Status closed = w->Close();
  AddWriteLosses(*w);
  RETURN_IF_ERROR(closed);
  sum_->events += w->events();
  sum_->bytes += w->bytes();
  sum_->lost += w->lost();
  sum_->clamped += w->clamped();
  AddHttpCounts(*w);
  snapshots_.push_back(dir);
  return dir;
}

void Session::AddWriteLosses(const KernelCtfWriter& w) {
  const ctf::WriteLosses& l = w.write_losses();
  sum_->write_failures += l.failures;
  sum_->write_lost_packets += l.packets;
  sum_->write_lost_events += l.events;
  sum_->write_lost_bytes += l.bytes;
  if (!l.last_error.empty()) sum_->write_error = l.last_error;
}

// Puts the open packets on disk (so that a killed recorder leaves every event older than
// about a second), and says when writes fail: at most once a second, while it lasts.
void Session::PublishAndReportLosses() {
  if (!writer_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_publish_ < std::chrono::milliseconds(500)) return;
  last_publish_ = now;
  (void)writer_->PublishOpenPackets();  // a hard error is sticky: status()
  const ctf::WriteLosses& l = writer_->write_losses();
  if (l.failures == failures_reported_ || !o_.progress) return;
  if (now - last_loss_report_ < std::chrono::seconds(1)) return;
  last_loss_report_ = now;
  failures_reported_ = l.failures;
  if (l.events == 0) {
    o_.progress(
        fmt::format("cannot write the trace ({}): nothing lost yet, the packets in "
                    "progress wait in memory; recording goes on",
                    l.last_error));
  } else {
    o_.progress(
        fmt::format("cannot write the trace ({}): {} events in {} packets lost so far; "
                    "each stream keeps its whole packets, recording goes on",
                    l.last_error, l.events, l.packets));
  }
}

void Session::AddHttpCounts(const KernelCtfWriter& w) {
  sum_->http_messages += w.http_messages();
  sum_->http_truncated += w.http_truncated();
  sum_->http_fields_lost += w.http_fields_lost();
}

void Session::HandleControl() {
  for (ControlSocket::Request& r : control_->Poll()) {
    if (r.line.rfind("snapshot", 0) != 0) {
      control_->Reply(r.fd, fmt::format("error unknown request '{}' (known: snapshot)", r.line));
      continue;
    }
    if (!o_.snapshot) {
      control_->Reply(r.fd,
                      "error this recording writes everything to disk; start it with "
                      "--snapshot to take snapshots");
      continue;
    }
    waiting_fds_.push_back(r.fd);
    Signals().snapshot_requests.fetch_add(1);
  }
}

void Session::MaybeSnapshot(bool final_round) {
  if (Signals().snapshot_requests.exchange(0) > 0 && !snapshot_pending_) {
    if (!o_.snapshot) return;  // SIGUSR1 without --snapshot: nothing to dump
    snapshot_pending_ = true;
    snapshot_due_ts_ = window_.newest_ts() + 20'000'000 + 1;
  }
  if (!snapshot_pending_) return;
  if (!final_round && window_.newest_ts() < snapshot_due_ts_) return;
  Release(final_round);
  snapshot_pending_ = false;
  const uint64_t lost_before = sum_->write_lost_events;
  auto dir = WriteSnapshot();
  std::string reply = dir.ok() ? "ok " + *dir : "error " + dir.status().ToString();
  if (o_.progress) {
    if (!dir.ok()) {
      o_.progress("snapshot failed, still recording (the events stay in memory): " +
                  dir.status().ToString());
    } else if (sum_->write_lost_events > lost_before) {
      o_.progress(fmt::format("snapshot written: {}, without {} events ({})", *dir,
                              sum_->write_lost_events - lost_before, sum_->write_error));
    } else {
      o_.progress("snapshot written: " + *dir);
    }
  }
  for (int fd : waiting_fds_) control_->Reply(fd, reply);
  waiting_fds_.clear();
  // A snapshot that cannot be written costs that snapshot, not the flight recorder.
  if (!dir.ok()) sum_->snapshot_errors.push_back(dir.status().ToString());
}

Status Session::Run(RecordSummary* sum) {
  sum_ = sum;
  ProbeOptions po;
  po.ring_bytes = o_.ring_bytes;
  po.syscalls = o_.syscalls;
  po.http = o_.http;
  po.page_cache = o_.page_cache;
  // The prerequisites (root, BTF) are checked before anything is written to disk.
  ASSIGN_OR_RETURN(probes_, BpfProbes::Start(po));
  sum->http = o_.http && probes_->http_unavailable().empty();
  sum->http_unavailable = probes_->http_unavailable();
  if (!sum->http_unavailable.empty() && o_.progress)
    o_.progress("HTTP capture is off, recording the rest: " + sum->http_unavailable);
  sum->page_cache = o_.page_cache && probes_->page_cache_unavailable().empty();
  sum->page_cache_unavailable = probes_->page_cache_unavailable();
  if (!sum->page_cache_unavailable.empty() && o_.progress)
    o_.progress("Page cache events are off, recording the rest: " + sum->page_cache_unavailable);
  ASSIGN_OR_RETURN(out_dir_, OpenOutputDirectory(o_.output_dir, o_.mode));
  if (!o_.snapshot) {
    const std::string dir = o_.output_dir + "/kernel";
    ASSIGN_OR_RETURN(DirFd kernel_dir, MakeFolder(out_dir_, o_.output_dir, "kernel", o_.mode));
    ASSIGN_OR_RETURN(writer_, KernelCtfWriter::CreateAt(kernel_dir.get(), dir, info_));
    writer_->set_http_fields(&http_fields_);
    sum->kernel_trace = dir;
  }
  // Bound through the open directory, so that the socket lands in it whatever happens to
  // the path.
  ASSIGN_OR_RETURN(control_, ControlSocket::Listen(
                                 o_.output_dir + "/control.sock",
                                 fmt::format("/proc/self/fd/{}/control.sock", out_dir_.get())));
  // Probes first, then the statedump: a thread created in between is seen by both.
  const uint64_t start = Now(CLOCK_MONOTONIC);
  for (const RecordSlot& s : ReadStatedump(start, 0)) window_.Add(s);

  std::optional<ChildProcess> child;
  if (!o_.command.empty()) {
    std::vector<std::pair<std::string, std::string>> env = {
        {"CAUSEWAY_TRACE_DIR", fs::absolute(o_.output_dir).string()},
        {"CAUSEWAY_CLOCK_OFFSET_NS", std::to_string(info_.clock_offset_ns)},
        {"CAUSEWAY_CONTROL_SOCKET", fs::absolute(control_->path()).string()}};
    if (o_.trigger_latency_ns > 0)
      env.emplace_back("CAUSEWAY_TRIGGER_LATENCY_NS", std::to_string(o_.trigger_latency_ns));
    ASSIGN_OR_RETURN(child, ChildProcess::Start(o_.command, env));
  }

  const auto t0 = std::chrono::steady_clock::now();
  auto last_progress = t0;
  std::optional<std::chrono::steady_clock::time_point> child_done;
  std::string reason;
  while (reason.empty()) {
    Drain(100);
    ReadLost();
    Release(false);
    HandleControl();
    MaybeSnapshot(false);
    PublishAndReportLosses();
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - t0).count();
    if (!error_.ok()) {
      reason = "error";
    } else if (Signals().stop.load()) {
      sum->stop_signal = Signals().stop_signal.load();
      reason = fmt::format("signal {}", sum->stop_signal);
    } else if (o_.duration_s > 0 && elapsed >= o_.duration_s) {
      reason = "duration";
    } else if (child && child->Poll()) {
      // Give the kernel a moment to flush the command's last events into the ring.
      if (!child_done) child_done = now;
      if (now - *child_done > std::chrono::milliseconds(200)) reason = "command exited";
    }
    if (o_.progress && now - last_progress >= std::chrono::seconds(1)) {
      last_progress = now;
      o_.progress(fmt::format("recording {:.0f} s: {} events, {:.1f} MB{}", elapsed,
                              o_.snapshot ? ring_.held() : writer_->events(),
                              (o_.snapshot ? 0 : writer_->bytes()) / 1e6,
                              o_.snapshot ? " (in memory)" : ""));
    }
  }
  if (child) {
    // The command gets the signal the recorder got (Ctrl-C: SIGINT), or SIGTERM when the
    // recording ends on --duration or an error.
    child->Signal(sum->stop_signal > 0 ? sum->stop_signal : SIGTERM);
    sum->command_exit = child->WaitOrKill(5000);
  }
  // Whatever is still in the ring, then everything the window holds.
  Drain(0);
  ReadLost();
  Release(true);
  MaybeSnapshot(true);
  for (int fd : waiting_fds_) control_->Reply(fd, "error the recording stopped");
  waiting_fds_.clear();

  if (writer_) {
    Status st = writer_->Close();
    if (!st.ok() && error_.ok()) error_ = st;
    AddWriteLosses(*writer_);
    sum->events += writer_->events();
    sum->bytes += writer_->bytes();
    sum->lost += writer_->lost();
    sum->clamped += writer_->clamped();
    sum->unknown += writer_->unknown_records();
    AddHttpCounts(*writer_);
  } else {
    // Snapshot mode: losses that never made it into a snapshot still count.
    uint64_t lost = 0;
    for (uint64_t v : lost_seen_) lost += v;
    sum->lost = std::max(sum->lost, lost);
  }
  sum->unknown += unknown_;
  sum->http_not_http = not_http_;
  if (auto dropped = probes_->HttpDropped(); dropped.ok()) sum->http_dropped = *dropped;
  sum->overwritten = ring_.overwritten();
  sum->snapshots = snapshots_;
  sum->probes = probes_->attached();
  sum->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sum->stop_reason = reason;
  return error_;
}

// The command must exist before anything is attached or written.
Status CheckCommand(const std::vector<std::string>& command) {
  if (command.empty()) return Status::Ok();
  const std::string& prog = command[0];
  if (prog.find('/') != std::string::npos) {
    if (::access(prog.c_str(), X_OK) != 0)
      return InvalidArgument(fmt::format("Cannot run {}: {}", prog, std::strerror(errno)));
    return Status::Ok();
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (::access((dir + "/" + prog).c_str(), X_OK) == 0) return Status::Ok();
    start = end + 1;
  }
  return InvalidArgument(fmt::format("Cannot run {}: not found in PATH", prog));
}

}  // namespace

StatusOr<RecordSummary> Record(const RecordOptions& options) {
  RETURN_IF_ERROR(CheckCommand(options.command));
  RecordSummary sum;
  Session session(options, ClockOffset());
  Status st = session.Run(&sum);
  if (!st.ok()) return st;
  return sum;
}

}  // namespace causeway::record
