// The Pivot Tracing query language (Mace, Roelke, Fonseca), as an abstract syntax tree.
//
//   From x In TP1, TP2                                   tuples of one or more tracepoints
//   Join y In MostRecentN(3)(TP or (query)) On y -> x    happened-before join (nested)
//   Where x.bytes * 2 > 100 and not (y.name == "bob")    typed filter
//   GroupBy y.name                                       groups
//   Select y.name, SUM(x.bytes), COUNT                   projection and aggregation
//
// Parse() (parser.h) builds a Query; the compiler (compiler.h) turns it into advice.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace causeway::pivot {

// A position in the query text, 1-based.
struct SourcePos {
  int line = 1;
  int column = 1;
};

// `var.field`: a field exported by the tracepoint (or nested query) bound to `var`.
struct FieldRef {
  std::string var;
  std::string field;
  SourcePos pos;
  std::string ToString() const { return var + "." + field; }
  bool operator==(const FieldRef& o) const { return var == o.var && field == o.field; }
};

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};
enum class UnaryOp : uint8_t { kNeg, kNot };

struct Expr {
  enum class Kind : uint8_t { kInt, kDouble, kString, kBool, kField, kUnary, kBinary };
  Kind kind = Kind::kInt;
  SourcePos pos;
  int64_t i = 0;   // kInt, kBool (0/1)
  double d = 0;    // kDouble
  std::string s;   // kString
  FieldRef field;  // kField
  UnaryOp unary_op = UnaryOp::kNeg;
  BinaryOp binary_op = BinaryOp::kAdd;
  std::unique_ptr<Expr> lhs;  // kUnary (operand), kBinary
  std::unique_ptr<Expr> rhs;  // kBinary

  std::string ToString() const;  // fully parenthesized
  std::unique_ptr<Expr> Clone() const;
};

enum class Aggregate : uint8_t { kNone, kCount, kSum, kMin, kMax, kAverage };
const char* AggregateName(Aggregate a);

// One output column: a field, or an aggregate of a field (COUNT takes none).
struct SelectItem {
  Aggregate aggregate = Aggregate::kNone;
  FieldRef field;  // empty var for COUNT
  SourcePos pos;
  std::string ToString() const;
  // The column's name as seen by an enclosing query: "host", "sum_delta", "count".
  std::string ColumnName() const;
};

// Which of the joined tuples a happened-before join keeps.
enum class JoinKind : uint8_t { kAll, kFirst, kFirstN, kMostRecent, kMostRecentN };

struct Query;

// The tuples a From or Join draws from: tracepoints (a union) or a nested query.
struct Source {
  std::vector<std::string> tracepoints;  // "Provider.name" as written
  std::unique_ptr<Query> query;          // set for `(From ...)`
  SourcePos pos;
};

struct Join {
  std::string var;
  JoinKind kind = JoinKind::kAll;
  uint32_t n = 0;  // kFirstN, kMostRecentN
  Source source;
  std::string before;  // On before -> after
  std::string after;
  SourcePos pos;
};

struct Query {
  std::string var;
  Source from;
  std::vector<Join> joins;
  std::unique_ptr<Expr> where;  // may be null
  std::vector<FieldRef> group_by;
  std::vector<SelectItem> select;  // empty: every field of the From variable
  SourcePos pos;

  // Canonical text (one line, clauses in order); Parse(ToString()) gives an equal query.
  std::string ToString() const;
};

}  // namespace causeway::pivot
