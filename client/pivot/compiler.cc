// Query -> advice (advice.h).
//
// The joins of a query form a tree rooted at the From variable: `Join y ... On y -> z` makes y
// a child of z. Each variable gets one advice at its tracepoints: OBSERVE its own fields,
// UNPACK its children's bags, FILTER the conjuncts of Where whose variables all lie in its
// subtree (the deepest such place: selection pushed toward the sources), then PACK the
// columns its ancestors still need (projection) or, at the root, EMIT. When the aggregation
// only reads one joined subtree (and the root adds nothing but the join), that subtree packs
// grouped partial aggregates instead of tuples (aggregation pushed to the source) and EMIT
// combines them.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "pivot/advice.h"

namespace causeway::pivot {
namespace {

constexpr size_t kMaxVariables = 64;

struct Node {
  std::string var;
  int parent = -1;
  JoinKind kind = JoinKind::kAll;
  uint32_t n = 0;
  const Source* source = nullptr;
  std::vector<int> children;
  std::vector<std::shared_ptr<const Expr>> filters;
};

void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == Expr::Kind::kBinary && e.binary_op == BinaryOp::kAnd) {
    SplitConjuncts(*e.lhs, out);
    SplitConjuncts(*e.rhs, out);
  } else {
    out->push_back(&e);
  }
}

void FieldsOf(const Expr& e, std::vector<FieldRef>* out) {
  if (e.kind == Expr::Kind::kField) out->push_back(e.field);
  if (e.lhs) FieldsOf(*e.lhs, out);
  if (e.rhs) FieldsOf(*e.rhs, out);
}

void AddUnique(std::vector<FieldRef>* v, const FieldRef& f) {
  if (std::find(v->begin(), v->end(), f) == v->end()) v->push_back(f);
}

PackKind PackKindOf(JoinKind k) {
  switch (k) {
    case JoinKind::kAll:
      return PackKind::kAll;
    case JoinKind::kFirst:
      return PackKind::kFirst;
    case JoinKind::kFirstN:
      return PackKind::kFirstN;
    case JoinKind::kMostRecent:
      return PackKind::kRecent;
    case JoinKind::kMostRecentN:
      return PackKind::kRecentN;
  }
  return PackKind::kAll;
}

// Where a nested query's result goes: PACKed into the bag of the variable it is bound to,
// its selected columns renamed to `var.column` (returned in `columns`).
struct NestedTarget {
  const std::string& var;
  JoinKind kind;
  uint32_t n;
  std::vector<FieldRef>* columns;
};

class Compiler {
 public:
  explicit Compiler(std::string id) : id_(std::move(id)) {}

  // Compiles `q` into out->advice; its root ends in EMIT, or, for a nested query, in a PACK
  // for `nested`.
  Status CompileQuery(const Query& q, CompiledQuery* out, const NestedTarget* nested);

  std::string BagOf(const std::string& var) const { return id_ + "." + var; }
  const std::string& id() const { return id_; }

 private:
  std::string id_;
};

// One query (the top one or a nested one) while it compiles, in the steps of Run.
class QueryCompilation {
 public:
  QueryCompilation(Compiler* compiler, const Query& q, const NestedTarget* nested)
      : compiler_(compiler), q_(q), nested_(nested) {}

  Status Run(CompiledQuery* out) {
    RETURN_IF_ERROR(BuildJoinTree());
    RETURN_IF_ERROR(PlaceWhere());
    RETURN_IF_ERROR(SplitSelect());
    CollectOutputFields();
    ChooseAggregationPushdown();
    for (int node : ChildrenFirst()) RETURN_IF_ERROR(Advise(node, out));
    if (!nested_) SetResults(out);
    return Status::Ok();
  }

