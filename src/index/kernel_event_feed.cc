#include "index/kernel_event_feed.h"

#include <algorithm>

#include <fmt/format.h>

#include "index/index_paths.h"

namespace causeway::index {

using kernel::Kind;
using state::StateValue;

KernelEventFeed::KernelEventFeed(state::StateWriter* writer)
    : writer_(writer), page_cache_(writer) {}

void KernelEventFeed::Start(const kernel::KernelModel& model, const graph::ExecutionGraph& graph) {
  model_ = &model;
  hosts_ = graph.hosts();
  cpus_.resize(hosts_.size());
  page_cache_.Start(model, graph);
}

void KernelEventFeed::OnEvent(const kernel::KernelEvent& e) {
  last_ts_ = std::max(last_ts_, e.ts);
  if (e.host >= hosts_.size()) return;
  switch (e.kind) {
    case Kind::kSyscallEntry:
    case Kind::kSyscallExit:
      OnSyscall(e);
      break;
    case Kind::kExit: {
      // The thread's last system call (exit) never returns.
      auto it = syscall_attributes_.find(uint64_t{e.host} << 32 | static_cast<uint32_t>(e.tid));
      if (it != syscall_attributes_.end()) writer_->Set(it->second, e.ts, StateValue::Null());
      break;
    }
    case Kind::kIrqEntry: {
      const uint64_t key = uint64_t{e.host} << 32 | static_cast<uint32_t>(e.irq());
      auto [it, added] = irq_labels_.try_emplace(key, 0);
      if (added) it->second = writer_->Intern(IrqLabel(e.irq(), e.Name()));
      OnInterruptEntry(e, /*hard=*/true, StateValue::String(it->second));
      break;
    }
    case Kind::kIrqExit:
      OnInterruptExit(e, /*hard=*/true);
      break;
    case Kind::kSoftirqEntry: {
      auto [it, added] = softirq_labels_.try_emplace(e.softirq_vector(), 0);
      if (added) it->second = writer_->Intern(SoftirqLabel(e.softirq_vector()));
      OnInterruptEntry(e, /*hard=*/false, StateValue::String(it->second));
      break;
    }
    case Kind::kSoftirqExit:
      OnInterruptExit(e, /*hard=*/false);
      break;
    case Kind::kSwitch:
    case Kind::kLost:
      // The scheduler never runs in interrupt context; lost events may hide an exit. The
      // model forgets the CPU's interrupts then, and so does the index.
      ClearInterrupts(e);
      break;
    case Kind::kBlockQueue:
    case Kind::kBlockIssue:
    case Kind::kBlockComplete:
      OnBlock(e);
      break;
    default:
      break;
  }
  page_cache_.OnEvent(e);
}

void KernelEventFeed::Finish(int64_t end) { page_cache_.Finish(end); }

state::AttributeId KernelEventFeed::SyscallAttribute(uint32_t host, int32_t tid) {
  auto [it, added] =
      syscall_attributes_.try_emplace(uint64_t{host} << 32 | static_cast<uint32_t>(tid), 0);
  if (added) it->second = writer_->Attribute(ThreadAttribute(hosts_[host], tid, "syscall"));
  return it->second;
}

state::StringRef KernelEventFeed::SyscallName(const kernel::KernelEvent& e) {
  const std::string_view name = e.Name();
  if (!name.empty()) {
    auto [it, added] = syscall_names_.try_emplace(name.data(), 0);
    if (added) it->second = writer_->Intern(name);
    return it->second;
  }
  auto [it, added] = syscall_ids_.try_emplace(e.syscall_id(), 0);
  if (added) it->second = writer_->Intern(fmt::format("syscall {}", e.syscall_id()));
  return it->second;
}

void KernelEventFeed::OnSyscall(const kernel::KernelEvent& e) {
  // The recorder's and LTTng's system call events carry no tid: the CPU's current task.
  const int32_t tid = e.current_tid >= 0 ? e.current_tid : model_->CurrentTask(e.host, e.cpu);
  if (tid <= 0) {
    ++counters_.syscalls_no_task;
    return;
  }
  const state::AttributeId attribute = SyscallAttribute(e.host, tid);
  if (e.kind == Kind::kSyscallEntry) {
    ++counters_.syscalls;
    writer_->Set(attribute, e.ts, StateValue::String(SyscallName(e)));
  } else {
    writer_->Set(attribute, e.ts, StateValue::Null());
  }
}

KernelEventFeed::CpuInterrupts* KernelEventFeed::InterruptsOf(uint32_t host, int32_t cpu) {
  if (cpu < 0 || cpu > 65535) return nullptr;
  std::vector<CpuInterrupts>& cpus = cpus_[host];
  if (static_cast<size_t>(cpu) >= cpus.size()) cpus.resize(cpu + 1);
  CpuInterrupts& c = cpus[cpu];
  if (!c.created) {
    c.created = true;
    c.attribute = writer_->Attribute(CpuAttribute(hosts_[host], cpu, "irq"));
  }
  return &c;
}

void KernelEventFeed::OnInterruptEntry(const kernel::KernelEvent& e, bool hard, StateValue value) {
  CpuInterrupts* c = InterruptsOf(e.host, e.cpu);
  if (!c) return;
  ++counters_.interrupts;
  if (c->depth < kMaxIrqDepth) {
    c->hard[c->depth] = hard;
    c->value[c->depth] = value;
  }
  ++c->depth;
  writer_->Set(c->attribute, e.ts, value);
}

void KernelEventFeed::OnInterruptExit(const kernel::KernelEvent& e, bool hard) {
  CpuInterrupts* c = InterruptsOf(e.host, e.cpu);
  if (!c || c->depth == 0) return;  // the trace began inside it
  if (c->depth <= kMaxIrqDepth && c->hard[c->depth - 1] != hard) {
    // Unbalanced (lost events): forget the context rather than guess, as the model does.
    c->depth = 0;
    writer_->Set(c->attribute, e.ts, StateValue::Null());
    return;
  }
  --c->depth;
  const int top = std::min(c->depth, kMaxIrqDepth) - 1;
  writer_->Set(c->attribute, e.ts, top >= 0 ? c->value[top] : StateValue::Null());
}

void KernelEventFeed::ClearInterrupts(const kernel::KernelEvent& e) {
  if (e.cpu < 0 || static_cast<size_t>(e.cpu) >= cpus_[e.host].size()) return;
  CpuInterrupts& c = cpus_[e.host][e.cpu];
  if (!c.created || c.depth == 0) return;
  c.depth = 0;
  writer_->Set(c.attribute, e.ts, StateValue::Null());
}

KernelEventFeed::Disk& KernelEventFeed::DiskOf(uint32_t host, int64_t dev, int64_t ts) {
  auto [it, added] = disks_.try_emplace({host, dev});
  Disk& d = it->second;
  if (added) {
    d.queued_attribute = writer_->Attribute(DiskAttribute(hosts_[host], dev, "queued"));
    d.on_device_attribute = writer_->Attribute(DiskAttribute(hosts_[host], dev, "on_device"));
    writer_->Set(d.queued_attribute, ts, StateValue::Int(0));
    writer_->Set(d.on_device_attribute, ts, StateValue::Int(0));
  }
  return d;
}

void KernelEventFeed::SetCount(state::AttributeId attribute, int64_t ts, int64_t count) {
  writer_->Set(attribute, ts, StateValue::Int(count));
}

// Requests are matched by (host, dev, first sector) as kernel::BlockRequests matches them:
// the first queue event of a key queues it (a bio queued, then inserted as a request, is
// one request), an issue moves it to the device (again: a requeue), a completion ends it.
// A queue event for a key on the device starts a new request (the old completion was not
// in the trace); an issue or completion of a request never seen queued counts from there.
void KernelEventFeed::OnBlock(const kernel::KernelEvent& e) {
  ++counters_.block_events;
  if (e.ts >= next_block_sweep_) {
    ExpireBlockRequests(e.ts);
    next_block_sweep_ = e.ts + 1'000'000'000;
  }
  Disk& d = DiskOf(e.host, e.dev(), e.ts);
  const BlockKey key{e.host, e.dev(), e.sector};
  switch (e.kind) {
    case Kind::kBlockQueue: {
      auto [it, added] = block_requests_.try_emplace(key);
      if (!added && !it->second.issued) {
        it->second.last_ts = e.ts;
        return;  // already queued (a bio, then its request)
      }
      if (!added) SetCount(d.on_device_attribute, e.ts, --d.on_device);
      it->second = {false, e.ts};
      SetCount(d.queued_attribute, e.ts, ++d.queued);
      break;
    }
    case Kind::kBlockIssue: {
      auto [it, added] = block_requests_.try_emplace(key);
      if (!added && it->second.issued) {
        it->second.last_ts = e.ts;
        return;  // issued again (requeued)
      }
      if (!added) SetCount(d.queued_attribute, e.ts, --d.queued);
      it->second = {true, e.ts};
      SetCount(d.on_device_attribute, e.ts, ++d.on_device);
      break;
    }
    case Kind::kBlockComplete: {
      auto it = block_requests_.find(key);
      if (it == block_requests_.end()) return;  // never seen: nothing to count down
      if (it->second.issued)
        SetCount(d.on_device_attribute, e.ts, --d.on_device);
      else
        SetCount(d.queued_attribute, e.ts, --d.queued);
      block_requests_.erase(it);
      break;
    }
    default:
      break;
  }
}

void KernelEventFeed::ExpireBlockRequests(int64_t now) {
  for (auto it = block_requests_.begin(); it != block_requests_.end();) {
    if (now - it->second.last_ts < kBlockExpiryNs) {
      ++it;
      continue;
    }
    Disk& d = disks_[{it->first.host, it->first.dev}];
    if (it->second.issued)
      SetCount(d.on_device_attribute, now, --d.on_device);
    else
      SetCount(d.queued_attribute, now, --d.queued);
    ++counters_.block_expired;
    block_requests_.erase(it++);
  }
}

}  // namespace causeway::index
