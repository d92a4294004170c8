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

class Compiler {
 public:
  explicit Compiler(std::string id) : id_(std::move(id)) {}

  // Compiles `q`; its root ends in EMIT, or, for a nested query bound to `pack_var`, in a
  // PACK of its selected columns renamed to `pack_var.column`.
  Status CompileQuery(const Query& q, CompiledQuery* out, const std::string* pack_var,
                      JoinKind pack_kind, uint32_t pack_n, std::vector<FieldRef>* packed_columns) {
    std::vector<Node> nodes;
    std::map<std::string, int> index;
    nodes.push_back({q.var, -1, JoinKind::kAll, 0, &q.from, {}, {}});
    index[q.var] = 0;
    for (const Join& j : q.joins) {
      if (nodes.size() >= kMaxVariables) return InvalidArgument("too many joins");
      index[j.var] = static_cast<int>(nodes.size());
      nodes.push_back({j.var, -1, j.kind, j.n, &j.source, {}, {}});
    }
    for (const Join& j : q.joins) {
      auto it = index.find(j.after);
      if (it == index.end()) {
        return InvalidArgument(fmt::format("line {}, column {}: 'On {} -> {}': '{}' is not bound",
                                           j.pos.line, j.pos.column, j.before, j.after, j.after));
      }
      nodes[index[j.var]].parent = it->second;
    }
    // Every join must lead to the From variable (no cycles).
    for (size_t i = 1; i < nodes.size(); ++i) {
      int at = static_cast<int>(i);
      size_t steps = 0;
      while (at > 0 && steps++ <= nodes.size()) at = nodes[at].parent;
      if (at != 0) {
        return InvalidArgument(
            fmt::format("join of '{}' does not lead to '{}' (cycle)", nodes[i].var, q.var));
      }
      nodes[nodes[i].parent].children.push_back(static_cast<int>(i));
    }
    auto in_subtree = [&](int node, int root) {
      for (size_t steps = 0; node >= 0 && steps <= nodes.size(); ++steps) {
        if (node == root) return true;
        node = nodes[node].parent;
      }
      return false;
    };
    auto check_bound = [&](const FieldRef& f) -> Status {
      if (!index.count(f.var)) {
        return InvalidArgument(fmt::format("line {}, column {}: unknown variable '{}'", f.pos.line,
                                           f.pos.column, f.var));
      }
      return Status::Ok();
    };

    // Where: each conjunct at the deepest node whose subtree holds all its variables.
    std::vector<std::pair<int, std::vector<FieldRef>>> placed;  // node, fields used
    if (q.where) {
      std::vector<const Expr*> conjuncts;
      SplitConjuncts(*q.where, &conjuncts);
      for (const Expr* c : conjuncts) {
        std::vector<FieldRef> fields;
        FieldsOf(*c, &fields);
        for (const FieldRef& f : fields) RETURN_IF_ERROR(check_bound(f));
        int best = 0;
        for (int cand = static_cast<int>(nodes.size()) - 1; cand >= 0; --cand) {
          bool all = std::all_of(fields.begin(), fields.end(),
                                 [&](const FieldRef& f) { return in_subtree(index[f.var], cand); });
          if (all && (best == 0 || in_subtree(cand, best))) best = cand;
        }
        // Filtering below a First/MostRecent join would change which tuples it keeps: such
        // a conjunct stays above every non-All join on its way to the root.
        for (int at = best; at > 0; at = nodes[at].parent) {
          if (nodes[at].kind != JoinKind::kAll) best = nodes[at].parent;
        }
        nodes[best].filters.push_back(std::shared_ptr<const Expr>(c->Clone()));
        placed.push_back({best, std::move(fields)});
      }
    }

    // Select and GroupBy.
    std::vector<FieldRef> group_by = q.group_by;
    std::vector<AggregateSpec> aggregates;
    std::vector<FieldRef> plain;
    for (const FieldRef& f : group_by) RETURN_IF_ERROR(check_bound(f));
    for (const SelectItem& s : q.select) {
      if (s.aggregate == Aggregate::kNone || !s.field.var.empty()) {
        RETURN_IF_ERROR(check_bound(s.field));
      }
      if (s.aggregate == Aggregate::kNone) {
        plain.push_back(s.field);
      } else {
        aggregates.push_back({s.aggregate, s.field, s.ColumnName()});
      }
    }
    const bool aggregating = !aggregates.empty() || !group_by.empty();
    if (aggregating) {
      for (const FieldRef& f : plain) {
        if (std::find(group_by.begin(), group_by.end(), f) == group_by.end()) {
          return InvalidArgument(
              fmt::format("line {}, column {}: '{}' is selected but neither grouped nor aggregated",
                          f.pos.line, f.pos.column, f.ToString()));
        }
      }
    }
    if (pack_var && !aggregates.empty()) {
      return Unimplemented("a nested query with aggregates");
    }
    if (q.select.empty()) return InvalidArgument("a query needs a Select clause");

    // Fields each node must hand to its ancestors: used above it in the tree.
    std::vector<FieldRef> output_fields = group_by;
    for (const auto& a : aggregates) {
      if (!a.field.var.empty()) AddUnique(&output_fields, a.field);
    }
    for (const auto& f : plain) AddUnique(&output_fields, f);
    auto needed_above = [&](int node) {
      std::vector<FieldRef> need;
      for (const FieldRef& f : output_fields) {
        if (in_subtree(index[f.var], node)) AddUnique(&need, f);
      }
      for (const auto& [at, fields] : placed) {
        if (at == node || in_subtree(at, node)) continue;  // evaluated at or below node
        for (const FieldRef& f : fields) {
          if (in_subtree(index[f.var], node)) AddUnique(&need, f);
        }
      }
      return need;
    };

    // Aggregation pushdown.
    int pushed = -1;
    if (!pack_var && !aggregates.empty() && nodes[0].children.size() == 1 &&
        nodes[0].filters.empty()) {
      const int c = nodes[0].children[0];
      bool ok = nodes[c].kind == JoinKind::kAll;
      for (const FieldRef& f : output_fields) ok = ok && in_subtree(index[f.var], c);
      if (ok) pushed = c;
    }

    // Advice, children before parents.
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
      for (auto it = nodes[node].children.rbegin(); it != nodes[node].children.rend(); ++it) {
        stack.push_back({*it, false});
      }
    }
    std::map<int, std::vector<FieldRef>> nested_columns;  // a nested query's packed columns
    for (int node : order) {
      const Node& nd = nodes[node];
      // The variable's own fields, gathered from everything that reads them.
      std::vector<FieldRef> own;
      for (const FieldRef& f : output_fields) {
        if (f.var == nd.var) AddUnique(&own, f);
      }
      for (const auto& [at, fields] : placed) {
        for (const FieldRef& f : fields) {
          if (f.var == nd.var) AddUnique(&own, f);
        }
      }
      std::vector<Op> ops;
      if (nd.source->query) {
        // A nested query: compiled on its own, it packs its columns as `var.column`; this
        // node's advice is that query's, so emit nothing more here.
        std::vector<FieldRef> columns;
        RETURN_IF_ERROR(CompileQuery(*nd.source->query, out, &nd.var, nd.kind, nd.n, &columns));
        nested_columns[node] = columns;
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
        continue;
      }
      Op observe;
      observe.kind = OpKind::kObserve;
      observe.var = nd.var;
      observe.fields = own;
      ops.push_back(std::move(observe));
      for (int c : nd.children) {
        Op unpack;
        unpack.kind = OpKind::kUnpack;
        unpack.bag = BagOf(nodes[c].var);
        unpack.fields = nested_columns.count(c) ? nested_columns[c] : needed_above(c);
        if (c == pushed) {
          unpack.partial = true;
          unpack.fields = group_by;
          unpack.group_by = group_by;
          unpack.aggregates = aggregates;
        }
        ops.push_back(std::move(unpack));
      }
      for (const auto& f : nd.filters) {
        Op filter;
        filter.kind = OpKind::kFilter;
        filter.predicate = f;
        ops.push_back(std::move(filter));
      }
      Op last;
      if (node == 0 && !pack_var) {
        last.kind = OpKind::kEmit;
        last.bag = id_;
        last.group_by = group_by;
        last.aggregates = aggregates;
        last.fields = aggregating ? std::vector<FieldRef>{} : plain;
        last.partial = pushed >= 0;
      } else if (node == 0) {
        last.kind = OpKind::kPack;
        last.bag = BagOf(*pack_var);
        last.pack = PackKindOf(pack_kind);
        last.n = pack_n;
        for (const SelectItem& s : q.select) {
          last.fields.push_back(s.field);
          packed_columns->push_back({*pack_var, s.ColumnName(), s.pos});
        }
        last.group_by = *packed_columns;  // the names the tuples carry
      } else {
        last.kind = OpKind::kPack;
        last.bag = BagOf(nd.var);
        last.pack = PackKindOf(nd.kind);
        last.n = nd.n;
        last.fields = needed_above(node);
        if (node == pushed) {
          last.pack = PackKind::kAggregate;
          last.fields.clear();
          last.group_by = group_by;
          last.aggregates = aggregates;
        }
      }
      ops.push_back(std::move(last));
      Advice advice;
      advice.var = nd.var;
      advice.tracepoints = nd.source->tracepoints;
      advice.ops = std::move(ops);
      out->advice.push_back(std::move(advice));
    }
    if (!pack_var) {
      out->group_by = group_by;
      out->aggregates = aggregates;
      out->fields = aggregating ? std::vector<FieldRef>{} : plain;
      for (const auto& f : out->group_by) out->columns.push_back(f.ToString());
      for (const auto& a : out->aggregates) out->columns.push_back(a.name);
      for (const auto& f : out->fields) out->columns.push_back(f.ToString());
    }
    return Status::Ok();
  }

 private:
  std::string BagOf(const std::string& var) const { return id_ + "." + var; }
  std::string id_;
};

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
  Status s = c.CompileQuery(query, &out, nullptr, JoinKind::kAll, 0, nullptr);
  if (!s.ok()) return std::move(s).WithContext("Cannot compile query");
  return out;
}

}  // namespace causeway::pivot