 private:
  // The tree of the query's variables: the From variable at its root, each joined variable
  // under the one its join leads to.
  Status BuildJoinTree() {
    nodes_.push_back({q_.var, -1, JoinKind::kAll, 0, &q_.from, {}, {}});
    index_[q_.var] = 0;
    for (const Join& j : q_.joins) {
      if (nodes_.size() >= kMaxVariables) return InvalidArgument("too many joins");
      index_[j.var] = static_cast<int>(nodes_.size());
      nodes_.push_back({j.var, -1, j.kind, j.n, &j.source, {}, {}});
    }
    for (const Join& j : q_.joins) {
      auto it = index_.find(j.after);
      if (it == index_.end()) {
        return InvalidArgument(fmt::format("line {}, column {}: 'On {} -> {}': '{}' is not bound",
                                           j.pos.line, j.pos.column, j.before, j.after, j.after));
      }
      nodes_[index_[j.var]].parent = it->second;
    }
    // Every join must lead to the From variable (no cycles).
    for (size_t i = 1; i < nodes_.size(); ++i) {
      int at = static_cast<int>(i);
      size_t steps = 0;
      while (at > 0 && steps++ <= nodes_.size()) at = nodes_[at].parent;
      if (at != 0) {
        return InvalidArgument(
            fmt::format("join of '{}' does not lead to '{}' (cycle)", nodes_[i].var, q_.var));
      }
      nodes_[nodes_[i].parent].children.push_back(static_cast<int>(i));
    }
    return Status::Ok();
  }

  bool InSubtree(int node, int root) const {
    for (size_t steps = 0; node >= 0 && steps <= nodes_.size(); ++steps) {
      if (node == root) return true;
      node = nodes_[node].parent;
    }
    return false;
  }
  int NodeOf(const FieldRef& f) const { return index_.at(f.var); }
  Status CheckBound(const FieldRef& f) const {
    if (!index_.count(f.var)) {
      return InvalidArgument(fmt::format("line {}, column {}: unknown variable '{}'", f.pos.line,
                                         f.pos.column, f.var));
    }
    return Status::Ok();
  }

  // Where: each conjunct at the deepest node whose subtree holds all its variables.
  Status PlaceWhere() {
    if (!q_.where) return Status::Ok();
    std::vector<const Expr*> conjuncts;
    SplitConjuncts(*q_.where, &conjuncts);
    for (const Expr* c : conjuncts) {
      std::vector<FieldRef> fields;
      FieldsOf(*c, &fields);
      for (const FieldRef& f : fields) RETURN_IF_ERROR(CheckBound(f));
      int best = 0;
      for (int cand = static_cast<int>(nodes_.size()) - 1; cand >= 0; --cand) {
        bool all = std::all_of(fields.begin(), fields.end(),
                               [&](const FieldRef& f) { return InSubtree(NodeOf(f), cand); });
        if (all && (best == 0 || InSubtree(cand, best))) best = cand;
      }
      // Filtering below a First/MostRecent join would change which tuples it keeps: such
      // a conjunct stays above every non-All join on its way to the root.
      for (int at = best; at > 0; at = nodes_[at].parent) {
        if (nodes_[at].kind != JoinKind::kAll) best = nodes_[at].parent;
      }
      nodes_[best].filters.push_back(std::shared_ptr<const Expr>(c->Clone()));
      placed_.push_back({best, std::move(fields)});
    }
    return Status::Ok();
  }

  // Select and GroupBy: the grouping, the aggregates and the plain columns.
  Status SplitSelect() {
    group_by_ = q_.group_by;
    for (const FieldRef& f : group_by_) RETURN_IF_ERROR(CheckBound(f));
    for (const SelectItem& s : q_.select) {
      if (s.aggregate == Aggregate::kNone || !s.field.var.empty()) {
        RETURN_IF_ERROR(CheckBound(s.field));
      }
      if (s.aggregate == Aggregate::kNone) {
        plain_.push_back(s.field);
      } else {
        aggregates_.push_back({s.aggregate, s.field, s.ColumnName()});
      }
    }
    aggregating_ = !aggregates_.empty() || !group_by_.empty();
    if (aggregating_) {
      for (const FieldRef& f : plain_) {
        if (std::find(group_by_.begin(), group_by_.end(), f) == group_by_.end()) {
          return InvalidArgument(
              fmt::format("line {}, column {}: '{}' is selected but neither grouped nor aggregated",
                          f.pos.line, f.pos.column, f.ToString()));
        }
      }
    }
    if (nested_ && !aggregates_.empty()) {
      return Unimplemented("a nested query with aggregates");
    }
    if (q_.select.empty()) return InvalidArgument("a query needs a Select clause");
    return Status::Ok();
  }

