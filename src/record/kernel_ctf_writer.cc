#include "record/kernel_ctf_writer.h"

#include <arpa/inet.h>

#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "kernel/lttng_kernel_layout.h"

namespace causeway::record {

namespace {

using kernel::LttngEvent;

// The event each record type is written as.
constexpr std::pair<uint16_t, LttngEvent> kEventOfRecord[] = {
    {CW_SCHED_SWITCH, LttngEvent::kSchedSwitch},
    {CW_SCHED_WAKING, LttngEvent::kSchedWaking},
    {CW_SCHED_WAKEUP_NEW, LttngEvent::kSchedWakeupNew},
    {CW_PROCESS_FORK, LttngEvent::kSchedProcessFork},
    {CW_PROCESS_EXEC, LttngEvent::kSchedProcessExec},
    {CW_PROCESS_EXIT, LttngEvent::kSchedProcessExit},
    {CW_STATEDUMP_PROCESS, LttngEvent::kStatedumpProcessState},
    {CW_IRQ_ENTRY, LttngEvent::kIrqHandlerEntry},
    {CW_IRQ_EXIT, LttngEvent::kIrqHandlerExit},
    {CW_SOFTIRQ_ENTRY, LttngEvent::kSoftirqEntry},
    {CW_SOFTIRQ_EXIT, LttngEvent::kSoftirqExit},
    {CW_HRTIMER_ENTRY, LttngEvent::kHrtimerExpireEntry},
    {CW_HRTIMER_EXIT, LttngEvent::kHrtimerExpireExit},
    {CW_BLOCK_ISSUE, LttngEvent::kBlockRqIssue},
    {CW_BLOCK_COMPLETE, LttngEvent::kBlockRqComplete},
    {CW_NET_SEND, LttngEvent::kNetDevQueue},
    {CW_NET_RECV, LttngEvent::kNetifReceiveSkb},
    {CW_SYSCALL_ENTRY, LttngEvent::kSyscallEntry},
    {CW_SYSCALL_EXIT, LttngEvent::kSyscallExit},
    {CW_HTTP_PARSED, LttngEvent::kHttpMessage},
    {CW_BLOCK_INSERT, LttngEvent::kBlockRqInsert},
    {CW_BIO_QUEUE, LttngEvent::kBlockBioQueue},
    {CW_CFS_THROTTLE, LttngEvent::kSchedCfsThrottle},
    {CW_PAGE_CACHE_ADD, LttngEvent::kMmFilemapAddToPageCache},
    {CW_PAGE_CACHE_DELETE, LttngEvent::kMmFilemapDeleteFromPageCache},
    {CW_PAGE_CACHE_READ, LttngEvent::kMmFilemapGetPages},
    {CW_PAGE_CACHE_FAULT, LttngEvent::kMmFilemapFault},
};

std::string_view Comm(const char (&comm)[CW_COMM_LEN]) {
  return std::string_view(comm, strnlen(comm, CW_COMM_LEN));
}

template <size_t N>
std::string_view CString(const char (&s)[N]) {
  return std::string_view(s, strnlen(s, N));
}

// The size a record of `type` must have at least (0: unknown type).
size_t ExpectedSize(uint16_t type) {
  switch (type) {
    case CW_SCHED_SWITCH:
      return sizeof(cw_sched_switch);
    case CW_SCHED_WAKING:
    case CW_SCHED_WAKEUP_NEW:
      return sizeof(cw_sched_wakeup);
    case CW_PROCESS_FORK:
      return sizeof(cw_process_fork);
    case CW_PROCESS_EXEC:
      return sizeof(cw_process_exec);
    case CW_PROCESS_EXIT:
      return sizeof(cw_process_exit);
    case CW_STATEDUMP_PROCESS:
      return sizeof(cw_statedump);
    case CW_LOST:
      return sizeof(cw_lost);
    case CW_IRQ_ENTRY:
    case CW_IRQ_EXIT:
      return sizeof(cw_irq);
    case CW_SOFTIRQ_ENTRY:
    case CW_SOFTIRQ_EXIT:
      return sizeof(cw_softirq);
    case CW_HRTIMER_ENTRY:
    case CW_HRTIMER_EXIT:
      return sizeof(cw_hrtimer);
    case CW_BLOCK_ISSUE:
    case CW_BLOCK_COMPLETE:
    case CW_BLOCK_INSERT:
    case CW_BIO_QUEUE:
      return sizeof(cw_block);
    case CW_NET_SEND:
    case CW_NET_RECV:
      return sizeof(cw_net);
    case CW_SYSCALL_ENTRY:
    case CW_SYSCALL_EXIT:
      return sizeof(cw_syscall);
    case CW_HTTP_PARSED:
      return sizeof(cw_http_parsed);
    case CW_CFS_THROTTLE:
      return sizeof(cw_cfs_throttle);
    case CW_PAGE_CACHE_ADD:
    case CW_PAGE_CACHE_DELETE:
    case CW_PAGE_CACHE_READ:
    case CW_PAGE_CACHE_FAULT:
      return sizeof(cw_page_cache);
    default:
      return 0;
  }
}

}  // namespace

std::string FormatAddress(const uint8_t addr[16], uint8_t family) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (family == 4) {
    inet_ntop(AF_INET, addr, buf, sizeof(buf));
  } else {
    inet_ntop(AF_INET6, addr, buf, sizeof(buf));
  }
  return buf;
}

