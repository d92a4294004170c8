#include "record/bpf_probes.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include "record/bpf/record_event.h"
#include "recorder.skel.h"

namespace causeway::record {

struct BpfProbes::State {
  recorder_bpf* skel = nullptr;
  ring_buffer* ring = nullptr;
  // The ring buffer's descriptor registered edge-triggered: readable only after a wake-up.
  int wakeups_fd = -1;
  std::vector<bpf_link*> links;
  const RecordFn* on_record = nullptr;  // valid during Poll
  int ncpus = 0;

  ~State() {
    if (wakeups_fd >= 0) close(wakeups_fd);
    if (ring) ring_buffer__free(ring);
    for (bpf_link* l : links) bpf_link__destroy(l);
    if (skel) recorder_bpf__destroy(skel);
  }
};

namespace {

// libbpf prints its own diagnostics; keep only warnings and errors, prefixed.
int PrintLibbpf(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || level == LIBBPF_INFO) return 0;
  std::fputs("causeway record: libbpf: ", stderr);
  return std::vfprintf(stderr, format, args);
}

int OnRingRecord(void* ctx, void* data, size_t size) {
  auto* state = static_cast<BpfProbes::State*>(ctx);
  (*state->on_record)(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
  return 0;
}

Status Prerequisites() {
  std::error_code ec;
  if (!std::filesystem::exists("/sys/kernel/btf/vmlinux", ec)) {
    return FailedPrecondition(
        "Cannot record: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); "
        "causeway record needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
  }
  if (geteuid() != 0) {
    return PermissionDenied(
        "Cannot record: loading kernel probes needs root (CAP_BPF and CAP_PERFMON); run "
        "`sudo causeway record ...`");
  }
  return Status::Ok();
}

// The first of `names` that the kernel's BTF does not declare as a tracepoint ("" if none),
// found without libbpf's warnings: a missing one is reported once, by the recorder.
std::string MissingTracepoint(std::initializer_list<const char*> names) {
  btf* vmlinux = btf__load_vmlinux_btf();
  std::string missing;
  for (const char* name : names) {
    const std::string type = std::string("btf_trace_") + name;
    if (!vmlinux || btf__find_by_name_kind(vmlinux, type.c_str(), BTF_KIND_TYPEDEF) < 0) {
      missing = name;
      break;
    }
  }
  btf__free(vmlinux);
  return missing;
}

// The address of a kernel function from /proc/kallsyms (0 when absent or hidden: kallsyms
// shows zeros to a reader without CAP_SYSLOG).
uint64_t KernelSymbol(std::string_view name) {
  std::FILE* f = std::fopen("/proc/kallsyms", "re");
  if (!f) return 0;
  uint64_t found = 0;
  char line[512];
  while (std::fgets(line, sizeof(line), f)) {
    unsigned long long addr = 0;
    char type = 0;
    char sym[256];
    if (std::sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && name == sym) {
      found = addr;
      break;
    }
  }
  std::fclose(f);
  return found;
}

bool IsHttpProgram(const BpfProbes::State& s, const bpf_program* prog) {
  return prog == s.skel->progs.on_tcp_sendmsg_locked || prog == s.skel->progs.on_sock_recv_length;
}

bool IsPageCacheProgram(const BpfProbes::State& s, const bpf_program* prog) {
  return prog == s.skel->progs.on_page_cache_add || prog == s.skel->progs.on_page_cache_delete ||
         prog == s.skel->progs.on_page_cache_read || prog == s.skel->progs.on_page_cache_fault;
}

// Tells the kernel side which process is the recorder, so that its own system calls are
// not recorded. Without /proc, nothing is filtered (the records are then the recorder's too).
void SetRecorderProcess(recorder_bpf& skel) {
  struct stat ns {};
  if (stat("/proc/self/ns/pid", &ns) != 0) return;
  // bpf_get_ns_current_pid_tgid compares the kernel's dev_t (MKDEV: major << 20 | minor),
  // not st_dev's encoding for user space.
  skel.rodata->recorder_pidns_dev = (uint64_t{major(ns.st_dev)} << 20) | minor(ns.st_dev);
  skel.rodata->recorder_pidns_ino = ns.st_ino;
  skel.rodata->recorder_tgid = static_cast<uint32_t>(getpid());
}

// Opens and loads the BPF object into `s` (replacing an earlier, failed attempt).
Status Load(BpfProbes::State& s, const ProbeOptions& options, bool http, bool page_cache) {
  if (s.skel) recorder_bpf__destroy(s.skel);
  s.skel = recorder_bpf__open();
  if (!s.skel) {
    return Internal(fmt::format("Cannot open the BPF object: {}", std::strerror(errno)));
  }
  bpf_map__set_max_entries(s.skel->maps.events, static_cast<uint32_t>(options.ring_bytes));
  s.skel->rodata->wakeup_bytes = options.ring_bytes / 4;
  // Marks the bios the blkio throttle held (recorder.bpf.c, on_bio_queue).
  static const uint64_t throttle_dispatch_fn = KernelSymbol("blk_throtl_dispatch_work_fn");
  s.skel->rodata->throttle_dispatch_fn = throttle_dispatch_fn;
  SetRecorderProcess(*s.skel);
  if (!options.syscalls) {
    bpf_program__set_autoload(s.skel->progs.on_sys_enter, false);
    bpf_program__set_autoload(s.skel->progs.on_sys_exit, false);
  }
  if (!http) {
    bpf_program__set_autoload(s.skel->progs.on_tcp_sendmsg_locked, false);
    bpf_program__set_autoload(s.skel->progs.on_sock_recv_length, false);
  }
  if (!page_cache) {
    bpf_program__set_autoload(s.skel->progs.on_page_cache_add, false);
    bpf_program__set_autoload(s.skel->progs.on_page_cache_delete, false);
    bpf_program__set_autoload(s.skel->progs.on_page_cache_read, false);
    bpf_program__set_autoload(s.skel->progs.on_page_cache_fault, false);
  }
  if (int err = recorder_bpf__load(s.skel); err != 0) {
    const int e = -err;
    if (e == EPERM || e == EACCES) {
      return PermissionDenied(
          fmt::format("Cannot load the kernel probes: {} (needs root with CAP_BPF and CAP_PERFMON, "
                      "and kernel.unprivileged_bpf_disabled does not matter for root)",
                      std::strerror(e)));
    }
    return FailedPrecondition(fmt::format(
        "Cannot load the kernel probes: {} (the kernel rejected a BPF program; libbpf's "
        "message above says which; needs Linux >= 5.8 with BTF and BPF ring buffers)",
        std::strerror(e)));
  }
  return Status::Ok();
}

}  // namespace

BpfProbes::~BpfProbes() = default;

StatusOr<std::unique_ptr<BpfProbes>> BpfProbes::Start(const ProbeOptions& options) {
  RETURN_IF_ERROR(Prerequisites());
  libbpf_set_print(PrintLibbpf);
  if (options.ring_bytes < 4096 || (options.ring_bytes & (options.ring_bytes - 1)) != 0) {
    return InvalidArgument(fmt::format(
        "Bad ring buffer size {}: must be a power of 2, at least 4096 bytes", options.ring_bytes));
  }
  std::unique_ptr<BpfProbes> probes(new BpfProbes());
  probes->state_ = std::make_unique<State>();
  State& s = *probes->state_;
  s.ncpus = libbpf_num_possible_cpus();
  if (s.ncpus <= 0) return Internal("Cannot count the possible CPUs");

  bool http = options.http;
  if (http) {
    const std::string missing = MissingTracepoint({"tcp_sendmsg_locked", "sock_recv_length"});
    if (!missing.empty()) {
      probes->http_unavailable_ =
          fmt::format("this kernel has no {} tracepoint (recent kernels have it)", missing);
      http = false;
    }
  }
  bool page_cache = options.page_cache;
  if (page_cache) {
    const std::string missing =
        MissingTracepoint({"mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache",
                           "mm_filemap_get_pages", "mm_filemap_fault"});
    if (!missing.empty()) {
      probes->page_cache_unavailable_ =
          fmt::format("this kernel has no {} tracepoint (recent kernels have them all)", missing);
      page_cache = false;
    }
  }
  Status loaded = Load(s, options, http, page_cache);
  if (!loaded.ok() && http) {
    // The HTTP programs are the newest and the likeliest to be refused: record without.
    probes->http_unavailable_ = loaded.ToString();
    http = false;
    loaded = Load(s, options, http, page_cache);
  }
  if (!loaded.ok() && page_cache) {
    probes->page_cache_unavailable_ = loaded.ToString();
    page_cache = false;
    loaded = Load(s, options, http, page_cache);
  }
  RETURN_IF_ERROR(loaded);

  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, s.skel->obj) {
    if (!bpf_program__autoload(prog)) continue;
    bpf_link* link = bpf_program__attach(prog);
    if (!link && IsHttpProgram(s, prog)) {
      probes->http_unavailable_ = fmt::format(
          "cannot attach {}: {}", bpf_program__section_name(prog), std::strerror(errno));
      continue;
    }
    if (!link && IsPageCacheProgram(s, prog)) {
      probes->page_cache_unavailable_ = fmt::format(
          "cannot attach {}: {}", bpf_program__section_name(prog), std::strerror(errno));
      continue;
    }
    if (!link) {
      const int e = errno;
      return FailedPrecondition(fmt::format("Cannot attach probe {} ({}): {}",
                                            bpf_program__name(prog),
                                            bpf_program__section_name(prog), std::strerror(e)));
    }
    s.links.push_back(link);
    std::string section = bpf_program__section_name(prog);
    std::string point = section.substr(section.find('/') + 1);
    // Two programs share sched_switch (the throttle one): name the tracepoint once.
    if (std::find(probes->attached_.begin(), probes->attached_.end(), point) ==
        probes->attached_.end())
      probes->attached_.push_back(std::move(point));
  }

  s.ring = ring_buffer__new(bpf_map__fd(s.skel->maps.events), OnRingRecord, &s, nullptr);
  if (!s.ring) {
    return Internal(fmt::format("Cannot map the BPF ring buffer: {}", std::strerror(errno)));
  }
  // The ring buffer's descriptor polls readable whenever it holds data (libbpf's own epoll
  // set, level-triggered, never sleeps while events flow). Edge-triggered, it polls readable
  // only after a wake-up, which the kernel side sends when a quarter of the ring is full.
  s.wakeups_fd = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  if (s.wakeups_fd < 0 ||
      epoll_ctl(s.wakeups_fd, EPOLL_CTL_ADD, bpf_map__fd(s.skel->maps.events), &ev) != 0) {
    return Internal(fmt::format("Cannot wait for the BPF ring buffer: {}", std::strerror(errno)));
  }
  return probes;
}

StatusOr<size_t> BpfProbes::Poll(int timeout_ms, const RecordFn& on_record) {
  State& s = *state_;
  s.on_record = &on_record;
  // Sleep until the kernel side forces a wake-up (a quarter of the ring is full) or the
  // timeout passes, whatever the ring holds, then take everything there is. Waking up
  // whenever data waits would keep the recorder busy while any event flows, its own
  // scheduling events included.
  int n = 0;
  if (timeout_ms > 0) {
    epoll_event ev;
    if (epoll_wait(s.wakeups_fd, &ev, 1, timeout_ms) < 0) n = -errno;
  }
  if (n >= 0 || n == -EINTR) n = ring_buffer__consume(s.ring);
  s.on_record = nullptr;
  if (n == -EINTR) return size_t{0};
  if (n < 0) return Internal(fmt::format("Cannot read the BPF ring buffer: {}", std::strerror(-n)));
  return static_cast<size_t>(n);
}

StatusOr<std::vector<uint64_t>> BpfProbes::LostPerCpu() const {
  const State& s = *state_;
  std::vector<uint64_t> values(static_cast<size_t>(s.ncpus));
  uint32_t key = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(s.skel->maps.lost), &key, values.data()) != 0) {
    return Internal(fmt::format("Cannot read the lost-record counters: {}", std::strerror(errno)));
  }
  return values;
}

StatusOr<uint64_t> BpfProbes::HttpDropped() const {
  const State& s = *state_;
  std::vector<uint64_t> values(static_cast<size_t>(s.ncpus));
  uint32_t key = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(s.skel->maps.http_dropped), &key, values.data()) != 0) {
    return Internal(fmt::format("Cannot read the HTTP drop counters: {}", std::strerror(errno)));
  }
  uint64_t n = 0;
  for (uint64_t v : values) n += v;
  return n;
}

}  // namespace causeway::record
