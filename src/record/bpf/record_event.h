/* Records the recorder's BPF programs put in the ring buffer, shared by the BPF side (C,
 * compiled with clang -target bpf) and the user-space side (C++). Plain C, fixed sizes, no
 * pointers: user space copies them as bytes. Every record starts with cw_header; `size` is
 * the record's total size so a reader can skip types it does not know. */
#ifndef CAUSEWAY_RECORD_BPF_RECORD_EVENT_H_
#define CAUSEWAY_RECORD_BPF_RECORD_EVENT_H_

#ifdef __bpf__
/* vmlinux.h provides the __u* types. */
#else
#include <linux/types.h>
#endif

enum cw_type {
  CW_SCHED_SWITCH = 1,
  CW_SCHED_WAKING = 2,
  CW_SCHED_WAKEUP_NEW = 3,
  CW_PROCESS_FORK = 4,
  CW_PROCESS_EXEC = 5,
  CW_PROCESS_EXIT = 6,
  CW_IRQ_ENTRY = 7,
  CW_IRQ_EXIT = 8,
  CW_SOFTIRQ_ENTRY = 9,
  CW_SOFTIRQ_EXIT = 10,
  CW_HRTIMER_ENTRY = 11,
  CW_HRTIMER_EXIT = 12,
  CW_BLOCK_ISSUE = 13,
  CW_BLOCK_COMPLETE = 14,
  CW_NET_SEND = 15,
  CW_NET_RECV = 16,
  CW_SYSCALL_ENTRY = 17,
  CW_SYSCALL_EXIT = 18,
  CW_HTTP = 19,
  CW_BLOCK_INSERT = 20, /* cw_block: a request queued for its device (block_rq_insert) */
  CW_BIO_QUEUE = 21,    /* cw_block: a bio entering the block layer (block_bio_queue) */
  CW_TYPE_COUNT = 22,
  /* Made by user space, never by the BPF side: a thread that existed at the start. */
  CW_STATEDUMP_PROCESS = 100,
  /* Made by user space: records the ring buffer dropped on this CPU before this point. */
  CW_LOST = 101,
  /* Made by user space from a CW_HTTP record: its parsed fields (cw_http_parsed). */
  CW_HTTP_PARSED = 102,
  /* A task switched out by CFS bandwidth control (cw_cfs_throttle); numbered apart from the
   * other kernel-side records, which grow from 1. */
  CW_CFS_THROTTLE = 40,
  /* Page cache (cw_page_cache), numbered apart like CW_CFS_THROTTLE: */
  CW_PAGE_CACHE_ADD = 41, /* pages added to the page cache: a miss (mm_filemap_add_to_page_cache) */
  CW_PAGE_CACHE_DELETE = 42, /* pages removed from it (mm_filemap_delete_from_page_cache) */
  CW_PAGE_CACHE_READ = 43,   /* pages a read asked for (mm_filemap_get_pages) */
  CW_PAGE_CACHE_FAULT = 44, /* a page fault on a file mapping asked for a page (mm_filemap_fault) */
};

#define CW_COMM_LEN 16
#define CW_FILENAME_LEN 128
#define CW_IRQ_NAME_LEN 32

struct cw_header {
  __u64 ts; /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
  __u32 cpu;
  __u16 type; /* enum cw_type */
  __u16 size; /* of the whole record */
};

struct cw_sched_switch {
  struct cw_header h;
  char prev_comm[CW_COMM_LEN];
  char next_comm[CW_COMM_LEN];
  __s32 prev_tid;
  __s32 prev_prio;
  __s64 prev_state; /* LTTng's encoding: one TASK_REPORT bit; 0x100 when preempted */
  __s32 next_tid;
  __s32 next_prio;
};

/* sched_waking and sched_wakeup_new */
struct cw_sched_wakeup {
  struct cw_header h;
  char comm[CW_COMM_LEN];
  __s32 tid;
  __s32 prio;
  __s32 target_cpu;
  __s32 pad;
};

struct cw_process_fork {
  struct cw_header h;
  char parent_comm[CW_COMM_LEN];
  char child_comm[CW_COMM_LEN];
  __s32 parent_tid;
  __s32 parent_pid;
  __s32 child_tid;
  __s32 child_pid;
};

struct cw_process_exec {
  struct cw_header h;
  char filename[CW_FILENAME_LEN];
  __s32 tid;
  __s32 old_tid;
};

struct cw_process_exit {
  struct cw_header h;
  char comm[CW_COMM_LEN];
  __s32 tid;
  __s32 prio;
};

struct cw_irq {
  struct cw_header h;
  char name[CW_IRQ_NAME_LEN]; /* entry only */
  __s32 irq;
  __s32 ret; /* exit only */
};

struct cw_softirq {
  struct cw_header h;
  __u32 vec;
  __u32 pad;
};

struct cw_hrtimer {
  struct cw_header h;
  __u64 hrtimer;
  __u64 function; /* entry only */
  __s64 now;      /* entry only */
};

