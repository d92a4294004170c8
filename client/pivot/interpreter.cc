#include "pivot/interpreter.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "causeway/tracepoint.h"

namespace causeway::pivot {
namespace {

// Implicit fields, as negative indexes into a firing.
constexpr int kHost = -1, kPid = -2, kProcName = -3, kTid = -4, kTimestamp = -5, kTracepoint = -6;

std::mutex g_host_mu;
std::string& HostName() {
  static std::string host = [] {
    if (const char* env = std::getenv("CAUSEWAY_HOST"); env != nullptr && *env)
      return std::string(env);
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return std::string(buf);
  }();
  return host;
}
const std::string& ProcName() {
  static const std::string name = [] {
    std::ifstream in("/proc/self/comm");
    std::string s;
    std::getline(in, s);
    return s;
  }();
  return name;
}

int ImplicitField(std::string_view name) {
  if (name == "host") return kHost;
  if (name == "pid") return kPid;
  if (name == "procName") return kProcName;
  if (name == "tid") return kTid;
  if (name == "timestamp") return kTimestamp;
  if (name == "tracepoint") return kTracepoint;
  return 0;
}

Value FromFiring(const client::TracepointBase& tp, std::span<const client::TracepointValue> v,
                 int index) {
  if (index >= 0) {
    const client::TracepointValue& x = v[static_cast<size_t>(index)];
    switch (x.type) {
      case client::FieldType::kInt64:
        return Value::Int(x.i);
      case client::FieldType::kUint64:
        return x.u <= static_cast<uint64_t>(INT64_MAX) ? Value::Int(static_cast<int64_t>(x.u))
                                                       : Value::Double(static_cast<double>(x.u));
      case client::FieldType::kDouble:
        return Value::Double(x.d);
      case client::FieldType::kBool:
        return Value::Bool(x.i != 0);
      case client::FieldType::kString:
        return Value::String(std::string(x.s));
    }
    return {};
  }
  switch (index) {
    case kHost: {
      std::lock_guard lock(g_host_mu);
      return Value::String(HostName());
    }
    case kPid:
      return Value::Int(getpid());
    case kProcName:
      return Value::String(ProcName());
    case kTid:
      return Value::Int(static_cast<int64_t>(syscall(SYS_gettid)));
    case kTimestamp: {
      timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      return Value::Int(int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec);
    }
    case kTracepoint:
      return Value::String(tp.full_name());
    default:
      return {};
  }
}

bool IsNumber(const Value& v) {
  return v.type == Value::Type::kInt || v.type == Value::Type::kDouble ||
         v.type == Value::Type::kBool;
}
double AsDouble(const Value& v) {
  return v.type == Value::Type::kDouble ? v.d : static_cast<double>(v.i);
}

using ColumnOf = std::unordered_map<const Expr*, int>;

// Evaluates `e` on tuple `t`; type errors and division by zero give null. Depth is bounded
// by the parser (nesting and operator count).
Value Eval(const Expr& e, const Tuple& t, const ColumnOf& cols) {
  switch (e.kind) {
    case Expr::Kind::kInt:
      return Value::Int(e.i);
    case Expr::Kind::kDouble:
      return Value::Double(e.d);
    case Expr::Kind::kString:
      return Value::String(e.s);
    case Expr::Kind::kBool:
      return Value::Bool(e.i != 0);
    case Expr::Kind::kField: {
      auto it = cols.find(&e);
      return it == cols.end() ? Value() : t[static_cast<size_t>(it->second)];
    }
    case Expr::Kind::kUnary: {
      Value v = Eval(*e.lhs, t, cols);
      if (e.unary_op == UnaryOp::kNot) {
        return v.type == Value::Type::kBool ? Value::Bool(v.i == 0) : Value();
      }
      if (v.type == Value::Type::kInt) return Value::Int(static_cast<int64_t>(0ULL - v.i));
      if (v.type == Value::Type::kDouble) return Value::Double(-v.d);
      return {};
    }
    case Expr::Kind::kBinary:
      break;
  }
  if (e.binary_op == BinaryOp::kAnd || e.binary_op == BinaryOp::kOr) {
    Value l = Eval(*e.lhs, t, cols);
    if (l.type != Value::Type::kBool) return {};
    if (e.binary_op == BinaryOp::kAnd && !l.i) return Value::Bool(false);
    if (e.binary_op == BinaryOp::kOr && l.i) return Value::Bool(true);
    Value r = Eval(*e.rhs, t, cols);
    return r.type == Value::Type::kBool ? r : Value();
  }
  const Value l = Eval(*e.lhs, t, cols);
  const Value r = Eval(*e.rhs, t, cols);
  switch (e.binary_op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: {
      int cmp;
      if (l.type == Value::Type::kString && r.type == Value::Type::kString) {
        cmp = l.s < r.s ? -1 : l.s == r.s ? 0 : 1;
      } else if (IsNumber(l) && IsNumber(r)) {
        if (l.type != Value::Type::kDouble && r.type != Value::Type::kDouble) {
          cmp = l.i < r.i ? -1 : l.i == r.i ? 0 : 1;
        } else {
          const double a = AsDouble(l), b = AsDouble(r);
          if (std::isnan(a) || std::isnan(b)) return Value::Bool(e.binary_op == BinaryOp::kNe);
          cmp = a < b ? -1 : a == b ? 0 : 1;
        }
      } else {
        return {};
      }
      switch (e.binary_op) {
        case BinaryOp::kEq:
          return Value::Bool(cmp == 0);
        case BinaryOp::kNe:
          return Value::Bool(cmp != 0);
        case BinaryOp::kLt:
          return Value::Bool(cmp < 0);
        case BinaryOp::kLe:
          return Value::Bool(cmp <= 0);
        case BinaryOp::kGt:
          return Value::Bool(cmp > 0);
        default:
          return Value::Bool(cmp >= 0);
      }
    }
    default:
      break;
  }
  // Arithmetic: integers stay integers (wrapping), otherwise doubles.
  if (!IsNumber(l) || !IsNumber(r)) return {};
  if (l.type != Value::Type::kDouble && r.type != Value::Type::kDouble) {
    const uint64_t a = static_cast<uint64_t>(l.i), b = static_cast<uint64_t>(r.i);
    switch (e.binary_op) {
      case BinaryOp::kAdd:
        return Value::Int(static_cast<int64_t>(a + b));
      case BinaryOp::kSub:
        return Value::Int(static_cast<int64_t>(a - b));
      case BinaryOp::kMul:
        return Value::Int(static_cast<int64_t>(a * b));
      case BinaryOp::kDiv:
        if (r.i == 0 || (l.i == INT64_MIN && r.i == -1)) return {};
        return Value::Int(l.i / r.i);
      case BinaryOp::kMod:
        if (r.i == 0 || (l.i == INT64_MIN && r.i == -1)) return {};
        return Value::Int(l.i % r.i);
      default:
        return {};
    }
  }
  const double a = AsDouble(l), b = AsDouble(r);
  switch (e.binary_op) {
    case BinaryOp::kAdd:
      return Value::Double(a + b);
    case BinaryOp::kSub:
      return Value::Double(a - b);
    case BinaryOp::kMul:
      return Value::Double(a * b);
    case BinaryOp::kDiv:
      return b == 0 ? Value() : Value::Double(a / b);
    case BinaryOp::kMod:
      return b == 0 ? Value() : Value::Double(std::fmod(a, b));
    default:
      return {};
  }
}

void ResolveExpr(const Expr& e, const std::vector<FieldRef>& scope, ColumnOf* out) {
  if (e.kind == Expr::Kind::kField) {
    auto it = std::find(scope.begin(), scope.end(), e.field);
    if (it != scope.end()) (*out)[&e] = static_cast<int>(it - scope.begin());
  }
  if (e.lhs) ResolveExpr(*e.lhs, scope, out);
  if (e.rhs) ResolveExpr(*e.rhs, scope, out);
}

int IndexIn(const std::vector<FieldRef>& scope, const FieldRef& f) {
  auto it = std::find(scope.begin(), scope.end(), f);
  return it == scope.end() ? -1 : static_cast<int>(it - scope.begin());
}

// A partial aggregate in a bag: sum, count, min, max.
void AppendPartial(Tuple* t, const Partial& p) {
  t->push_back(Value::Double(p.sum));
  t->push_back(Value::Int(p.count));
  t->push_back(Value::Double(p.min));
  t->push_back(Value::Double(p.max));
}
Partial ReadPartial(const Tuple& t, size_t at) {
  Partial p;
  if (at + 4 > t.size()) return p;
  p.sum = AsDouble(t[at]);
  p.count = t[at + 1].i;
  p.min = AsDouble(t[at + 2]);
  p.max = AsDouble(t[at + 3]);
  p.any = p.count > 0;
  return p;
}

}  // namespace

void SetPivotHostName(std::string host) {
  std::lock_guard lock(g_host_mu);
  HostName() = std::move(host);
}

std::string PivotHostName() {
  std::lock_guard lock(g_host_mu);
  return HostName();
}

// Which probe each thread is firing, for Retire(). Each thread owns one slot (kept in a
// process-wide list, reused after the thread ends) and writes it with plain stores; Retire()
// sets the probe's live_ flag to false, then runs a process-wide memory barrier on every
// thread (membarrier(2), private expedited), so that each thread either has its slot store
// visible to Retire() or sees live_ false; then Retire() waits while a slot names the probe.
// Without membarrier (old kernels, seccomp), both sides fall back to seq_cst fences.
struct FiringSlot {
  std::atomic<const void*> probe{nullptr};
  bool in_use = false;  // under FiringSlots' mutex