ctf::TraceOptions KernelCtfWriter::Options(const KernelTraceInfo& info) {
  ctf::TraceOptions opts;
  opts.hostname = info.hostname;
  opts.domain = "kernel";
  opts.tracer_name = "causeway-record";
  opts.tracer_major = 0;
  opts.tracer_minor = 1;
  opts.tracer_patchlevel = 0;
  opts.kernel_release = info.kernel_release;
  opts.kernel_version = info.kernel_version;
  opts.clock_name = "monotonic";
  opts.clock_offset_ns = info.clock_offset_ns;
  opts.extra_env.emplace_back("trace_name", std::string("causeway-record"));
  opts.file_mode = info.file_mode;
  opts.dir_mode = info.file_mode | ((info.file_mode & 0444u) >> 2);  // r gives x
  if (info.drop_packets_on_write_error)
    opts.on_write_error = ctf::TraceOptions::OnWriteError::kDropPacket;
  return opts;
}

StatusOr<std::unique_ptr<KernelCtfWriter>> KernelCtfWriter::Declare(
    std::unique_ptr<ctf::CtfWriter> writer, bool syscalls) {
  std::unique_ptr<KernelCtfWriter> w(new KernelCtfWriter());
  w->writer_ = std::move(writer);
  ASSIGN_OR_RETURN(const kernel::LttngEventIds ids,
                   kernel::DeclareLttngKernelEvents(*w->writer_, syscalls));
  for (const auto& [type, event] : kEventOfRecord) w->cls_[type] = ids[event];
  RETURN_IF_ERROR(w->writer_->WriteMetadata());
  return w;
}

StatusOr<std::unique_ptr<KernelCtfWriter>> KernelCtfWriter::Create(const std::string& dir,
                                                                   const KernelTraceInfo& info) {
  ASSIGN_OR_RETURN(auto writer, ctf::CtfWriter::Create(dir, Options(info)));
  return Declare(std::move(writer), info.syscalls);
}

StatusOr<std::unique_ptr<KernelCtfWriter>> KernelCtfWriter::CreateAt(int dir_fd,
                                                                     const std::string& dir,
                                                                     const KernelTraceInfo& info) {
  ASSIGN_OR_RETURN(auto writer, ctf::CtfWriter::CreateAt(dir_fd, dir, Options(info)));
  return Declare(std::move(writer), info.syscalls);
}