  // The fields the result is made of.
  void CollectOutputFields() {
    output_fields_ = group_by_;
    for (const auto& a : aggregates_) {
      if (!a.field.var.empty()) AddUnique(&output_fields_, a.field);
    }
    for (const auto& f : plain_) AddUnique(&output_fields_, f);
  }

  // The fields a node must hand to its ancestors: used above it in the tree.
  std::vector<FieldRef> NeededAbove(int node) const {
    std::vector<FieldRef> need;
    for (const FieldRef& f : output_fields_) {
      if (InSubtree(NodeOf(f), node)) AddUnique(&need, f);
    }
    for (const auto& [at, fields] : placed_) {
      if (at == node || InSubtree(at, node)) continue;  // evaluated at or below node
      for (const FieldRef& f : fields) {
        if (InSubtree(NodeOf(f), node)) AddUnique(&need, f);
      }
    }
    return need;
  }

  // Aggregation pushdown: the root's only child aggregates when it holds every output
  // field and the root adds nothing but the join.
  void ChooseAggregationPushdown() {
    if (nested_ || aggregates_.empty() || nodes_[0].children.size() != 1 ||
        !nodes_[0].filters.empty())
      return;
    const int c = nodes_[0].children[0];
    // Not into a nested query: its root packs its Select columns (PackNestedResult), not the
    // grouped partials the consumer would then unpack, and every group would count 0.
    bool ok = nodes_[c].kind == JoinKind::kAll && !nodes_[c].source->query;
    for (const FieldRef& f : output_fields_) ok = ok && InSubtree(NodeOf(f), c);
    if (ok) pushed_ = c;
  }