  void Enter(const void* p) {
    probe.store(p, std::memory_order_relaxed);
    if (use_fences) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
    } else {
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order
    }
  }
  void Leave() { probe.store(nullptr, std::memory_order_release); }
  static inline bool use_fences = false;
};

class FiringSlots {
 public:
  static FiringSlot& Mine() {
    thread_local FiringSlot* slot = nullptr;  // trivial: no guard on the hot path
    if (slot == nullptr) [[unlikely]]
      slot = Acquire();
    return *slot;
  }

  // Registers the process for membarrier(2). The kernel waits for an RCU grace period there
  // (tens of ms on this VM), so it must happen when advice is woven, never on a firing.
  static void Prepare() { (void)State(); }

  static void WaitUntilNoneIn(const void* probe) {
    if (FiringSlot::use_fences) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
    } else if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
      std::atomic_thread_fence(std::memory_order_seq_cst);  // cannot happen once registered
    }
    std::vector<FiringSlot*> slots;
    {
      std::lock_guard lock(State().mu);
      slots = State().slots;
    }
    for (FiringSlot* s : slots) {
      while (s->probe.load(std::memory_order_acquire) == probe) std::this_thread::yield();
    }
  }

 private:
  struct Shared {
    std::mutex mu;
    std::vector<FiringSlot*> slots;  // never freed: a thread's slot is reused after it ends
    Shared() {
      // Registration makes the expedited barrier available to this process.
      FiringSlot::use_fences =
          syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0;
    }
  };
  static Shared& State() {
    static Shared* s = new Shared();  // lives past static destruction (late firings)
    return *s;
  }

  // Gives the slot back when the thread ends.
  struct Release {
    FiringSlot* slot = nullptr;
    ~Release() {
      if (slot == nullptr) return;
      std::lock_guard lock(State().mu);
      slot->in_use = false;
    }
  };

  static FiringSlot* Acquire() {
    thread_local Release release;
    Shared& s = State();
    std::lock_guard lock(s.mu);
    FiringSlot* slot = nullptr;
    for (FiringSlot* free : s.slots) {
      if (!free->in_use) slot = free;
    }
    if (slot == nullptr) {
      slot = new FiringSlot();
      s.slots.push_back(slot);
    }
    slot->in_use = true;
    release.slot = slot;
    return slot;
  }
};

