#include "diagnose/diagnosis.h"

#include <algorithm>
#include <numeric>

namespace causeway::diagnose {
namespace {

RequestLevels LevelsOf(const RecordingView& r, size_t request, const StoreLevels& store) {
  const requests::RequestDetail d = r.requests->Detail(request);
  return ComputeLevels(*r.graph, d.path, r.requests->requests[request].latency(), d.cpu_wait,
                       store);
}

// The requests of each operation, in request order.
std::map<OperationKey, std::vector<size_t>> ByOperation(const RecordingView& r) {
  std::map<OperationKey, std::vector<size_t>> out;
  for (size_t i = 0; i < r.requests->requests.size(); ++i) out[OperationOf(r, i)].push_back(i);
  return out;
}

}  // namespace

const OperationBaseline* Baselines::Find(const OperationKey& key) const {
  auto it =
      std::lower_bound(operations.begin(), operations.end(), key,
                       [](const OperationBaseline& o, const OperationKey& k) { return o.key < k; });
  return it != operations.end() && it->key == key ? &*it : nullptr;
}

OperationKey OperationOf(const RecordingView& r, size_t request) {
  const spans::Span& root = r.spans->spans[r.requests->requests[request].root];
  return {*root.service, *root.operation};
}

Baselines MakeBaselines(const RecordingView& normal, bool own, const OperationKey* only) {
  Baselines b;
  b.from_other_recording = !own;
  const StoreLevels store(*normal.graph, normal.store);
  b.syscalls_recorded = store.syscalls_recorded();
  b.page_cache_recorded = store.page_cache_recorded();
  for (const auto& [key, members] : ByOperation(normal)) {
    if (only && key != *only) continue;
    std::vector<int64_t> latencies;
    for (size_t i : members) latencies.push_back(normal.requests->requests[i].latency());
    std::vector<size_t> chosen;
    if (own) {
      const std::vector<bool> keep = NormalPart(latencies);
      for (size_t k = 0; k < members.size(); ++k)
        if (keep[k]) chosen.push_back(members[k]);
    } else {
      chosen = members;
    }
    OperationBaseline o;
    o.key = key;
    std::vector<int64_t> chosen_latencies;
    for (size_t i : chosen) chosen_latencies.push_back(normal.requests->requests[i].latency());
    o.latency = StatsOf(std::move(chosen_latencies));
    // At most kMaxProfiledRequests of them, evenly spread.
    const size_t n = chosen.size();
    const size_t profiled = std::min<size_t>(n, kMaxProfiledRequests);
    std::map<std::string, int64_t> sums;
    for (size_t k = 0; k < profiled; ++k) {
      const size_t i = chosen[k * n / profiled];
      for (const auto& [category, ns] : Categories(LevelsOf(normal, i, store)))
        sums[category] += ns;
    }
    o.profiled = static_cast<int64_t>(profiled);
    for (const auto& [category, ns] : sums)
      o.mean_ns[category] = ns / static_cast<int64_t>(std::max<size_t>(1, profiled));
    b.operations.push_back(std::move(o));
  }
  return b;
}

Finding Examine(const RecordingView& r, size_t request, const Baselines& baselines) {
  Finding f;
  f.request = request;
  f.operation = OperationOf(r, request);
  const OperationBaseline* o = baselines.Find(f.operation);
  f.judgement = o ? Judge(o->latency, r.requests->requests[request].latency()) : Judgement{};
  f.levels = LevelsOf(r, request, StoreLevels(*r.graph, r.store));
  return f;
}

std::vector<Step> Walk(const Finding& f, const OperationBaseline* baseline) {
  auto mean = [&](const std::string& category) { return baseline ? baseline->Mean(category) : 0; };
  // The amount of `amounts` (names under `prefix`) most above its mean, if any is.
  auto most_above = [&](int level, const std::vector<Amount>& amounts, const std::string& prefix,
                        std::vector<Step>* steps) {
    const Amount* best = nullptr;
    int64_t best_excess = 0;
    for (const Amount& a : amounts) {
      const int64_t excess = a.ns - mean(prefix + a.name);
      if (excess > best_excess) best = &a, best_excess = excess;
    }
    if (best) steps->push_back({level, best->name, best->ns, mean(prefix + best->name)});
    return best != nullptr;
  };
  std::vector<Step> steps;
  const RequestLevels& l = f.levels;
  std::vector<Amount> states = l.states;
  std::string state_prefix = "state/";
  if (l.syscalls_recorded) {
    std::vector<Amount> calls;
    for (const SyscallTime& s : l.syscalls) calls.push_back({s.name, s.ns});
    if (!most_above(2, calls, "syscall/", &steps)) return steps;
    for (const SyscallTime& s : l.syscalls)
      if (s.name == steps.back().name) states = s.by_state;
    state_prefix = "syscall_state/" + steps.back().name + "/";
  }
  if (!most_above(3, states, state_prefix, &steps)) return steps;
  const std::string& state = steps.back().name;
  std::vector<Amount> below;
  for (const Amount& a : l.below) {
    const bool block = a.name == kBlockQueue || a.name == kBlockDevice;
    if ((block && (state == "BLOCK_DEVICE" || state == "BLOCK_QUEUE")) ||
        (a.name == kNetwork && state == "NETWORK"))
      below.push_back(a);
  }
  most_above(4, below, "below/", &steps);
  return steps;
}

Diagnosis Diagnose(const RecordingView& subject, const RecordingView* baseline, long limit) {
  Diagnosis d;
  d.baselines = MakeBaselines(baseline ? *baseline : subject, /*own=*/baseline == nullptr);
  const StoreLevels store(*subject.graph, subject.store);
  d.syscalls_recorded = store.syscalls_recorded();
  d.page_cache_recorded = store.page_cache_recorded();
  std::vector<std::pair<size_t, Judgement>> abnormal;
  for (const auto& [key, members] : ByOperation(subject)) {
    OperationVerdicts v;
    v.key = key;
    v.requests = static_cast<int64_t>(members.size());
    std::vector<int64_t> latencies;
    const OperationBaseline* o = d.baselines.Find(key);
    for (size_t i : members) {
      const int64_t latency = subject.requests->requests[i].latency();
      latencies.push_back(latency);
      if (!o) continue;
      const Judgement j = Judge(o->latency, latency);
      if (j.verdict == Verdict::kAbnormal) {
        ++v.abnormal;
        abnormal.push_back({i, j});
      }
    }
    v.latency = StatsOf(std::move(latencies));
    d.abnormal_requests += v.abnormal;
    d.operations.push_back(std::move(v));
  }
  std::stable_sort(abnormal.begin(), abnormal.end(), [&](const auto& x, const auto& y) {
    return subject.requests->requests[x.first].latency() >
           subject.requests->requests[y.first].latency();
  });
  if (limit >= 0 && abnormal.size() > static_cast<size_t>(limit))
    abnormal.resize(static_cast<size_t>(limit));
  for (const auto& [i, j] : abnormal) {
    Finding f;
    f.request = i;
    f.operation = OperationOf(subject, i);
    f.judgement = j;
    f.levels = LevelsOf(subject, i, store);
    d.findings.push_back(std::move(f));
  }
  return d;
}

}  // namespace causeway::diagnose