struct cw_block {
  struct cw_header h;
  char comm[CW_COMM_LEN]; /* issue only */
  __u64 sector;
  __u32 dev;
  __u32 nr_sector;
  __u32 bytes;
  __u32 rwbs;  /* REQ_OP in the low byte, REQ_SYNC/REQ_FUA/... flags above (cmd_flags) */
  __s32 tid;   /* issue, insert, bio queue */
  __s32 error; /* complete only */
  /* bio queue only: 1 when queued by the blkio throttle's dispatcher, i.e. the bio waited
   * in the throttle since its submission */
  __u32 throttled;
  __u32 pad;
};

/* A TCP segment handed to a device (net_dev_queue) or received from one (netif_receive_skb). */
struct cw_net {
  struct cw_header h;
  __u64 skbaddr;
  char dev[CW_COMM_LEN];
  __u8 saddr[16]; /* IPv4 in the first 4 bytes */
  __u8 daddr[16];
  __u32 len; /* skb->len */
  __u32 seq;
  __u32 ack_seq;
  __u32 payload; /* TCP payload bytes */
  __u16 sport;
  __u16 dport;
  __u16 window;
  __u8 flags;  /* TCP flags byte: FIN 0x01 SYN 0x02 RST 0x04 PSH 0x08 ACK 0x10 URG 0x20 */
  __u8 family; /* 4 or 6 */
};

struct cw_syscall {
  struct cw_header h;
  __s64 id;
  __s64 ret; /* exit only */
};

/* lttng_statedump_process_state; status as LTTng: 2 waiting for a CPU, 5 waiting, 4 zombie. */
struct cw_statedump {
  struct cw_header h;
  char name[CW_COMM_LEN];
  __s32 tid;
  __s32 pid;
  __s32 ppid;
  __s32 status;
};

struct cw_lost {
  struct cw_header h;
  __u64 count; /* dropped since the previous cw_lost of this CPU */
};

/* The bytes of an HTTP/1.x message the kernel side copies: enough for the request or status
 * line and the headers of ordinary clients and servers (curl, Node, Python, Go send 100 to
 * 600 bytes of headers), small enough that copying it costs well under a microsecond. A
 * larger header block is marked truncated by the parser, never guessed. */
#define CW_HTTP_PREFIX 1024

enum cw_http_direction {
  CW_HTTP_RECEIVED = 0, /* read by the thread (recorded at the syscall's exit) */
  CW_HTTP_SENT = 1,     /* written by the thread (recorded at the syscall's entry) */
};

/* An HTTP/1.x message read from or written to a TCP socket: the start of its bytes. */
struct cw_http {
  struct cw_header h;
  __u8 laddr[16]; /* local address; IPv4 in the first 4 bytes */
  __u8 raddr[16]; /* remote address */
  __u64 size;     /* bytes the syscall moved (received) or was asked to move (sent) */
  __s32 tid;
  __s32 pid;
  __u16 lport;
  __u16 rport;
  __u16 captured; /* bytes of data[] that hold the message */
  __u8 direction; /* enum cw_http_direction */
  __u8 family;    /* 4 or 6 */
  char data[CW_HTTP_PREFIX];
};

/* A cw_http after user space parsed it: the socket fields, and `detail`, the key of the
 * parsed lines (first line, trace context headers) that the recorder keeps beside the
 * fixed-size record (record/http_message.h). */
struct cw_http_parsed {
  struct cw_header h;
  __u8 laddr[16];
  __u8 raddr[16];
  __u64 size;
  __u64 detail;
  __s32 tid;
  __s32 pid;
  __u16 lport;
  __u16 rport;
  __u16 captured;
  __u8 direction;
  __u8 family;
  __u8 truncated; /* the header block does not end within the captured bytes */
  __u8 pad[7];
};

/* A task switched out while runnable because its cgroup (or an ancestor) ran out of CPU
 * quota (CFS bandwidth control): the cgroup that has the quota, by its kernfs id (the
 * inode number of its directory in the cpu controller's hierarchy) and its name. */
#define CW_CGROUP_NAME_LEN 64
struct cw_cfs_throttle {
  struct cw_header h;
  __u64 cgroup_id;
  __s32 tid;
  __u32 pad;
  char cgroup[CW_CGROUP_NAME_LEN];
};

/* A page cache operation on the file (dev, ino): the pages [index, last] (in pages of the
 * file), by the current task. dev is the kernel's dev_t of the file's filesystem
 * (major << 20 | minor). */
struct cw_page_cache {
  struct cw_header h;
  __u64 ino;
  __u64 index;
  __u64 last; /* add, delete: index + the folio's pages - 1; read: clipped at the file's end */
  __u32 dev;
  __s32 tid;
  __s32 pid;
  /* add only: 1 when a write system call added the pages (a write into the cache, not a read
   * that missed) */
  __u8 write;
  __u8 pad[3];
};

#endif /* CAUSEWAY_RECORD_BPF_RECORD_EVENT_H_ */