// One advice woven at its tracepoints. Everything is resolved before it is attached; OnFire
// only reads it.
class QueryRunner::Probe : public client::TracepointProbe {
 public:
  Probe(QueryRunner* runner, const Advice* advice) : runner_(runner), advice_(advice) {
    std::vector<FieldRef> scope;
    for (const Op& op : advice->ops) {
      Step step;
      step.op = &op;
      switch (op.kind) {
        case OpKind::kObserve:
        case OpKind::kUnpack:
          for (const FieldRef& f : op.fields) scope.push_back(f);
          if (op.partial) {  // group columns, then 4 per aggregate
            for (const auto& a : op.aggregates) {
              for (int k = 0; k < 4; ++k) scope.push_back({"", a.name, {}});
            }
          }
          break;
        case OpKind::kFilter:
          ResolveExpr(*op.predicate, scope, &step.expr_cols);
          break;
        case OpKind::kPack:
        case OpKind::kEmit:
          for (const FieldRef& f : op.fields) step.cols.push_back(IndexIn(scope, f));
          for (const FieldRef& f : op.group_by) step.group_cols.push_back(IndexIn(scope, f));
          for (const auto& a : op.aggregates) {
            step.agg_cols.push_back(a.field.var.empty() ? -1 : IndexIn(scope, a.field));
          }
          if (op.kind == OpKind::kPack && op.pack != PackKind::kAggregate) {
            step.group_cols.clear();  // the AS names
          }
          if (op.partial) {
            step.group_cols.clear();
            for (size_t i = 0; i < op.group_by.size(); ++i) {
              step.group_cols.push_back(static_cast<int>(i));
            }
          }
          break;
      }
      steps_.push_back(std::move(step));
    }
  }

