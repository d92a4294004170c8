// SPDX-License-Identifier: GPL-2.0
/* The recorder's kernel side: BTF-typed tracepoint programs (tp_btf) that copy what the
 * execution graph needs into one BPF ring buffer, in the layouts of record_event.h.
 *
 * Why tp_btf: the programs read the tracepoint's typed arguments (task_struct, sk_buff,
 * request) directly, with CO-RE relocations, so one object runs on any kernel with BTF; they
 * attach through BPF links owned by the recorder's file descriptors, so the kernel detaches
 * them when the recorder exits or is killed, and no tracing state is left behind.
 *
 * The licence must be GPL: bpf_probe_read_kernel and friends are GPL-only helpers. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "record_event.h"

char LICENSE[] SEC("license") = "GPL";

/* Wake the consumer only when this much data waits: a wake-up per record would make the
 * recorder trace itself in a loop; the consumer also polls on a timer. Set before load. */
const volatile __u64 wakeup_bytes = 1 << 20;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 8 << 20); /* resized by user space before load */
} events SEC(".maps");

/* Records that did not fit in the ring buffer, per CPU. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} lost SEC(".maps");

static __always_inline void *reserve(__u64 size, __u16 type) {
  __u64 ts = bpf_ktime_get_ns();
  struct cw_header *h = bpf_ringbuf_reserve(&events, size, 0);
  if (!h) {
    __u32 key = 0;
    __u64 *n = bpf_map_lookup_elem(&lost, &key);
    if (n) *n += 1;
    return 0;
  }
  h->ts = ts;
  h->cpu = bpf_get_smp_processor_id();
  h->type = type;
  h->size = size;
  return h;
}

static __always_inline void submit(void *rec) {
  __u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
  bpf_ringbuf_submit(rec, avail >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline __s32 task_prio(struct task_struct *t) {
  return BPF_CORE_READ(t, prio) - 100; /* as LTTng: prio - MAX_RT_PRIO */
}

static __always_inline __s32 task_cpu_of(struct task_struct *t) {
  if (bpf_core_field_exists(t->thread_info.cpu)) return BPF_CORE_READ(t, thread_info.cpu);
  return BPF_CORE_READ(t, wake_cpu);
}

/* The switched-out task's state as LTTng reports it: 0x100 (TASK_REPORT_MAX) when
 * preempted, otherwise the highest TASK_REPORT bit of the state, 0x80 for TASK_IDLE. */
static __always_inline __s64 report_state(bool preempt, unsigned int state, struct task_struct *p) {
  if (preempt) return 0x100;
  if (state == 0x402) return 0x80;     /* TASK_IDLE = TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
  if (state & 0x1000) return 0x2;      /* TASK_RTLOCK_WAIT reports as uninterruptible */
  unsigned int r = (state | BPF_CORE_READ(p, exit_state)) & 0x7f; /* TASK_REPORT */
  if (!r) return 0;
  __s64 bit = 0x40;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    if (r & bit) return bit;
    bit >>= 1;
  }
  return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
  struct cw_sched_switch *r = reserve(sizeof(*r), CW_SCHED_SWITCH);
  if (!r) return 0;
  bpf_probe_read_kernel(r->prev_comm, sizeof(r->prev_comm), prev->comm);
  bpf_probe_read_kernel(r->next_comm, sizeof(r->next_comm), next->comm);
  r->prev_tid = BPF_CORE_READ(prev, pid);
  r->prev_prio = task_prio(prev);
  r->prev_state = report_state(preempt, prev_state, prev);
  r->next_tid = BPF_CORE_READ(next, pid);
  r->next_prio = task_prio(next);
  submit(r);
  return 0;
}

