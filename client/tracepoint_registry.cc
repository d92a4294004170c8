#include <mutex>
#include <string>
#include <vector>

#include "causeway/tracepoint.h"

namespace causeway::client {

struct TracepointRegistry::Impl {
  mutable std::mutex mutex;
  std::vector<TracepointBase*> by_id;  // null once destroyed; ids are never reused
  std::vector<std::string> recorded_globs;
  bool trace_open = false;
  // Probe lists replaced by Attach/Detach. A firing thread may still be reading one, and
  // nothing tells when it stops, so they are kept until exit; each costs one small
  // allocation per Attach/Detach call, which run-time query changes keep rare.
  std::vector<std::unique_ptr<const detail::ProbeList>> retired;
};

TracepointRegistry& TracepointRegistry::Get() {
  // Leaked on purpose: tracepoints with static storage unregister during static destruction.
  static TracepointRegistry* registry = new TracepointRegistry;
  return *registry;
}

TracepointRegistry::Impl& TracepointRegistry::impl() const {
  static Impl* impl = new Impl;
  return *impl;
}

bool GlobMatch(std::string_view glob, std::string_view text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice.
  size_t g = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == text[t])) {
      ++g;
      ++t;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = t;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

TracepointBase::TracepointBase(std::string_view provider, std::string_view name,
                               std::vector<TracepointField> fields)
    : provider_(provider),
      name_(name),
      full_name_(std::string(provider) + ":" + std::string(name)),
      fields_(std::move(fields)) {
  TracepointRegistry::Get().Register(this);
}

TracepointBase::~TracepointBase() { TracepointRegistry::Get().Unregister(this); }

void TracepointBase::Dispatch(std::span<const TracepointValue> values) const {
  const detail::ProbeList* list = probes_.load(std::memory_order_acquire);
  if (!list) return;
  for (const auto& probe : list->probes) probe->OnFire(*this, values);
}

void TracepointRegistry::Register(TracepointBase* tp) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  tp->id_ = static_cast<uint32_t>(m.by_id.size());
  m.by_id.push_back(tp);
  UpdateState(tp);
}

void TracepointRegistry::Unregister(TracepointBase* tp) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  if (tp->id_ < m.by_id.size() && m.by_id[tp->id_] == tp) m.by_id[tp->id_] = nullptr;
  tp->state_.store(0, std::memory_order_relaxed);
  if (const detail::ProbeList* old = tp->probes_.exchange(nullptr)) m.retired.emplace_back(old);
}

void TracepointRegistry::UpdateState(TracepointBase* tp) {
  Impl& m = impl();
  uint32_t state = 0;
  if (m.trace_open) {
    for (const std::string& g : m.recorded_globs)
      if (GlobMatch(g, tp->full_name_)) state |= TracepointBase::kRecord;
  }
  const detail::ProbeList* list = tp->probes_.load(std::memory_order_relaxed);
  if (list && !list->probes.empty()) state |= TracepointBase::kProbes;
  tp->state_.store(state, std::memory_order_relaxed);
}

std::vector<TracepointBase*> TracepointRegistry::List() const {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  std::vector<TracepointBase*> out;
  for (TracepointBase* tp : m.by_id)
    if (tp) out.push_back(tp);
  return out;
}

TracepointBase* TracepointRegistry::Find(std::string_view full_name) const {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  for (TracepointBase* tp : m.by_id)
    if (tp && tp->full_name_ == full_name) return tp;
  return nullptr;
}

TracepointBase* TracepointRegistry::ById(uint32_t id) const {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  return id < m.by_id.size() ? m.by_id[id] : nullptr;
}

size_t TracepointRegistry::Attach(std::string_view glob, std::shared_ptr<TracepointProbe> probe) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  size_t n = 0;
  for (TracepointBase* tp : m.by_id) {
    if (!tp || !GlobMatch(glob, tp->full_name_)) continue;
    auto list = std::make_unique<detail::ProbeList>();
    if (const detail::ProbeList* old = tp->probes_.load(std::memory_order_relaxed))
      list->probes = old->probes;
    list->probes.push_back(probe);
    if (const detail::ProbeList* old =
            tp->probes_.exchange(list.release(), std::memory_order_acq_rel))
      m.retired.emplace_back(old);
    UpdateState(tp);
    ++n;
  }
  return n;
}

size_t TracepointRegistry::Detach(const TracepointProbe* probe) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  size_t n = 0;
  for (TracepointBase* tp : m.by_id) {
    if (!tp) continue;
    const detail::ProbeList* old = tp->probes_.load(std::memory_order_relaxed);
    if (!old) continue;
    auto list = std::make_unique<detail::ProbeList>();
    for (const auto& p : old->probes)
      if (p.get() != probe) list->probes.push_back(p);
    if (list->probes.size() == old->probes.size()) continue;
    tp->probes_.store(list->probes.empty() ? nullptr : list.release(), std::memory_order_release);
    m.retired.emplace_back(old);
    UpdateState(tp);
    ++n;
  }
  return n;
}

void TracepointRegistry::SetRecorded(std::string_view globs) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  m.recorded_globs.clear();
  size_t start = 0;
  while (start <= globs.size()) {
    size_t comma = globs.find(',', start);
    if (comma == std::string_view::npos) comma = globs.size();
    std::string_view g = globs.substr(start, comma - start);
    while (!g.empty() && g.front() == ' ') g.remove_prefix(1);
    while (!g.empty() && g.back() == ' ') g.remove_suffix(1);
    if (!g.empty()) m.recorded_globs.emplace_back(g);
    start = comma + 1;
  }
  for (TracepointBase* tp : m.by_id)
    if (tp) UpdateState(tp);
}

void TracepointRegistry::SetTraceOpen(bool open) {
  Impl& m = impl();
  std::lock_guard lock(m.mutex);
  m.trace_open = open;
  for (TracepointBase* tp : m.by_id)
    if (tp) UpdateState(tp);
}

}  // namespace causeway::client
