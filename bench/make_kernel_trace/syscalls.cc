#include "make_kernel_trace/syscalls.h"

#include <iterator>

namespace make_kernel_trace {

void Syscalls::Entry(Cpu& c, Thread& t, Sys s) {
  out_.Soon(c);
  if (!out_.Keep(c)) return;
  auto e = out_.Event(c, ids_.sys_entry[s]);
  uint64_t buf = 0x7ffd00000000ULL + (rng_.Below(1 << 20) << 4);
  switch (s) {
    case kRead:
      e.U32(3 + static_cast<uint32_t>(rng_.Below(20))).U64(rng_.Chance(500000) ? 4096 : 65536);
      break;
    case kWrite:
      e.U32(1 + static_cast<uint32_t>(rng_.Below(20))).U64(buf).U64(rng_.Range(1, 8192));
      break;
    case kClose:
      e.U32(3 + static_cast<uint32_t>(rng_.Below(20)));
      break;
    case kNewfstat:
      e.U32(3 + static_cast<uint32_t>(rng_.Below(20)));
      break;
    case kPoll:
      e.U64(buf).U32(static_cast<uint32_t>(rng_.Range(1, 8))).S32(rng_.Chance(500000) ? -1 : 1000);
      break;
    case kLseek:
      e.U32(3 + static_cast<uint32_t>(rng_.Below(20)))
          .S64(static_cast<int64_t>(rng_.Below(1 << 30)))
          .U32(0);
      break;
    case kMmap:
      e.Hex64(0).U64(rng_.Range(1, 256) << 12).S32(3).S32(34).S32(-1).S64(0);
      break;
    case kMunmap:
      e.U64(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)).U64(rng_.Range(1, 256) << 12);
      break;
    case kIoctl:
      e.U32(3 + static_cast<uint32_t>(rng_.Below(20))).U32(21505).U64(buf);
      break;
    case kSchedYield:
      break;
    case kNanosleep:
      e.U64(buf);
      break;
    case kSendto:
      e.S32(5 + static_cast<int32_t>(rng_.Below(100)))
          .U64(buf)
          .U64(rng_.Range(40, 1448))
          .U32(64)
          .U64(0)
          .S32(0);
      break;
    case kRecvfrom:
      e.S32(5 + static_cast<int32_t>(rng_.Below(100))).U64(65536).U32(64).U64(0);
      break;
    case kClone:
      e.Hex64(0x1200011).Hex64(0).Hex64(0).Hex64(0x7f3c5a1d59d0ULL);
      break;
    case kExecve:
      e.String(exec_path_).Hex64(buf).Hex64(buf + 64);
      break;
    case kFutex:
      e.U64(t.uaddr).S32(t.step % 2 ? 129 : 128).U32(1).U64(0).U64(0).U32(0);
      break;
    case kExitGroup:
      e.S32(0);
      break;
    case kEpollWait:
      e.S32(4).S32(512).S32(-1);
      break;
    case kOpenat:
      e.S32(-100).String(OpenPath()).S32(524288).U16(0);
      break;
    case kSysCount:
      break;
  }
}

void Syscalls::Exit(Cpu& c, Thread& t, Sys s, int64_t ret) {
  out_.Soon(c);
  if (!out_.Keep(c)) return;
  auto e = out_.Event(c, ids_.sys_exit[s]);
  e.S64(ret);
  switch (s) {
    case kRead:
      e.U64(0x7ffd00000000ULL + (rng_.Below(1 << 20) << 4));
      break;
    case kNewfstat:
      e.U64(0x7ffd00001000ULL);
      break;
    case kPoll:
      e.U64(0x7ffd00002000ULL);
      break;
    case kIoctl:
      e.U64(0x7ffd00003000ULL);
      break;
    case kNanosleep:
      e.U64(0);
      break;
    case kRecvfrom:
      e.U64(0x7f1200000000ULL + (rng_.Below(1 << 16) << 8)).U64(0).U64(0);
      break;
    case kFutex:
      e.U64(t.uaddr).U64(0);
      break;
    case kEpollWait:
      e.U64(0x7ffd00004000ULL);
      break;
    default:
      break;
  }
}

void Syscalls::Quick(Cpu& c, Thread& t, Sys s, int64_t ret) {
  Entry(c, t, s);
  if ((s == kOpenat || s == kMmap) && rng_.Chance(300000)) Kmalloc(c);
  if (s == kClose && rng_.Chance(300000)) Kfree(c);
  out_.At(c, 200, 3 * kUs);
  Exit(c, t, s, ret);
}

void Syscalls::Blocking(Cpu& c, Thread& t, Sys s, int64_t state, int64_t ret) {
  Entry(c, t, s);
  t.pending = static_cast<int8_t>(s);
  t.pending_ret = ret;
  scheduler_.Deschedule(c, state);
}

void Syscalls::SleepFor(Cpu& c, Thread& t, uint64_t ns) {
  out_.Soon(c);
  if (out_.Keep(c))
    out_.Event(c, ids_.hrtimer_start)
        .Hex64(t.hrtimer)
        .Hex64(kFnHrtimerWakeup)
        .S64(static_cast<int64_t>(c.now + ns))
        .S64(static_cast<int64_t>(c.now + ns));
  queue_.Push(c.now + ns, t.cpu, Ev::kTimerWake, t.wake_gen + 1, threads_.IndexOf(t));
}

const char* Syscalls::OpenPath() {
  static constexpr const char* kPaths[] = {"/etc/ld.so.cache",
                                           "/lib/x86_64-linux-gnu/libc.so.6",
                                           "/proc/self/stat",
                                           "/var/lib/postgresql/base/16384/2619",
                                           "/home/user/src/main.cc",
                                           "/usr/share/locale/locale.alias",
                                           "/sys/devices/system/cpu/online",
                                           "/dev/null"};
  return kPaths[rng_.Below(std::size(kPaths))];
}

void Syscalls::Kmalloc(Cpu& c) {
  out_.Soon(c);
  if (out_.Keep(c))
    out_.Event(c, ids_.kmalloc)
        .Hex64(0xffffffff811a2b3cULL)
        .Hex64(0xffff880000000000ULL + (rng_.Below(1 << 26) << 6))
        .U64(rng_.Range(8, 4096))
        .U64(4096)
        .U32(37748928);
}

void Syscalls::Kfree(Cpu& c) {
  out_.Soon(c);
  if (out_.Keep(c))
    out_.Event(c, ids_.kfree)
        .Hex64(0xffffffff811a4f10ULL)
        .Hex64(0xffff880000000000ULL + (rng_.Below(1 << 26) << 6));
}

}  // namespace make_kernel_trace