  // Maps the OBSERVE fields onto `tp`'s fields; must precede Attach.
  Status Resolve(const client::TracepointBase& tp) {
    std::vector<int> index;
    for (const FieldRef& f : advice_->ops.front().fields) {
      int at = 0;
      const auto fields = tp.fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name == f.field) at = static_cast<int>(i) + 1;
      }
      if (at > 0) {
        index.push_back(at - 1);
      } else if (int implicit = ImplicitField(f.field); implicit != 0) {
        index.push_back(implicit);
      } else {
        return InvalidArgument(fmt::format("tracepoint {} has no field '{}' (for {})",
                                           tp.full_name(), f.field, f.ToString()));
      }
    }
    for (auto& [id, known] : layouts_) {
      if (id == tp.id()) {
        known = std::move(index);
        return Status::Ok();
      }
    }
    layouts_.emplace_back(tp.id(), std::move(index));
    return Status::Ok();
  }

  // A firing may have loaded the probe list just before Uninstall detached this probe: it
  // then still calls OnFire, possibly after the runner is gone. Retire() (from Uninstall)
  // turns such late firings away and waits for those already inside. The firing side only
  // writes its thread's slot (plain stores, no atomic read-modify-write on the hot path);
  // Retire() pays instead, with an asymmetric barrier (FiringSlots::Quiesce).
  void OnFire(const client::TracepointBase& tp,
              std::span<const client::TracepointValue> values) override {
    FiringSlot& slot = FiringSlots::Mine();
    slot.Enter(this);
    if (live_.load(std::memory_order_relaxed)) Fire(tp, values);
    slot.Leave();
  }

  void Retire() {
    live_.store(false, std::memory_order_relaxed);
    FiringSlots::WaitUntilNoneIn(this);
  }

 private:
  void Fire(const client::TracepointBase& tp, std::span<const client::TracepointValue> values) {
    // A firing that reaches EMIT is counted there, under the lock EMIT takes anyway (one
    // atomic operation less on the hot path); any other is counted on the way out.
    struct CountUnlessEmitted {
      QueryRunner* runner;
      bool emitted = false;
      ~CountUnlessEmitted() {
        if (!emitted) runner->CountFiring();
      }
    } count{runner_};
    const std::vector<int>* layout = nullptr;
    for (const auto& [id, index] : layouts_) {
      if (id == tp.id()) layout = &index;
    }
    if (layout == nullptr) return;
    // Reused per thread: a firing allocates nothing for its first tuple once warm. (A probe
    // never fires a tracepoint, so there is no reentrance on one thread.)
    thread_local std::vector<Tuple> tuples;
    tuples.resize(1);
    tuples[0].resize(layout->size());
    for (size_t i = 0; i < layout->size(); ++i) {
      const int index = (*layout)[i];
      Value& out = tuples[0][i];
      if (index >= 0 && values[static_cast<size_t>(index)].type == client::FieldType::kString) {
        // In place: the thread's buffer keeps its string's storage from firing to firing.
        out.type = Value::Type::kString;
        out.s.assign(values[static_cast<size_t>(index)].s);
      } else {
        out = FromFiring(tp, values, index);
      }
    }
    for (const Step& step : steps_) {
      const Op& op = *step.op;
      switch (op.kind) {
        case OpKind::kObserve:
          break;
        case OpKind::kUnpack: {
          const Baggage* b = Baggage::Current();
          const Bag* bag = b ? b->Find(op.bag) : nullptr;
          if (!bag || bag->tuples.empty()) return;  // nothing happened before: no join
          thread_local std::vector<Tuple> joined;
          joined.clear();
          for (const Tuple& t : tuples) {
            for (const Tuple& u : bag->tuples) {
              if (joined.size() >= kMaxTuples) {
                runner_->CountDropped(1);
                continue;
              }
              Tuple j = t;
              j.insert(j.end(), u.begin(), u.end());
              joined.push_back(std::move(j));
            }
          }
          tuples.swap(joined);
          break;
        }
        case OpKind::kFilter: {
          std::erase_if(tuples, [&](const Tuple& t) {
            Value v = Eval(*op.predicate, t, step.expr_cols);
            if (v.type != Value::Type::kBool) {
              runner_->CountTypeError();
              return true;
            }
            return v.i == 0;
          });
          break;
        }
        case OpKind::kPack:
          Pack(step, tuples);
          break;
        case OpKind::kEmit:
          count.emitted = true;
          runner_->Emit(op, std::move(tuples),
                        op.group_by.empty() && op.aggregates.empty() ? step.cols : step.group_cols,
                        step.agg_cols, op.partial, /*count_firing=*/true);
          return;
      }
      if (tuples.empty()) return;
    }
  }

 private:
  struct Step {
    const Op* op = nullptr;
    std::vector<int> cols, group_cols, agg_cols;
    ColumnOf expr_cols;
  };

  static Tuple Project(const Tuple& t, const std::vector<int>& cols) {
    Tuple out;
    out.reserve(cols.size());
    for (int c : cols) out.push_back(c >= 0 && static_cast<size_t>(c) < t.size() ? t[c] : Value());
    return out;
  }

  void Pack(const Step& step, const std::vector<Tuple>& tuples) {
    const Op& op = *step.op;
    Bag& bag = Baggage::EnsureCurrent().Get(op.bag);
    if (op.pack == PackKind::kAggregate) {
      const size_t g = step.group_cols.size();
      for (const Tuple& t : tuples) {
        Tuple group = Project(t, step.group_cols);
        Tuple* slot = nullptr;
        for (Tuple& existing : bag.tuples) {
          if (std::equal(group.begin(), group.end(), existing.begin(), existing.begin() + g)) {
            slot = &existing;
          }
        }
        if (!slot) {
          if (bag.tuples.size() >= kMaxTuplesPerBag) {
            bag.overflow = true;
            runner_->CountDropped(1);
            continue;
          }
          Tuple fresh = group;
          for (size_t a = 0; a < op.aggregates.size(); ++a) AppendPartial(&fresh, Partial());
          bag.tuples.push_back(std::move(fresh));
          slot = &bag.tuples.back();
        }
        for (size_t a = 0; a < op.aggregates.size(); ++a) {
          Partial p = ReadPartial(*slot, g + 4 * a);
          const int col = step.agg_cols[a];
          if (col < 0) {
            p.Add(0);
          } else if (IsNumber(t[col])) {
            p.Add(AsDouble(t[col]));
          } else {
            runner_->CountTypeError();
            continue;
          }
          Tuple fresh;
          AppendPartial(&fresh, p);
          std::copy(fresh.begin(), fresh.end(), slot->begin() + static_cast<long>(g + 4 * a));
        }
      }
      return;
    }
    const size_t cap = (op.pack == PackKind::kFirstN || op.pack == PackKind::kRecentN) ? op.n
                       : (op.pack == PackKind::kFirst || op.pack == PackKind::kRecent)
                           ? 1
                           : kMaxTuplesPerBag;
    for (const Tuple& t : tuples) {
      switch (op.pack) {
        case PackKind::kFirst:
        case PackKind::kFirstN:
        case PackKind::kAll:
          if (bag.tuples.size() >= cap) {  // full: the tuple is not even built
            if (op.pack == PackKind::kAll) {
              bag.overflow = true;
              runner_->CountDropped(1);
            }
            continue;
          }
          bag.tuples.push_back(Project(t, step.cols));
          break;
        case PackKind::kRecent:
        case PackKind::kRecentN:
          if (cap == 0) continue;
          if (bag.tuples.size() >= cap) {
            // The oldest goes; its storage is reused for the newest.
            std::rotate(bag.tuples.begin(), bag.tuples.begin() + 1, bag.tuples.end());
            Tuple& last = bag.tuples.back();
            last.resize(step.cols.size());
            for (size_t i = 0; i < step.cols.size(); ++i) {
              const int col = step.cols[i];
              last[i] = col >= 0 && static_cast<size_t>(col) < t.size() ? t[col] : Value();
            }
          } else {
            bag.tuples.push_back(Project(t, step.cols));
          }
          break;
        case PackKind::kAggregate:
          break;
      }
    }
  }

  std::atomic<bool> live_{true};
  QueryRunner* runner_;
  const Advice* advice_;
  std::vector<Step> steps_;
  std::vector<std::pair<uint32_t, std::vector<int>>> layouts_;  // per tracepoint id
};