  // The nodes in the order their advice runs: children before parents.
  std::vector<int> ChildrenFirst() const {
    std::vector<int> order;
    std::vector<std::pair<int, bool>> stack = {{0, false}};
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        order.push_back(node);
        continue;
      }
      stack.push_back({node, true});
      for (auto it = nodes_[node].children.rbegin(); it != nodes_[node].children.rend(); ++it) {
        stack.push_back({*it, false});
      }
    }
    return order;
  }

  // The variable's own fields, gathered from everything that reads them.
  std::vector<FieldRef> OwnFields(const Node& nd) const {
    std::vector<FieldRef> own;
    for (const FieldRef& f : output_fields_) {
      if (f.var == nd.var) AddUnique(&own, f);
    }
    for (const auto& [at, fields] : placed_) {
      for (const FieldRef& f : fields) {
        if (f.var == nd.var) AddUnique(&own, f);
      }
    }
    return own;
  }

  // The node's advice: OBSERVE, UNPACK its children, FILTER, then PACK or EMIT.
  Status Advise(int node, CompiledQuery* out) {
    const Node& nd = nodes_[node];
    const std::vector<FieldRef> own = OwnFields(nd);
    if (nd.source->query) return AdviseNested(node, own, out);
    std::vector<Op> ops;
    Op observe;
    observe.kind = OpKind::kObserve;
    observe.var = nd.var;
    observe.fields = own;
    ops.push_back(std::move(observe));
    for (int c : nd.children) ops.push_back(Unpack(c));
    for (const auto& f : nd.filters) {
      Op filter;
      filter.kind = OpKind::kFilter;
      filter.predicate = f;
      ops.push_back(std::move(filter));
    }
    ops.push_back(node != 0 ? Pack(node) : nested_ ? PackNestedResult() : Emit());
    Advice advice;
    advice.var = nd.var;
    advice.tracepoints = nd.source->tracepoints;
    advice.ops = std::move(ops);
    out->advice.push_back(std::move(advice));
    return Status::Ok();
  }

  // A nested query: compiled on its own, it packs its columns as `var.column`; this node's
  // advice is that query's, so nothing more is emitted here.
  Status AdviseNested(int node, const std::vector<FieldRef>& own, CompiledQuery* out) {
    const Node& nd = nodes_[node];
    std::vector<FieldRef> columns;
    const NestedTarget target{nd.var, nd.kind, nd.n, &columns};
    RETURN_IF_ERROR(compiler_->CompileQuery(*nd.source->query, out, &target));
    nested_columns_[node] = columns;
    for (const FieldRef& f : own) {
      if (std::find(columns.begin(), columns.end(), f) == columns.end()) {
        return InvalidArgument(
            fmt::format("line {}, column {}: the query bound to '{}' has "
                        "no column '{}'",
                        f.pos.line, f.pos.column, nd.var, f.field));
      }
    }
    if (!nd.filters.empty() || !nd.children.empty()) {
      return Unimplemented(
          fmt::format("filters or joins on the nested query bound to '{}' itself", nd.var));
    }
    return Status::Ok();
  }

  // UNPACK of child c's bag: its tuples, or its partial aggregates when it was pushed down.
  Op Unpack(int c) const {
    Op unpack;
    unpack.kind = OpKind::kUnpack;
    unpack.bag = compiler_->BagOf(nodes_[c].var);
    auto nested = nested_columns_.find(c);
    unpack.fields = nested != nested_columns_.end() ? nested->second : NeededAbove(c);
    if (c == pushed_) {
      unpack.partial = true;
      unpack.fields = group_by_;
      unpack.group_by = group_by_;
      unpack.aggregates = aggregates_;
    }
    return unpack;
  }

  // The root of the top query: EMIT the result.
  Op Emit() const {
    Op last;
    last.kind = OpKind::kEmit;
    last.bag = compiler_->id();
    last.group_by = group_by_;
    last.aggregates = aggregates_;
    last.fields = aggregating_ ? std::vector<FieldRef>{} : plain_;
    last.partial = pushed_ >= 0;
    return last;
  }

  // The root of a nested query: PACK its selected columns for the query it is bound in.
  Op PackNestedResult() const {
    Op last;
    last.kind = OpKind::kPack;
    last.bag = compiler_->BagOf(nested_->var);
    last.pack = PackKindOf(nested_->kind);
    last.n = nested_->n;
    for (const SelectItem& s : q_.select) {
      last.fields.push_back(s.field);
      nested_->columns->push_back({nested_->var, s.ColumnName(), s.pos});
    }
    last.group_by = *nested_->columns;  // the names the tuples carry
    return last;
  }

  // Any other node: PACK what its ancestors need, or its partial aggregates.
  Op Pack(int node) const {
    const Node& nd = nodes_[node];
    Op last;
    last.kind = OpKind::kPack;
    last.bag = compiler_->BagOf(nd.var);
    last.pack = PackKindOf(nd.kind);
    last.n = nd.n;
    last.fields = NeededAbove(node);
    if (node == pushed_) {
      last.pack = PackKind::kAggregate;
      last.fields.clear();
      last.group_by = group_by_;
      last.aggregates = aggregates_;
    }
    return last;
  }

  // The top query's result columns: group_by, then aggregates, or the plain fields.
  void SetResults(CompiledQuery* out) const {
    out->group_by = group_by_;
    out->aggregates = aggregates_;
    out->fields = aggregating_ ? std::vector<FieldRef>{} : plain_;
    for (const auto& f : out->group_by) out->columns.push_back(f.ToString());
    for (const auto& a : out->aggregates) out->columns.push_back(a.name);
    for (const auto& f : out->fields) out->columns.push_back(f.ToString());
  }

  Compiler* compiler_;
  const Query& q_;
  const NestedTarget* nested_;  // null for the top query
  std::vector<Node> nodes_;
  std::map<std::string, int> index_;                           // variable -> node
  std::vector<std::pair<int, std::vector<FieldRef>>> placed_;  // a conjunct: node, fields used
  std::vector<FieldRef> group_by_;
  std::vector<AggregateSpec> aggregates_;
  std::vector<FieldRef> plain_;
  bool aggregating_ = false;
  std::vector<FieldRef> output_fields_;
  int pushed_ = -1;                                      // the node aggregating, if any
  std::map<int, std::vector<FieldRef>> nested_columns_;  // a nested query's packed columns
};