static __always_inline int wakeup(struct task_struct *p, __u16 type) {
  struct cw_sched_wakeup *r = reserve(sizeof(*r), type);
  if (!r) return 0;
  bpf_probe_read_kernel(r->comm, sizeof(r->comm), p->comm);
  r->tid = BPF_CORE_READ(p, pid);
  r->prio = task_prio(p);
  r->target_cpu = task_cpu_of(p);
  r->pad = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_sched_waking, struct task_struct *p) { return wakeup(p, CW_SCHED_WAKING); }

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_sched_wakeup_new, struct task_struct *p) {
  return wakeup(p, CW_SCHED_WAKEUP_NEW);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_process_fork, struct task_struct *parent, struct task_struct *child) {
  struct cw_process_fork *r = reserve(sizeof(*r), CW_PROCESS_FORK);
  if (!r) return 0;
  bpf_probe_read_kernel(r->parent_comm, sizeof(r->parent_comm), parent->comm);
  bpf_probe_read_kernel(r->child_comm, sizeof(r->child_comm), child->comm);
  r->parent_tid = BPF_CORE_READ(parent, pid);
  r->parent_pid = BPF_CORE_READ(parent, tgid);
  r->child_tid = BPF_CORE_READ(child, pid);
  r->child_pid = BPF_CORE_READ(child, tgid);
  submit(r);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) {
  struct cw_process_exec *r = reserve(sizeof(*r), CW_PROCESS_EXEC);
  if (!r) return 0;
  const char *filename = BPF_CORE_READ(bprm, filename);
  if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), filename) < 0)
    r->filename[0] = 0;
  r->tid = BPF_CORE_READ(p, pid);
  r->old_tid = old_pid;
  submit(r);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_process_exit, struct task_struct *p) {
  struct cw_process_exit *r = reserve(sizeof(*r), CW_PROCESS_EXIT);
  if (!r) return 0;
  bpf_probe_read_kernel(r->comm, sizeof(r->comm), p->comm);
  r->tid = BPF_CORE_READ(p, pid);
  r->prio = task_prio(p);
  submit(r);
  return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(on_irq_entry, int irq, struct irqaction *action) {
  struct cw_irq *r = reserve(sizeof(*r), CW_IRQ_ENTRY);
  if (!r) return 0;
  const char *name = BPF_CORE_READ(action, name);
  if (bpf_probe_read_kernel_str(r->name, sizeof(r->name), name) < 0) r->name[0] = 0;
  r->irq = irq;
  r->ret = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(on_irq_exit, int irq, struct irqaction *action, int ret) {
  struct cw_irq *r = reserve(sizeof(*r), CW_IRQ_EXIT);
  if (!r) return 0;
  r->name[0] = 0;
  r->irq = irq;
  r->ret = ret;
  submit(r);
  return 0;
}

static __always_inline int softirq(unsigned int vec, __u16 type) {
  struct cw_softirq *r = reserve(sizeof(*r), type);
  if (!r) return 0;
  r->vec = vec;
  r->pad = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec) { return softirq(vec, CW_SOFTIRQ_ENTRY); }

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec) { return softirq(vec, CW_SOFTIRQ_EXIT); }

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(on_hrtimer_entry, struct hrtimer *timer, ktime_t *now) {
  struct cw_hrtimer *r = reserve(sizeof(*r), CW_HRTIMER_ENTRY);
  if (!r) return 0;
  r->hrtimer = (__u64)timer;
  r->function = (__u64)BPF_CORE_READ(timer, function);
  ktime_t t = 0;
  bpf_probe_read_kernel(&t, sizeof(t), now);
  r->now = t;
  submit(r);
  return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(on_hrtimer_exit, struct hrtimer *timer) {
  struct cw_hrtimer *r = reserve(sizeof(*r), CW_HRTIMER_EXIT);
  if (!r) return 0;
  r->hrtimer = (__u64)timer;
  r->function = 0;
  r->now = 0;
  submit(r);
  return 0;
}

static __always_inline void fill_block(struct cw_block *r, struct request *rq) {
  struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
  r->dev = 0;
  if (disk) {
    /* new_encode_dev(MKDEV(major, first_minor)), as the block tracepoints print it */
    __u32 major = BPF_CORE_READ(disk, major), minor = BPF_CORE_READ(disk, first_minor);
    r->dev = (major << 20) | minor;
  }
  r->sector = BPF_CORE_READ(rq, __sector);
  r->bytes = BPF_CORE_READ(rq, __data_len);
  r->nr_sector = r->bytes >> 9;
  r->rwbs = BPF_CORE_READ(rq, cmd_flags);
}

static __always_inline int record_block_rq(struct request *rq, __u16 type) {
  struct cw_block *r = reserve(sizeof(*r), type);
  if (!r) return 0;
  fill_block(r, rq);
  bpf_get_current_comm(r->comm, sizeof(r->comm));
  r->tid = (__s32)bpf_get_current_pid_tgid();
  r->error = 0;
  r->throttled = 0;
  r->pad = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(on_block_issue, struct request *rq) { return record_block_rq(rq, CW_BLOCK_ISSUE); }

/* A request queued for its device: its wait in the block layer starts here (or at its
 * bio's queueing, recorded below). */
SEC("tp_btf/block_rq_insert")
int BPF_PROG(on_block_insert, struct request *rq) { return record_block_rq(rq, CW_BLOCK_INSERT); }

/* The address of blk_throtl_dispatch_work_fn (from /proc/kallsyms), 0 when unknown. A bio
 * the blkio throttle held is queued by that work function, so its block_bio_queue fires in a
 * workqueue worker running it; no tracepoint marks the moment the throttle took the bio. */
const volatile __u64 throttle_dispatch_fn = 0;

static __always_inline __u32 queued_by_throttle(void) {
  if (!throttle_dispatch_fn) return 0;
  struct task_struct *t = bpf_get_current_task_btf();
  if (!(t->flags & 0x20 /* PF_WQ_WORKER */)) return 0;
  struct kthread *k = (struct kthread *)BPF_CORE_READ(t, worker_private);
  if (!k) return 0;
  struct worker *w = (struct worker *)BPF_CORE_READ(k, data);
  if (!w) return 0;
  return (__u64)BPF_CORE_READ(w, current_func) == throttle_dispatch_fn;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(on_bio_queue, struct bio *bio) {
  struct cw_block *r = reserve(sizeof(*r), CW_BIO_QUEUE);
  if (!r) return 0;
  /* The whole disk's device, as requests have it: a partition's bio carries the
   * partition's device but, remapped already, the disk's sector. */
  struct gendisk *disk = BPF_CORE_READ(bio, bi_bdev, bd_disk);
  r->dev = 0;
  if (disk) {
    __u32 major = BPF_CORE_READ(disk, major), minor = BPF_CORE_READ(disk, first_minor);
    r->dev = (major << 20) | minor;
  }
  r->sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
  r->bytes = BPF_CORE_READ(bio, bi_iter.bi_size);
  r->nr_sector = r->bytes >> 9;
  r->rwbs = BPF_CORE_READ(bio, bi_opf);
  bpf_get_current_comm(r->comm, sizeof(r->comm));
  r->tid = (__s32)bpf_get_current_pid_tgid();
  r->error = 0;
  r->throttled = queued_by_throttle();
  r->pad = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(on_block_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes) {
  struct cw_block *r = reserve(sizeof(*r), CW_BLOCK_COMPLETE);
  if (!r) return 0;
  fill_block(r, rq);
  r->bytes = nr_bytes;
  r->nr_sector = nr_bytes >> 9;
  r->comm[0] = 0;
  r->tid = 0;
  r->error = error;
  r->throttled = 0;
  r->pad = 0;
  submit(r);
  return 0;
}

/* Reads the IP and TCP headers at `ip`; returns 0 when the packet is not TCP. */
static __always_inline int parse_tcp(struct cw_net *r, const unsigned char *ip, __u16 proto) {
  const unsigned char *tcp;
  __u32 ip_payload;
  if (proto == bpf_htons(0x0800)) { /* ETH_P_IP */
    struct iphdr iph;
    if (bpf_probe_read_kernel(&iph, sizeof(iph), ip) < 0) return 0;
    if (iph.protocol != 6 || iph.ihl < 5) return 0;
    r->family = 4;
    __builtin_memset(r->saddr, 0, 16);
    __builtin_memset(r->daddr, 0, 16);
    __builtin_memcpy(r->saddr, &iph.saddr, 4);
    __builtin_memcpy(r->daddr, &iph.daddr, 4);
    tcp = ip + iph.ihl * 4;
    ip_payload = bpf_ntohs(iph.tot_len) - iph.ihl * 4;
  } else if (proto == bpf_htons(0x86DD)) { /* ETH_P_IPV6; extension headers not followed */
    struct ipv6hdr ip6;
    if (bpf_probe_read_kernel(&ip6, sizeof(ip6), ip) < 0) return 0;
    if (ip6.nexthdr != 6) return 0;
    r->family = 6;
    __builtin_memcpy(r->saddr, &ip6.saddr, 16);
    __builtin_memcpy(r->daddr, &ip6.daddr, 16);
    tcp = ip + sizeof(ip6);
    ip_payload = bpf_ntohs(ip6.payload_len);
  } else {
    return 0;
  }
  struct tcphdr th;
  if (bpf_probe_read_kernel(&th, sizeof(th), tcp) < 0) return 0;
  r->sport = bpf_ntohs(th.source);
  r->dport = bpf_ntohs(th.dest);
  r->seq = bpf_ntohl(th.seq);
  r->ack_seq = bpf_ntohl(th.ack_seq);
  r->window = bpf_ntohs(th.window);
  __u8 flags_byte = 0, off_byte = 0;
  bpf_probe_read_kernel(&off_byte, 1, tcp + 12);
  bpf_probe_read_kernel(&flags_byte, 1, tcp + 13);
  r->flags = flags_byte;
  __u32 hdr = (off_byte >> 4) * 4;
  r->payload = ip_payload > hdr ? ip_payload - hdr : 0;
  return 1;
}

static __always_inline int net_event(struct sk_buff *skb, __u16 type) {
  __u16 proto = BPF_CORE_READ(skb, protocol);
  if (proto != bpf_htons(0x0800) && proto != bpf_htons(0x86DD)) return 0;
  const unsigned char *ip;
  if (type == CW_NET_SEND) {
    /* On the way out the network header offset is set; data may point at the MAC header. */
    ip = BPF_CORE_READ(skb, head) + BPF_CORE_READ(skb, network_header);
  } else {
    /* On the way in, eth_type_trans has pulled the MAC header: data is the IP header
     * (network_header is only reset after this tracepoint). */
    ip = BPF_CORE_READ(skb, data);
  }
  struct cw_net tmp;
  if (!parse_tcp(&tmp, ip, proto)) return 0;
  struct cw_net *r = reserve(sizeof(*r), type);
  if (!r) return 0;
  __builtin_memcpy(r->saddr, tmp.saddr, 16);
  __builtin_memcpy(r->daddr, tmp.daddr, 16);
  r->seq = tmp.seq;
  r->ack_seq = tmp.ack_seq;
  r->payload = tmp.payload;
  r->sport = tmp.sport;
  r->dport = tmp.dport;
  r->window = tmp.window;
  r->flags = tmp.flags;
  r->family = tmp.family;
  r->skbaddr = (__u64)skb;
  r->len = BPF_CORE_READ(skb, len);
  struct net_device *dev = BPF_CORE_READ(skb, dev);
  if (!dev || bpf_probe_read_kernel_str(r->dev, sizeof(r->dev), dev->name) < 0) r->dev[0] = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/net_dev_queue")
int BPF_PROG(on_net_dev_queue, struct sk_buff *skb) { return net_event(skb, CW_NET_SEND); }

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(on_netif_receive_skb, struct sk_buff *skb) { return net_event(skb, CW_NET_RECV); }

/* The recorder's own process (set before load): its pid namespace (the kernel's dev_t and
 * inode of its nsfs file) and its tgid there. Its system calls are not recorded: draining
 * the ring takes system calls, whose records would be drained in turn, so the recorder
 * would trace itself in a loop and fill the trace with its own calls. Compared in the
 * recorder's namespace, so that it also holds when the recorder runs in a container. */
const volatile __u64 recorder_pidns_dev = 0;
const volatile __u64 recorder_pidns_ino = 0;
const volatile __u32 recorder_tgid = 0;

static __always_inline bool is_recorder(void) {
  struct bpf_pidns_info ns;
  /* Fails for a task of another pid namespace, which is then not the recorder. */
  if (bpf_get_ns_current_pid_tgid(recorder_pidns_dev, recorder_pidns_ino, &ns, sizeof(ns)))
    return false;
  return ns.tgid == recorder_tgid;
}

/* Attached only with --syscalls. */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id) {
  if (is_recorder()) return 0;
  struct cw_syscall *r = reserve(sizeof(*r), CW_SYSCALL_ENTRY);
  if (!r) return 0;
  r->id = id;
  r->ret = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret) {
  if (is_recorder()) return 0;
  struct cw_syscall *r = reserve(sizeof(*r), CW_SYSCALL_EXIT);
  if (!r) return 0;
  r->id = BPF_CORE_READ(regs, orig_ax);
  r->ret = ret;
  submit(r);
  return 0;
}

/* HTTP/1.x messages on TCP sockets (off with --no-http).
 *
 * Where: two tracepoints that fire only for socket traffic and hand the program the socket,
 * so reads and writes of files and pipes cost nothing and no descriptor has to be resolved.
 * - tcp_sendmsg_locked fires in tcp_sendmsg before the data is copied, with the socket and
 *   the message: a sent message is stamped at (almost) its syscall's entry, before the peer
 *   can see it, and its bytes are read from the message's own user buffer. It fires once
 *   per segment-sized chunk; only a chunk that starts like HTTP is kept, and a write's first
 *   chunk is its start.
 * - sock_recv_length fires after every socket receive with the socket and the byte count:
 *   the data is in user memory then. The buffer is the syscall's argument (read, readv,
 *   recvfrom, recvmsg), taken from the thread's saved user registers.
 * Not used: fentry/fexit on tcp_sendmsg/tcp_recvmsg (BPF trampolines are refused here with
 * EPERM), per-syscall tracepoints (need tracefs, not mounted here), raw sys_enter/sys_exit
 * (run for every system call of every process, and must resolve each read's descriptor),
 * kprobes (not built into this kernel).
 *
 * Kernel memory is read with plain loads through the typed (BTF) pointers the tracepoints
 * give, not with BPF_CORE_READ's helper calls: these programs run on every TCP send and
 * receive, and a helper call costs tens of nanoseconds here. Only user memory needs
 * bpf_probe_read_user. */

/* HTTP records that the ring buffer could not take (also counted in `lost`). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} http_dropped SEC(".maps");

#define CW_AF_INET 2
#define CW_AF_INET6 10
#define CW_IPPROTO_TCP 6
#define CW_MSG_PEEK 2
#define CW_MSG_ERRQUEUE 0x2000
#define CW_HTTP_SNIFF 8 /* bytes enough to tell "OPTIONS " or "HTTP/1." from anything else */

/* x86-64 syscall numbers of the receives whose buffer is found from their arguments. */
#define CW_NR_READ 0
#define CW_NR_READV 19
#define CW_NR_RECVFROM 45
#define CW_NR_RECVMSG 47

static __always_inline int is_tcp(const struct sock *sk) {
  __u16 family = sk->__sk_common.skc_family;
  if (family != CW_AF_INET && family != CW_AF_INET6) return 0;
  return sk->sk_protocol == CW_IPPROTO_TCP;
}

/* The sniffed bytes as one little-endian word, and a word made of the first `n` bytes of a
 * string literal, so that a method is recognised with one masked comparison. */
#define CW_MASK(n) ((n) == 8 ? ~0ULL : ((1ULL << ((n) * 8)) - 1))
#define CW_WORD(s, n)                                                                 \
  (((__u64)(s)[0] | (__u64)(s)[1] << 8 | (__u64)(s)[2] << 16 | (__u64)(s)[3] << 24 | \
    ((n) > 4 ? (__u64)(s)[4] << 32 : 0) | ((n) > 5 ? (__u64)(s)[5] << 40 : 0) |      \
    ((n) > 6 ? (__u64)(s)[6] << 48 : 0) | ((n) > 7 ? (__u64)(s)[7] << 56 : 0)))
#define CW_STARTS(w, lit) (((w) & CW_MASK(sizeof(lit) - 1)) == CW_WORD(lit, sizeof(lit) - 1))

/* 1 when the bytes start an HTTP/1.x request line (a method and a space) or a status line.
 * One switch on the first byte sends nearly all other traffic away after one comparison. */
static __always_inline int looks_like_http(__u64 w) {
  switch ((char)w) {
    case 'G':
      return CW_STARTS(w, "GET ");
    case 'P':
      return CW_STARTS(w, "POST ") || CW_STARTS(w, "PUT ") || CW_STARTS(w, "PATCH ");
    case 'H':
      return CW_STARTS(w, "HTTP/1.") || CW_STARTS(w, "HEAD ");
    case 'D':
      return CW_STARTS(w, "DELETE ");
    case 'O':
      return CW_STARTS(w, "OPTIONS ");
    case 'C':
      return CW_STARTS(w, "CONNECT ");
    case 'T':
      return CW_STARTS(w, "TRACE ");
    default:
      return 0;
  }
}

/* Copies the message's first bytes with its socket and thread into the ring buffer, when
 * they start like HTTP/1.x. `moved` is the syscall's byte count, `avail` what `buf` holds. */
static __always_inline void http_record(const struct sock *sk, const char *buf, __u64 avail,
                                        __u64 moved, __u8 direction) {
  if (avail < CW_HTTP_SNIFF || moved < CW_HTTP_SNIFF) return;
  __u64 sniff;
  if (bpf_probe_read_user(&sniff, sizeof(sniff), buf) < 0) return;
  if (!looks_like_http(sniff)) return;
  struct cw_http *r = reserve(sizeof(*r), CW_HTTP);
  if (!r) {
    __u32 key = 0;
    __u64 *n = bpf_map_lookup_elem(&http_dropped, &key);
    if (n) *n += 1;
    return;
  }
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  r->tid = (__s32)pid_tgid;
  r->pid = (__s32)(pid_tgid >> 32);
  r->direction = direction;
  r->size = moved;
  __builtin_memset(r->laddr, 0, sizeof(r->laddr));
  __builtin_memset(r->raddr, 0, sizeof(r->raddr));
  const struct sock_common *c = &sk->__sk_common;
  if (c->skc_family == CW_AF_INET) {
    r->family = 4;
    __u32 local = c->skc_rcv_saddr, remote = c->skc_daddr;
    __builtin_memcpy(r->laddr, &local, 4);
    __builtin_memcpy(r->raddr, &remote, 4);
  } else {
    r->family = 6;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      __u32 local = c->skc_v6_rcv_saddr.in6_u.u6_addr32[i];
      __u32 remote = c->skc_v6_daddr.in6_u.u6_addr32[i];
      __builtin_memcpy(r->laddr + 4 * i, &local, 4);
      __builtin_memcpy(r->raddr + 4 * i, &remote, 4);
    }
  }
  r->lport = c->skc_num;
  r->rport = bpf_ntohs(c->skc_dport);
  __u64 n = avail < moved ? avail : moved;
  if (n > CW_HTTP_PREFIX) n = CW_HTTP_PREFIX;
  if (bpf_probe_read_user(r->data, n, buf) < 0) n = 0;
  r->captured = n;
  submit(r);
}

/* The user buffer the message's current chunk starts in, and its length (for vectored I/O,
 * the current iovec only: a new iovec may well be a new message, as when an event loop
 * writes several queued responses with one writev). */
static __always_inline const char *current_user_buffer(const struct msghdr *msg, __u64 *len) {
  const struct iov_iter *it = &msg->msg_iter;
  __u8 type = it->iter_type;
  __u64 offset = it->iov_offset;
  __u64 count = it->count;
  if (type == bpf_core_enum_value(enum iter_type, ITER_UBUF)) {
    /* One buffer: only its start can start a message; a later chunk of a long write is in
     * the middle of one (its body may well contain "GET "). */
    if (offset != 0) return 0;
    *len = count;
    return (const char *)it->ubuf;
  }
  if (type == bpf_core_enum_value(enum iter_type, ITER_IOVEC)) {
    const struct iovec *v = it->__iov;
    __u64 iov_len = v->iov_len;
    if (iov_len <= offset) return 0;
    __u64 n = iov_len - offset;
    *len = n < count ? n : count;
    return (const char *)v->iov_base + offset;
  }
  return 0; /* kernel memory (sendfile, kTLS, ...): not a message a thread wrote */
}

SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(on_tcp_sendmsg_locked, const struct sock *sk, const struct msghdr *msg,
             const struct sk_buff *skb, int size_goal) {
  if (!is_tcp(sk)) return 0;
  __u64 len = 0;
  const char *buf = current_user_buffer(msg, &len);
  if (buf) http_record(sk, buf, len, msg->msg_iter.count, CW_HTTP_SENT);
  return 0;
}

/* The first user buffer the current receive syscall filled, from its saved arguments. */
static __always_inline const char *receive_buffer(__u64 *len) {
  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
  long nr = regs->orig_ax;
  unsigned long arg2 = regs->si, arg3 = regs->dx;
  struct iovec v;
  switch (nr) {
    case CW_NR_READ:
    case CW_NR_RECVFROM:
      *len = arg3;
      return (const char *)arg2;
    case CW_NR_READV:
      if (bpf_probe_read_user(&v, sizeof(v), (const void *)arg2) < 0) return 0;
      break;
    case CW_NR_RECVMSG: {
      struct user_msghdr m;
      if (bpf_probe_read_user(&m, sizeof(m), (const void *)arg2) < 0) return 0;
      if (bpf_probe_read_user(&v, sizeof(v), m.msg_iov) < 0) return 0;
      break;
    }
    default:
      return 0; /* recvmmsg, io_uring, ...: not covered */
  }
  *len = v.iov_len;
  return (const char *)v.iov_base;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(on_sock_recv_length, struct sock *sk, int ret, int flags) {
  if (ret < CW_HTTP_SNIFF || (flags & (CW_MSG_PEEK | CW_MSG_ERRQUEUE)) || !is_tcp(sk)) return 0;
  __u64 len = 0;
  const char *buf = receive_buffer(&len);
  if (buf) http_record(sk, buf, len, (__u64)ret, CW_HTTP_RECEIVED);
  return 0;
}

/* CFS bandwidth control: is `p`, being switched out while runnable, kept off the CPU by a
 * cgroup's CPU quota? Kernels with task-based throttling (6.18+) mark the task itself
 * (task_struct.throttled) before its last switch-out; older ones throttle the whole group
 * queue, which counts its throttled ancestors in throttle_count. */
static __always_inline bool cfs_throttled(struct task_struct *p) {
  if (bpf_core_field_exists(struct task_struct, throttled)) return BPF_CORE_READ(p, throttled);
  if (bpf_core_field_exists(struct cfs_rq, throttle_count))
    return BPF_CORE_READ(p, se.cfs_rq, throttle_count) > 0;
  return false;
}

/* The nearest task group, from the task's own up, that has a CPU quota: the one whose
 * quota ran out (when several have one, the nearest names it well enough). */
static __always_inline struct task_group *quota_group(struct task_struct *p) {
  struct task_group *tg = BPF_CORE_READ(p, sched_task_group);
  struct task_group *own = tg;
  for (int i = 0; i < 8 && tg; i++) { /* a bounded loop: the verifier walks it */
    if (BPF_CORE_READ(tg, cfs_bandwidth.quota) != ~0ULL) return tg;
    tg = BPF_CORE_READ(tg, parent);
  }
  return own;
}

/* A second program on sched_switch, so that the common one stays as it is: it writes a
 * record only for a throttled switch-out, a few per throttled period. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch_throttle, bool preempt, struct task_struct *prev,
             struct task_struct *next, unsigned int prev_state) {
  if (prev_state != 0 || !cfs_throttled(prev)) return 0; /* runnable switch-outs only */
  struct cw_cfs_throttle *r = reserve(sizeof(*r), CW_CFS_THROTTLE);
  if (!r) return 0;
  struct task_group *tg = quota_group(prev);
  struct kernfs_node *kn = BPF_CORE_READ(tg, css.cgroup, kn);
  r->cgroup_id = BPF_CORE_READ(kn, id);
  const char *name = BPF_CORE_READ(kn, name);
  if (!name || bpf_probe_read_kernel_str(r->cgroup, sizeof(r->cgroup), name) < 0)
    r->cgroup[0] = 0;
  r->tid = BPF_CORE_READ(prev, pid);
  r->pad = 0;
  submit(r);
  return 0;
}

/* Page cache (off with --no-page-cache): which pages of which file a task asked for, and
 * which it had to bring in (misses), as seed 003 measures cache misses from the events of a
 * miss only, never from every lookup.
 *
 * - mm_filemap_add_to_page_cache: a folio enters the page cache, in the context of the task
 *   whose read (or readahead, or page fault) needed it: the miss and the pages readahead
 *   brought in with it. A write system call adds pages it is about to fill, which is no miss:
 *   marked `write` from the task's saved syscall number.
 * - mm_filemap_get_pages: a read(2)-style read (read, pread, readv, sendfile, splice) got the
 *   pages [index, last_index] from the cache, after bringing in those that were missing. It
 *   fires once per batch of folios with the range still to read, so the same read may give
 *   several events whose ranges end alike (the analysis counts their union).
 * - mm_filemap_fault: a page fault on a file mapping asked for one page.
 * - mm_filemap_delete_from_page_cache: a folio left the cache (reclaim, truncation).
 * Only the file's identity (dev, inode) and page numbers are read: no path, no data. */

/* x86-64 numbers of the write system calls that add the pages they fill. */
#define CW_NR_WRITE 1
#define CW_NR_PWRITE64 18
#define CW_NR_WRITEV 20
#define CW_NR_PWRITEV 296
#define CW_NR_PWRITEV2 328
#define CW_PF_KTHREAD 0x00200000
#define CW_PAGE_SHIFT 12

/* 1 when the current task is in a write system call. The saved user registers tell a
 * system call from a page fault (whose orig_ax holds the fault's error code, which may equal
 * a write's number): after the `syscall` instruction, rcx holds the return address, ip. */
static __always_inline __u8 in_write_syscall(void) {
  struct task_struct *t = bpf_get_current_task_btf();
  if (t->flags & CW_PF_KTHREAD) return 0;
  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
  long nr = regs->orig_ax;
  if (nr != CW_NR_WRITE && nr != CW_NR_PWRITE64 && nr != CW_NR_WRITEV && nr != CW_NR_PWRITEV &&
      nr != CW_NR_PWRITEV2)
    return 0;
  return regs->cx == regs->ip;
}

/* Reserves a page cache record for the file of `mapping`; 0 when it has no inode. */
static __always_inline struct cw_page_cache *page_cache_record(struct address_space *mapping,
                                                               __u16 type, __u64 index,
                                                               __u64 last) {
  struct inode *host = BPF_CORE_READ(mapping, host);
  if (!host) return 0;
  struct cw_page_cache *r = reserve(sizeof(*r), type);
  if (!r) return 0;
  r->ino = BPF_CORE_READ(host, i_ino);
  r->dev = BPF_CORE_READ(host, i_sb, s_dev);
  r->index = index;
  r->last = last;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  r->tid = (__s32)pid_tgid;
  r->pid = (__s32)(pid_tgid >> 32);
  r->write = 0;
  __builtin_memset(r->pad, 0, sizeof(r->pad));
  return r;
}

/* The pages of a folio: 1, or 2^order for a large folio (PG_head set). */
static __always_inline __u64 folio_pages(struct folio *folio) {
  unsigned long flags = 0, flags_1 = 0;
  bpf_probe_read_kernel(&flags, sizeof(flags), &folio->flags);
  if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head)))) return 1;
  bpf_probe_read_kernel(&flags_1, sizeof(flags_1), &folio->_flags_1);
  return 1ULL << (flags_1 & 0xff);
}