QueryRunner::QueryRunner(CompiledQuery query) : query_(std::move(query)) {}

QueryRunner::~QueryRunner() { Uninstall(); }

StatusOr<size_t> QueryRunner::Install() {
  FiringSlots::Prepare();
  Uninstall();
  auto& registry = client::TracepointRegistry::Get();
  std::vector<std::pair<std::shared_ptr<Probe>, std::vector<client::TracepointBase*>>> plan;
  size_t woven = 0;
  for (const Advice& advice : query_.advice) {
    auto probe = std::make_shared<Probe>(this, &advice);
    std::vector<client::TracepointBase*> targets;
    for (client::TracepointBase* tp : registry.List()) {
      std::string dotted = tp->full_name();
      std::replace(dotted.begin(), dotted.end(), ':', '.');
      for (const std::string& pattern : advice.tracepoints) {
        if (client::GlobMatch(pattern, tp->full_name()) || client::GlobMatch(pattern, dotted)) {
          RETURN_IF_ERROR(
              probe->Resolve(*tp).WithContext(fmt::format("Cannot weave query {}", query_.id)));
          targets.push_back(tp);
          break;
        }
      }
    }
    plan.push_back({probe, std::move(targets)});
  }
  for (auto& [probe, targets] : plan) {
    for (client::TracepointBase* tp : targets) woven += registry.Attach(tp->full_name(), probe);
    probes_.push_back(probe);
  }
  return woven;
}