void KernelCtfWriter::Write(const RecordSlot& slot) {
  const uint32_t cpu = slot.cpu;
  if (cpu >= last_ts_.size()) last_ts_.resize(cpu + 1, 0);
  uint64_t ts = slot.ts;
  if (ts < last_ts_[cpu]) {
    ts = last_ts_[cpu];
    ++clamped_;
  }
  const uint16_t type = slot.type;
  const size_t expected = ExpectedSize(type);
  if (expected == 0 || slot.size < expected) {
    ++unknown_;  // a record this build does not know: counted, reported in the summary
    return;
  }
  if (type == CW_LOST) {
    if (cpu >= lost_.size()) lost_.resize(cpu + 1, 0);
    lost_[cpu] += slot.As<cw_lost>().count;
    (void)writer_->SetDiscarded(cpu, lost_[cpu]);  // an error is sticky: status()/Close()
    return;
  }
  const uint32_t cls = type < std::size(cls_) ? cls_[type] : 0;
  auto begin = [&] { return writer_->Begin(cpu, cls, ts); };
  switch (type) {
    case CW_SCHED_SWITCH: {
      const auto& r = slot.As<cw_sched_switch>();
      begin()
          .Chars16(Comm(r.prev_comm))
          .S32(r.prev_tid)
          .S32(r.prev_prio)
          .S64(r.prev_state)
          .Chars16(Comm(r.next_comm))
          .S32(r.next_tid)
          .S32(r.next_prio);
      break;
    }
    case CW_SCHED_WAKING:
    case CW_SCHED_WAKEUP_NEW: {
      const auto& r = slot.As<cw_sched_wakeup>();
      begin().Chars16(Comm(r.comm)).S32(r.tid).S32(r.prio).S32(r.target_cpu);
      break;
    }
    case CW_PROCESS_FORK: {
      const auto& r = slot.As<cw_process_fork>();
      begin()
          .Chars16(Comm(r.parent_comm))
          .S32(r.parent_tid)
          .S32(r.parent_pid)
          .Chars16(Comm(r.child_comm))
          .S32(r.child_tid)
          .S32(r.child_pid);
      break;
    }
    case CW_PROCESS_EXEC: {
      const auto& r = slot.As<cw_process_exec>();
      begin().String(CString(r.filename)).S32(r.tid).S32(r.old_tid);
      break;
    }
    case CW_PROCESS_EXIT: {
      const auto& r = slot.As<cw_process_exit>();
      begin().Chars16(Comm(r.comm)).S32(r.tid).S32(r.prio);
      break;
    }
    case CW_STATEDUMP_PROCESS: {
      const auto& r = slot.As<cw_statedump>();
      begin()
          .S32(r.tid)
          .S32(r.pid)
          .S32(r.ppid)
          .Chars16(Comm(r.name))
          .S32(r.status)
          .S32(static_cast<int32_t>(cpu));
      break;
    }
    case CW_IRQ_ENTRY: {
      const auto& r = slot.As<cw_irq>();
      begin().S32(r.irq).String(CString(r.name));
      break;
    }
    case CW_IRQ_EXIT: {
      const auto& r = slot.As<cw_irq>();
      begin().S32(r.irq).S32(r.ret);
      break;
    }
    case CW_SOFTIRQ_ENTRY:
    case CW_SOFTIRQ_EXIT:
      begin().U32(slot.As<cw_softirq>().vec);
      break;
    case CW_HRTIMER_ENTRY: {
      const auto& r = slot.As<cw_hrtimer>();
      begin().Hex64(r.hrtimer).S64(r.now).Hex64(r.function);
      break;
    }
    case CW_HRTIMER_EXIT:
      begin().Hex64(slot.As<cw_hrtimer>().hrtimer);
      break;
    case CW_BLOCK_ISSUE:
    case CW_BLOCK_INSERT: {
      const auto& r = slot.As<cw_block>();
      begin()
          .U32(r.dev)
          .U64(r.sector)
          .U32(r.nr_sector)
          .U32(r.bytes)
          .S32(r.tid)
          .U32(r.rwbs)
          .Chars16(Comm(r.comm));
      break;
    }
    case CW_BLOCK_COMPLETE: {
      const auto& r = slot.As<cw_block>();
      begin().U32(r.dev).U64(r.sector).U32(r.nr_sector).S32(r.error).U32(r.rwbs);
      break;
    }
    case CW_BIO_QUEUE: {
      const auto& r = slot.As<cw_block>();
      begin()
          .U32(r.dev)
          .U64(r.sector)
          .U32(r.nr_sector)
          .U32(r.rwbs)
          .S32(r.tid)
          .Chars16(Comm(r.comm))
          .U8(static_cast<uint8_t>(r.throttled != 0));
      break;
    }
    case CW_NET_SEND:
    case CW_NET_RECV: {
      const auto& r = slot.As<cw_net>();
      const std::string saddr = FormatAddress(r.saddr, r.family);
      const std::string daddr = FormatAddress(r.daddr, r.family);
      begin()
          .Hex64(r.skbaddr)
          .U32(r.len)
          .String(CString(r.dev))
          .U8(r.family)
          .String(saddr)
          .String(daddr)
          .U16(r.sport)
          .U16(r.dport)
          .U32(r.seq)
          .U32(r.ack_seq)
          .U8(r.flags)
          .U16(r.window)
          .U32(r.payload);
      break;
    }
    case CW_SYSCALL_ENTRY:
      if (cls_[CW_SYSCALL_ENTRY] || cls_[CW_SYSCALL_EXIT]) begin().S64(slot.As<cw_syscall>().id);
      break;
    case CW_SYSCALL_EXIT: {
      const auto& r = slot.As<cw_syscall>();
      if (cls_[CW_SYSCALL_EXIT]) begin().S64(r.id).S64(r.ret);
      break;
    }
    case CW_HTTP_PARSED: {
      const auto& r = slot.As<cw_http_parsed>();
      static const HttpFields kNone{.truncated = true};
      const HttpFields* f = http_fields_ ? http_fields_->Find(r.detail) : nullptr;
      if (!f) {
        f = &kNone;
        ++http_fields_lost_;
      }
      const bool truncated = r.truncated || f->truncated;
      begin()
          .S32(r.tid)
          .S32(r.pid)
          .U8(r.direction)
          .U8(r.family)
          .Bytes16(r.laddr)
          .Bytes16(r.raddr)
          .U16(r.lport)
          .U16(r.rport)
          .U64(r.size)
          .U16(r.captured)
          .U8(truncated ? 1 : 0)
          .String(f->first_line)
          .String(f->traceparent)
          .String(f->b3)
          .String(f->uber_trace_id);
      ++http_messages_;
      if (truncated) ++http_truncated_;
      break;
    }
    case CW_CFS_THROTTLE: {
      const auto& r = slot.As<cw_cfs_throttle>();
      begin()
          .S32(r.tid)
          .U64(r.cgroup_id)
          .String(cgroup_paths_.Path(r.cgroup_id, CString(r.cgroup)));
      break;
    }
    case CW_PAGE_CACHE_ADD:
    case CW_PAGE_CACHE_DELETE:
    case CW_PAGE_CACHE_READ:
    case CW_PAGE_CACHE_FAULT: {
      const auto& r = slot.As<cw_page_cache>();
      auto ev = begin();  // committed at the end of this block
      ev.S32(r.tid).S32(r.pid).U32(r.dev).U64(r.ino).U64(r.index);
      if (type != CW_PAGE_CACHE_FAULT) ev.U64(r.last);
      if (type == CW_PAGE_CACHE_ADD) ev.U8(r.write);
      break;
    }
    default:
      return;
  }
  last_ts_[cpu] = ts;
}

uint64_t KernelCtfWriter::lost() const {
  uint64_t n = 0;
  for (uint64_t v : lost_) n += v;
  return n;
}

Status KernelCtfWriter::Close() { return writer_->Close(); }

}  // namespace causeway::record