Status Compiler::CompileQuery(const Query& q, CompiledQuery* out, const NestedTarget* nested) {
  return QueryCompilation(this, q, nested).Run(out);
}

}  // namespace

Combiner CombinerOf(Aggregate a) {
  switch (a) {
    case Aggregate::kMin:
      return Combiner::kMin;
    case Aggregate::kMax:
      return Combiner::kMax;
    case Aggregate::kAverage:
      return Combiner::kSumAndCount;
    default:
      return Combiner::kSum;
  }
}

std::string AggregateSpec::ToString() const {
  if (aggregate == Aggregate::kCount) return "COUNT";
  return fmt::format("{}({})", AggregateName(aggregate), field.ToString());
}

namespace {
std::string List(const std::vector<FieldRef>& v) {
  std::string out;
  for (const auto& f : v) out += " " + f.ToString();
  return out;
}
std::string List(const std::vector<AggregateSpec>& v) {
  std::string out;
  for (const auto& a : v) out += " " + a.ToString();
  return out;
}
}  // namespace

std::string Op::ToString() const {
  switch (kind) {
    case OpKind::kObserve:
      return "OBSERVE " + var + List(fields);
    case OpKind::kUnpack:
      return "UNPACK " + bag +
             (partial ? " PARTIAL GROUPBY" + List(group_by) + " AGG" + List(aggregates)
                      : List(fields));
    case OpKind::kFilter:
      return "FILTER " + predicate->ToString();
    case OpKind::kPack: {
      static constexpr const char* kNames[] = {"ALL",    "FIRST",   "FIRSTN",
                                               "RECENT", "RECENTN", "AGGREGATE"};
      std::string out = "PACK " + bag + " " + kNames[static_cast<int>(pack)];
      if (pack == PackKind::kFirstN || pack == PackKind::kRecentN) out += fmt::format("({})", n);
      if (pack == PackKind::kAggregate)
        return out + " GROUPBY" + List(group_by) + " AGG" + List(aggregates);
      out += List(fields);
      if (!group_by.empty()) out += " AS" + List(group_by);
      return out;
    }
    case OpKind::kEmit: {
      std::string out = "EMIT " + bag;
      if (!group_by.empty()) out += " GROUPBY" + List(group_by);
      if (!aggregates.empty()) out += (partial ? " COMBINE" : " AGG") + List(aggregates);
      return out + List(fields);
    }
  }
  return "?";
}

std::string Advice::ToString() const {
  std::string out = "at";
  for (size_t i = 0; i < tracepoints.size(); ++i) out += (i ? ", " : " ") + tracepoints[i];
  out += ":\n";
  for (const Op& op : ops) out += "  " + op.ToString() + "\n";
  return out;
}

std::string CompiledQuery::ToString() const {
  std::string out;
  for (const Advice& a : advice) out += a.ToString();
  return out;
}

StatusOr<CompiledQuery> Compile(const Query& query, std::string_view id) {
  if (id.empty()) return InvalidArgument("a query id is needed");
  CompiledQuery out;
  out.id = std::string(id);
  Compiler c(out.id);
  Status s = c.CompileQuery(query, &out, nullptr);
  if (!s.ok()) return std::move(s).WithContext("Cannot compile query");
  return out;
}

}  // namespace causeway::pivot