void QueryRunner::Uninstall() {
  auto& registry = client::TracepointRegistry::Get();
  for (const auto& p : probes_) {
    registry.Detach(p.get());
    p->Retire();  // no firing uses the runner after this
  }
  probes_.clear();
}

void QueryRunner::Emit(const Op& emit, std::vector<Tuple>&& tuples,
                       const std::vector<int>& group_cols, const std::vector<int>& agg_cols,
                       bool partial_input, bool count_firing) {
  std::lock_guard lock(mu_);
  if (count_firing) ++firings_locked_;
  if (emit.group_by.empty() && emit.aggregates.empty()) {
    for (Tuple& t : tuples) {
      if (rows_.size() >= kMaxRows) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      Tuple row;
      for (int c : group_cols) {
        row.push_back(c >= 0 && static_cast<size_t>(c) < t.size() ? std::move(t[c]) : Value());
      }
      rows_.push_back({std::move(row), {}});
      ++emitted_;
    }
    return;
  }
  const size_t g = group_cols.size();
  for (const Tuple& t : tuples) {
    // Looked up through a view of the tuple's group columns: the group is copied only when
    // it is new.
    auto it = groups_.find(GroupView{&t, &group_cols});
    if (it == groups_.end()) {
      if (groups_.size() >= kMaxGroups) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      Tuple group;
      for (int c : group_cols) {
        group.push_back(c >= 0 && static_cast<size_t>(c) < t.size() ? t[c] : Value());
      }
      it = groups_.emplace(group, ResultRow{group, {}}).first;
      it->second.partials.resize(emit.aggregates.size());
    }
    for (size_t a = 0; a < emit.aggregates.size(); ++a) {
      if (partial_input) {
        it->second.partials[a].Combine(ReadPartial(t, g + 4 * a));
        continue;
      }
      const int col = agg_cols[a];
      if (col < 0) {
        it->second.partials[a].Add(0);
      } else if (IsNumber(t[col])) {
        it->second.partials[a].Add(AsDouble(t[col]));
      } else {
        type_errors_.fetch_add(1, std::memory_order_relaxed);
      }
    }
    ++emitted_;
  }
}

std::vector<ResultRow> QueryRunner::TakeResults() {
  std::lock_guard lock(mu_);
  std::vector<ResultRow> out = std::move(rows_);
  rows_.clear();
  for (auto& [key, row] : groups_) out.push_back(std::move(row));
  groups_.clear();
  return out;
}

QueryStats QueryRunner::stats() const {
  std::lock_guard lock(mu_);
  return {firings_.load() + firings_locked_, emitted_, dropped_.load(), type_errors_.load()};
}

}  // namespace causeway::pivot
