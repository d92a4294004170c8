// KernelCtfWriter: turns the recorder's records into a CTF 1.8 kernel trace with LTTng's
// event and field names (one stream per CPU), so babeltrace2, Trace Compass and our reader
// open it and the kernel model understands it without a layout of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "ctf/writer/ctf_writer.h"
#include "record/cgroup_paths.h"
#include "record/http_message.h"
#include "record/record_buffer.h"

namespace causeway::record {

struct KernelTraceInfo {
  std::string hostname;
  std::string kernel_release;
  std::string kernel_version;
  int64_t clock_offset_ns = 0;  // CLOCK_REALTIME - CLOCK_MONOTONIC at start
  bool syscalls = false;        // declare syscall_entry / syscall_exit
  // How it is written: the files' mode, and whether a failed packet write (disk full) cuts
  // the stream back to its last whole packet and goes on (ctf::TraceOptions).
  uint32_t file_mode = 0644;
  bool drop_packets_on_write_error = false;
};

class KernelCtfWriter {
 public:
  // Creates DIR (must not exist or be empty) and writes its metadata at once, so a trace
  // cut short by a crash is readable up to its last flushed packet.
  static StatusOr<std::unique_ptr<KernelCtfWriter>> Create(const std::string& dir,
                                                           const KernelTraceInfo& info);
  // The same in the open, empty directory `dir_fd` (named `dir`): files never through a
  // symbolic link (ctf::CtfWriter::CreateAt).
  static StatusOr<std::unique_ptr<KernelCtfWriter>> CreateAt(int dir_fd, const std::string& dir,
                                                             const KernelTraceInfo& info);

  // Per CPU, timestamps must not decrease; a record that would is written at the CPU's
  // last timestamp and counted (clamped()). A CW_LOST record adds its count to the CPU's
  // total of discarded events, written into the packet context (events_discarded) between
  // the events before and after it.
  void Write(const RecordSlot& slot);
  // Where CW_HTTP_PARSED records' lines are (not owned; must outlive the writer). Without
  // it, or when a message's lines were overwritten, its event has empty lines and
  // truncated = 1, counted in http_fields_lost().
  void set_http_fields(const HttpFieldStore* store) { http_fields_ = store; }
  Status Close();
  const Status& status() const { return writer_->status(); }
  // Writes the open packets in place so that a killed recorder leaves every event so far.
  Status PublishOpenPackets() { return writer_->PublishOpenPackets(); }
  const ctf::WriteLosses& write_losses() const { return writer_->write_losses(); }

  uint64_t events() const { return writer_->events_written(); }
  uint64_t bytes() const { return writer_->bytes_written(); }
  uint64_t clamped() const { return clamped_; }
  uint64_t lost() const;  // sum of the CW_LOST counts written
  uint64_t unknown_records() const { return unknown_; }
  const std::string& dir() const { return writer_->dir(); }
  uint64_t http_messages() const { return http_messages_; }    // http_message events written
  uint64_t http_truncated() const { return http_truncated_; }  // of them, truncated = 1
  uint64_t http_fields_lost() const { return http_fields_lost_; }

 private:
  KernelCtfWriter() = default;
  static ctf::TraceOptions Options(const KernelTraceInfo& info);
  static StatusOr<std::unique_ptr<KernelCtfWriter>> Declare(std::unique_ptr<ctf::CtfWriter> writer,
                                                            bool syscalls);
  std::unique_ptr<ctf::CtfWriter> writer_;
  uint32_t cls_[CW_HTTP_PARSED + 1] = {};  // by record type
  const HttpFieldStore* http_fields_ = nullptr;
  uint64_t http_messages_ = 0;
  uint64_t http_truncated_ = 0;
  uint64_t http_fields_lost_ = 0;
  std::vector<uint64_t> last_ts_;
  std::vector<uint64_t> lost_;
  uint64_t clamped_ = 0;
  uint64_t unknown_ = 0;
  CgroupPaths cgroup_paths_;  // names the cgroups of cw_cfs_throttle records
};

// Text form of an address from a cw_net record ("10.0.0.1", "::1").
std::string FormatAddress(const uint8_t addr[16], uint8_t family);

}  // namespace causeway::record
