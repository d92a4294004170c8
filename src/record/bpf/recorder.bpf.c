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

SEC("tp_btf/block_rq_issue")
int BPF_PROG(on_block_issue, struct request *rq) {
  struct cw_block *r = reserve(sizeof(*r), CW_BLOCK_ISSUE);
  if (!r) return 0;
  fill_block(r, rq);
  bpf_get_current_comm(r->comm, sizeof(r->comm));
  r->tid = (__s32)bpf_get_current_pid_tgid();
  r->error = 0;
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

/* Attached only with --syscalls. */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id) {
  struct cw_syscall *r = reserve(sizeof(*r), CW_SYSCALL_ENTRY);
  if (!r) return 0;
  r->id = id;
  r->ret = 0;
  submit(r);
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret) {
  struct cw_syscall *r = reserve(sizeof(*r), CW_SYSCALL_EXIT);
  if (!r) return 0;
  r->id = BPF_CORE_READ(regs, orig_ax);
  r->ret = ret;
  submit(r);
  return 0;
}
