#include "pivot/query.h"

#include <cctype>

#include <fmt/format.h>

namespace causeway::pivot {
namespace {

const char* BinaryName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kEq:
      return "==";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
  }
  return "?";
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string SourceToString(const Source& s) {
  if (s.query) return "(" + s.query->ToString() + ")";
  std::string out;
  for (size_t i = 0; i < s.tracepoints.size(); ++i) {
    if (i) out += ", ";
    out += s.tracepoints[i];
  }
  return out;
}

}  // namespace

const char* AggregateName(Aggregate a) {
  switch (a) {
    case Aggregate::kNone:
      return "";
    case Aggregate::kCount:
      return "COUNT";
    case Aggregate::kSum:
      return "SUM";
    case Aggregate::kMin:
      return "MIN";
    case Aggregate::kMax:
      return "MAX";
    case Aggregate::kAverage:
      return "AVERAGE";
  }
  return "?";
}

std::string Expr::ToString() const {
  switch (kind) {
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kDouble: {
      std::string text = fmt::format("{}", d);
      if (text.find_first_of(".eE") == std::string::npos) text += ".0";
      return text;
    }
    case Kind::kString:
      return Quote(s);
    case Kind::kBool:
      return i ? "true" : "false";
    case Kind::kField:
      return field.ToString();
    case Kind::kUnary:
      return unary_op == UnaryOp::kNeg ? "(-" + lhs->ToString() + ")"
                                       : "(not " + lhs->ToString() + ")";
    case Kind::kBinary:
      return "(" + lhs->ToString() + " " + BinaryName(binary_op) + " " + rhs->ToString() + ")";
  }
  return "?";
}

std::unique_ptr<Expr> Expr::Clone() const {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->i = i;
  e->d = d;
  e->s = s;
  e->field = field;
  e->unary_op = unary_op;
  e->binary_op = binary_op;
  if (lhs) e->lhs = lhs->Clone();
  if (rhs) e->rhs = rhs->Clone();
  return e;
}

std::string SelectItem::ToString() const {
  if (aggregate == Aggregate::kNone) return field.ToString();
  if (aggregate == Aggregate::kCount) return "COUNT";
  return fmt::format("{}({})", AggregateName(aggregate), field.ToString());
}

std::string SelectItem::ColumnName() const {
  if (aggregate == Aggregate::kNone) return field.field;
  std::string name = AggregateName(aggregate);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (aggregate == Aggregate::kCount) return name;
  return name + "_" + field.field;
}

std::string Query::ToString() const {
  std::string out = "From " + var + " In " + SourceToString(from);
  for (const Join& j : joins) {
    out += " Join " + j.var + " In ";
    switch (j.kind) {
      case JoinKind::kAll:
        out += SourceToString(j.source);
        break;
      case JoinKind::kFirst:
        out += "First(" + SourceToString(j.source) + ")";
        break;
      case JoinKind::kMostRecent:
        out += "MostRecent(" + SourceToString(j.source) + ")";
        break;
      case JoinKind::kFirstN:
        out += fmt::format("FirstN({})({})", j.n, SourceToString(j.source));
        break;
      case JoinKind::kMostRecentN:
        out += fmt::format("MostRecentN({})({})", j.n, SourceToString(j.source));
        break;
    }
    out += " On " + j.before + " -> " + j.after;
  }
  if (where) out += " Where " + where->ToString();
  for (size_t i = 0; i < group_by.size(); ++i) {
    out += (i ? ", " : " GroupBy ") + group_by[i].ToString();
  }
  for (size_t i = 0; i < select.size(); ++i) {
    out += (i ? ", " : " Select ") + select[i].ToString();
  }
  return out;
}

}  // namespace causeway::pivot