static __always_inline int page_cache_folio(struct folio *folio, __u16 type) {
  struct address_space *mapping = BPF_CORE_READ(folio, mapping);
  if (!mapping) return 0;
  const __u64 index = BPF_CORE_READ(folio, index);
  struct cw_page_cache *r =
      page_cache_record(mapping, type, index, index + folio_pages(folio) - 1);
  if (!r) return 0;
  if (type == CW_PAGE_CACHE_ADD) r->write = in_write_syscall();
  submit(r);
  return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(on_page_cache_add, struct folio *folio) {
  return page_cache_folio(folio, CW_PAGE_CACHE_ADD);
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(on_page_cache_delete, struct folio *folio) {
  return page_cache_folio(folio, CW_PAGE_CACHE_DELETE);
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(on_page_cache_read, struct address_space *mapping, unsigned long index,
             unsigned long last_index) {
  /* The range is what is left of the read, which may run past the file's end: clipped. */
  struct inode *host = BPF_CORE_READ(mapping, host);
  if (!host) return 0;
  const __s64 size = BPF_CORE_READ(host, i_size);
  if (size <= 0) return 0;
  const __u64 eof_page = (__u64)(size - 1) >> CW_PAGE_SHIFT;
  if (index > eof_page) return 0;
  if (last_index > eof_page) last_index = eof_page;
  struct cw_page_cache *r = page_cache_record(mapping, CW_PAGE_CACHE_READ, index, last_index);
  if (!r) return 0;
  submit(r);
  return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(on_page_cache_fault, struct address_space *mapping, unsigned long index) {
  struct cw_page_cache *r = page_cache_record(mapping, CW_PAGE_CACHE_FAULT, index, index);
  if (!r) return 0;
  submit(r);
  return 0;
}
