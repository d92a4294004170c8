#include "pivot/parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace causeway::pivot {
namespace {

enum class Tok : uint8_t { kIdent, kInt, kDouble, kString, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, punctuation, unescaped string, number digits
  SourcePos pos;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kIdent:
      return fmt::format("identifier '{}'", t.text);
    case Tok::kInt:
    case Tok::kDouble:
      return fmt::format("number {}", t.text);
    case Tok::kString:
      return fmt::format("string \"{}\"", t.text);
    case Tok::kPunct:
      return fmt::format("'{}'", t.text);
    case Tok::kEnd:
      return "end of query";
  }
  return "?";
}

Status ErrorAt(SourcePos p, std::string_view what) {
  return InvalidArgument(fmt::format("line {}, column {}: {}", p.line, p.column, what));
}

// Splits the text into tokens; the whole query is small (kMaxQueryBytes).
StatusOr<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  SourcePos pos;
  size_t i = 0;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < s.size(); ++k, ++i) {
      if (s[i] == '\n') {
        ++pos.line;
        pos.column = 1;
      } else {
        ++pos.column;
      }
    }
  };
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    if (c == '#') {  // comment to the end of the line
      while (i < s.size() && s[i] != '\n') advance(1);
      continue;
    }
    Token t;
    t.pos = pos;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, j - i));
      advance(j - i);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      bool dot = false;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) ||
                              (!dot && s[j] == '.' && j + 1 < s.size() &&
                               std::isdigit(static_cast<unsigned char>(s[j + 1]))))) {
        if (s[j] == '.') dot = true;
        ++j;
      }
      // An exponent (1e-05, 2.5E3): what the canonical printer writes for small and large
      // doubles, so a printed query parses back to itself.
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
          while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
          j = k;
          dot = true;
        }
      }
      t.kind = dot ? Tok::kDouble : Tok::kInt;
      t.text = std::string(s.substr(i, j - i));
      advance(j - i);
    } else if (c == '"' || c == '\'') {
      const char quote = c;
      advance(1);
      t.kind = Tok::kString;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == quote) {
          closed = true;
          advance(1);
          break;
        }
        if (s[i] == '\\' && i + 1 < s.size()) {
          const char e = s[i + 1];
          t.text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          advance(2);
          continue;
        }
        if (s[i] == '\n') break;
        t.text += s[i];
        advance(1);
      }
      if (!closed) return ErrorAt(t.pos, "unterminated string");
    } else {
      static constexpr std::string_view kTwo[] = {"->", "==", "!=", "<=", ">=", "&&", "||"};
      t.kind = Tok::kPunct;
      for (std::string_view two : kTwo) {
        if (s.substr(i, 2) == two) t.text = std::string(two);
      }
      if (t.text.empty()) {
        if (std::string_view(",.:()+-*/%<>=!").find(c) == std::string_view::npos) {
          return ErrorAt(pos, fmt::format("unexpected character '{}'",
                                          std::isprint(static_cast<unsigned char>(c))
                                              ? std::string(1, c)
                                              : fmt::format("\\x{:02x}", static_cast<uint8_t>(c))));
        }
        t.text = std::string(1, c);
      }
      advance(t.text.size());
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = pos;
  out.push_back(end);
  return out;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

constexpr std::string_view kReserved[] = {"from",   "in",  "join", "on",  "where", "groupby",
                                          "select", "and", "or",   "not", "true",  "false"};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  StatusOr<Query> ParseAll() {
    ASSIGN_OR_RETURN(Query q, ParseQuery());
    if (Peek().kind != Tok::kEnd) return Expected("'Join', 'Where', 'GroupBy', 'Select' or end");
    return q;
  }

 private:
  const Token& Peek(size_t k = 0) const {
    return t_[pos_ + k < t_.size() ? pos_ + k : t_.size() - 1];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < t_.size() - 1) ++pos_;
    return t;
  }
  bool IsKeyword(std::string_view kw, size_t k = 0) const {
    return Peek(k).kind == Tok::kIdent && IEquals(Peek(k).text, kw);
  }
  bool IsPunct(std::string_view p, size_t k = 0) const {
    return Peek(k).kind == Tok::kPunct && Peek(k).text == p;
  }
  Status Expected(std::string_view what) const {
    return ErrorAt(Peek().pos, fmt::format("expected {}, found {}", what, Describe(Peek())));
  }
  Status ExpectKeyword(std::string_view kw) {
    if (!IsKeyword(kw)) return Expected(fmt::format("'{}'", kw));
    Next();
    return Status::Ok();
  }
  Status ExpectPunct(std::string_view p) {
    if (!IsPunct(p)) return Expected(fmt::format("'{}'", p));
    Next();
    return Status::Ok();
  }
  Status Enter() {
    if (++depth_ > kMaxNestingDepth) {
      return ErrorAt(Peek().pos, fmt::format("nesting deeper than {}", kMaxNestingDepth));
    }
    return Status::Ok();
  }
  struct Leave {
    int* depth;
    ~Leave() { --*depth; }
  };

  StatusOr<std::string> Variable() {
    if (Peek().kind != Tok::kIdent) return Expected("a variable name");
    for (std::string_view r : kReserved) {
      if (IEquals(Peek().text, r)) return Expected("a variable name (not a keyword)");
    }
    return Next().text;
  }

  // Provider.name or provider:name, any number of parts.
  StatusOr<std::string> TracepointName() {
    if (Peek().kind != Tok::kIdent) return Expected("a tracepoint name");
    std::string name = Next().text;
    while ((IsPunct(".") || IsPunct(":")) && Peek(1).kind == Tok::kIdent) {
      name += Next().text;
      name += Next().text;
    }
    return name;
  }

  // Tracepoints separated by commas, or a parenthesized query.
  Status ParseSource(Source* src) {
    src->pos = Peek().pos;
    if (IsPunct("(")) {
      Next();
      RETURN_IF_ERROR(Enter());
      Leave leave{&depth_};
      if (IsKeyword("from")) {
        ASSIGN_OR_RETURN(Query q, ParseQuery());
        src->query = std::make_unique<Query>(std::move(q));
      } else if (IsPunct("(")) {  // MostRecent((From ...))
        RETURN_IF_ERROR(ParseSource(src));
      } else {
        RETURN_IF_ERROR(ParseTracepointList(src));
      }
      return ExpectPunct(")");
    }
    return ParseTracepointList(src);
  }
  Status ParseTracepointList(Source* src) {
    while (true) {
      ASSIGN_OR_RETURN(std::string tp, TracepointName());
      src->tracepoints.push_back(std::move(tp));
      if (!IsPunct(",")) return Status::Ok();
      Next();
    }
  }

  StatusOr<Query> ParseQuery() {
    RETURN_IF_ERROR(Enter());
    Leave leave{&depth_};
    Query q;
    q.pos = Peek().pos;
    RETURN_IF_ERROR(ExpectKeyword("From"));
    ASSIGN_OR_RETURN(q.var, Variable());
    RETURN_IF_ERROR(ExpectKeyword("In"));
    RETURN_IF_ERROR(ParseSource(&q.from));
    while (IsKeyword("join")) {
      Join j;
      j.pos = Next().pos;
      ASSIGN_OR_RETURN(j.var, Variable());
      if (j.var == q.var) return ErrorAt(j.pos, fmt::format("variable '{}' bound twice", j.var));
      for (const Join& other : q.joins) {
        if (other.var == j.var)
          return ErrorAt(j.pos, fmt::format("variable '{}' bound twice", j.var));
      }
      RETURN_IF_ERROR(ExpectKeyword("In"));
      RETURN_IF_ERROR(ParseJoinSource(&j));
      RETURN_IF_ERROR(ExpectKeyword("On"));
      ASSIGN_OR_RETURN(j.before, Variable());
      RETURN_IF_ERROR(ExpectPunct("->"));
      ASSIGN_OR_RETURN(j.after, Variable());
      if (j.before != j.var) {
        return ErrorAt(j.pos, fmt::format("the join reads 'On {} -> {}': its left side must be "
                                          "the joined variable '{}'",
                                          j.before, j.after, j.var));
      }
      q.joins.push_back(std::move(j));
    }
    if (IsKeyword("where")) {
      Next();
      ASSIGN_OR_RETURN(q.where, ParseOr());
    }
    if (IsKeyword("groupby")) {
      Next();
      while (true) {
        ASSIGN_OR_RETURN(FieldRef f, ParseField());
        q.group_by.push_back(std::move(f));
        if (!IsPunct(",")) break;
        Next();
      }
    }
    if (IsKeyword("select")) {
      Next();
      while (true) {
        ASSIGN_OR_RETURN(SelectItem item, ParseSelectItem());
        q.select.push_back(std::move(item));
        if (!IsPunct(",")) break;
        Next();
      }
    }
    return q;
  }

  Status ParseJoinSource(Join* j) {
    struct KindName {
      std::string_view name;
      JoinKind kind;
    };
    static constexpr KindName kKinds[] = {{"first", JoinKind::kFirst},
                                          {"firstn", JoinKind::kFirstN},
                                          {"mostrecent", JoinKind::kMostRecent},
                                          {"mostrecentn", JoinKind::kMostRecentN}};
    if (Peek().kind == Tok::kIdent && IsPunct("(", 1)) {
      bool found = false;
      for (const KindName& k : kKinds) {
        if (IEquals(Peek().text, k.name)) {
          j->kind = k.kind;
          found = true;
        }
      }
      if (!found) return Expected("'First', 'FirstN', 'MostRecent', 'MostRecentN' or a tracepoint");
      Next();
      if (j->kind == JoinKind::kFirstN || j->kind == JoinKind::kMostRecentN) {
        Next();  // (
        if (Peek().kind != Tok::kInt) return Expected("a count");
        const Token& n = Next();
        uint32_t v = 0;
        auto [p, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
        if (ec != std::errc() || v == 0 || v > 1024) {
          return ErrorAt(n.pos, "the count must be between 1 and 1024");
        }
        j->n = v;
        RETURN_IF_ERROR(ExpectPunct(")"));
        if (!IsPunct("(")) return Expected("'('");
      }
      return ParseSource(&j->source);  // parenthesized
    }
    return ParseSource(&j->source);
  }

  StatusOr<FieldRef> ParseField() {
    FieldRef f;
    f.pos = Peek().pos;
    ASSIGN_OR_RETURN(f.var, Variable());
    RETURN_IF_ERROR(ExpectPunct("."));
    if (Peek().kind != Tok::kIdent) return Expected("a field name");
    f.field = Next().text;
    return f;
  }

  StatusOr<SelectItem> ParseSelectItem() {
    struct AggName {
      std::string_view name;
      Aggregate agg;
    };
    static constexpr AggName kAggs[] = {
        {"count", Aggregate::kCount},     {"sum", Aggregate::kSum},
        {"min", Aggregate::kMin},         {"max", Aggregate::kMax},
        {"average", Aggregate::kAverage}, {"avg", Aggregate::kAverage}};
    SelectItem item;
    item.pos = Peek().pos;
    if (Peek().kind == Tok::kIdent) {
      for (const AggName& a : kAggs) {
        if (!IEquals(Peek().text, a.name)) continue;
        if (a.agg == Aggregate::kCount && !IsPunct(".", 1)) {
          Next();
          item.aggregate = Aggregate::kCount;
          if (IsPunct("(")) {  // COUNT() or COUNT(x.f): both count tuples
            Next();
            if (!IsPunct(")")) {
              ASSIGN_OR_RETURN(item.field, ParseField());
            }
            RETURN_IF_ERROR(ExpectPunct(")"));
          }
          return item;
        }
        if (IsPunct("(", 1)) {
          Next();
          Next();
          item.aggregate = a.agg;
          ASSIGN_OR_RETURN(item.field, ParseField());
          RETURN_IF_ERROR(ExpectPunct(")"));
          return item;
        }
      }
    }
    if (Peek().kind != Tok::kIdent) return Expected("a field or an aggregate");
    ASSIGN_OR_RETURN(item.field, ParseField());
    return item;
  }

  // Precedence, loosest first: or, and, not, comparison, + -, * / %, unary minus.
  StatusOr<std::unique_ptr<Expr>> ParseOr() {
    ASSIGN_OR_RETURN(auto lhs, ParseAnd());
    while (IsKeyword("or") || IsPunct("||")) {
      const SourcePos p = Next().pos;
      ASSIGN_OR_RETURN(auto rhs, ParseAnd());
      ASSIGN_OR_RETURN(lhs, Binary(BinaryOp::kOr, p, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }
  StatusOr<std::unique_ptr<Expr>> ParseAnd() {
    ASSIGN_OR_RETURN(auto lhs, ParseNot());
    while (IsKeyword("and") || IsPunct("&&")) {
      const SourcePos p = Next().pos;
      ASSIGN_OR_RETURN(auto rhs, ParseNot());
      ASSIGN_OR_RETURN(lhs, Binary(BinaryOp::kAnd, p, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }
  StatusOr<std::unique_ptr<Expr>> ParseNot() {
    if (IsKeyword("not") || IsPunct("!")) {
      const SourcePos p = Next().pos;
      RETURN_IF_ERROR(Enter());
      Leave leave{&depth_};
      ASSIGN_OR_RETURN(auto operand, ParseNot());
      return Unary(UnaryOp::kNot, p, std::move(operand));
    }
    return ParseComparison();
  }
  StatusOr<std::unique_ptr<Expr>> ParseComparison() {
    ASSIGN_OR_RETURN(auto lhs, ParseAdditive());
    struct OpName {
      std::string_view text;
      BinaryOp op;
    };
    static constexpr OpName kOps[] = {
        {"==", BinaryOp::kEq}, {"=", BinaryOp::kEq}, {"!=", BinaryOp::kNe}, {"<", BinaryOp::kLt},
        {"<=", BinaryOp::kLe}, {">", BinaryOp::kGt}, {">=", BinaryOp::kGe}};
    for (const OpName& o : kOps) {
      if (!IsPunct(o.text)) continue;
      const SourcePos p = Next().pos;
      ASSIGN_OR_RETURN(auto rhs, ParseAdditive());
      return Binary(o.op, p, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }
  StatusOr<std::unique_ptr<Expr>> ParseAdditive() {
    ASSIGN_OR_RETURN(auto lhs, ParseMultiplicative());
    while (IsPunct("+") || IsPunct("-")) {
      const BinaryOp op = Peek().text == "+" ? BinaryOp::kAdd : BinaryOp::kSub;
      const SourcePos p = Next().pos;
      ASSIGN_OR_RETURN(auto rhs, ParseMultiplicative());
      ASSIGN_OR_RETURN(lhs, Binary(op, p, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }
  StatusOr<std::unique_ptr<Expr>> ParseMultiplicative() {
    ASSIGN_OR_RETURN(auto lhs, ParseUnary());
    while (IsPunct("*") || IsPunct("/") || IsPunct("%")) {
      const BinaryOp op = Peek().text == "*"   ? BinaryOp::kMul
                          : Peek().text == "/" ? BinaryOp::kDiv
                                               : BinaryOp::kMod;
      const SourcePos p = Next().pos;
      ASSIGN_OR_RETURN(auto rhs, ParseUnary());
      ASSIGN_OR_RETURN(lhs, Binary(op, p, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }
  StatusOr<std::unique_ptr<Expr>> ParseUnary() {
    if (IsPunct("-")) {
      const SourcePos p = Next().pos;
      RETURN_IF_ERROR(Enter());
      Leave leave{&depth_};
      ASSIGN_OR_RETURN(auto operand, ParseUnary());
      return Unary(UnaryOp::kNeg, p, std::move(operand));
    }
    return ParsePrimary();
  }
  StatusOr<std::unique_ptr<Expr>> ParsePrimary() {
    auto e = std::make_unique<Expr>();
    e->pos = Peek().pos;
    const Token& t = Peek();
    if (t.kind == Tok::kInt) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec != std::errc()) return ErrorAt(t.pos, "integer out of range");
      e->kind = Expr::Kind::kInt;
      e->i = v;
      Next();
      return e;
    }
    if (t.kind == Tok::kDouble) {
      e->kind = Expr::Kind::kDouble;
      errno = 0;
      e->d = std::strtod(t.text.c_str(), nullptr);
      if (errno == ERANGE || !std::isfinite(e->d)) return ErrorAt(t.pos, "number out of range");
      Next();
      return e;
    }
    if (t.kind == Tok::kString) {
      e->kind = Expr::Kind::kString;
      e->s = t.text;
      Next();
      return e;
    }
    if (IsKeyword("true") || IsKeyword("false")) {
      e->kind = Expr::Kind::kBool;
      e->i = IsKeyword("true") ? 1 : 0;
      Next();
      return e;
    }
    if (IsPunct("(")) {
      Next();
      RETURN_IF_ERROR(Enter());
      Leave leave{&depth_};
      ASSIGN_OR_RETURN(auto inner, ParseOr());
      RETURN_IF_ERROR(ExpectPunct(")"));
      return inner;
    }
    if (t.kind == Tok::kIdent) {
      e->kind = Expr::Kind::kField;
      ASSIGN_OR_RETURN(e->field, ParseField());
      return e;
    }
    return Expected("a value, a field or '('");
  }

  // Bounds the tree (left-deep chains such as a+a+a+... do not go through Enter()).
  StatusOr<std::unique_ptr<Expr>> Binary(BinaryOp op, SourcePos p, std::unique_ptr<Expr> l,
                                         std::unique_ptr<Expr> r) {
    if (++operators_ > kMaxOperators) {
      return ErrorAt(p, fmt::format("more than {} operators", kMaxOperators));
    }
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kBinary;
    e->binary_op = op;
    e->pos = p;
    e->lhs = std::move(l);
    e->rhs = std::move(r);
    return e;
  }
  static std::unique_ptr<Expr> Unary(UnaryOp op, SourcePos p, std::unique_ptr<Expr> operand) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kUnary;
    e->unary_op = op;
    e->pos = p;
    e->lhs = std::move(operand);
    return e;
  }

  std::vector<Token> t_;
  size_t pos_ = 0;
  int depth_ = 0;
  int operators_ = 0;
  static constexpr int kMaxOperators = 512;
};

}  // namespace

namespace {

// How deep the canonical text of an expression nests: every operator is printed inside
// parentheses, and a unary one adds its own level on top ("(-x)").
int PrintedDepth(const Expr* e) {
  if (!e) return 0;
  if (e->kind == Expr::Kind::kUnary) return 2 + PrintedDepth(e->lhs.get());
  if (e->kind == Expr::Kind::kBinary)
    return 1 + std::max(PrintedDepth(e->lhs.get()), PrintedDepth(e->rhs.get()));
  return 0;
}

// The query itself counts one level; a nested query up to three (its parentheses, those of
// a MostRecent((…)) form, and the query).
int PrintedDepth(const Query& q) {
  int d = PrintedDepth(q.where.get());
  if (q.from.query) d = std::max(d, 2 + PrintedDepth(*q.from.query));
  for (const Join& j : q.joins)
    if (j.source.query) d = std::max(d, 2 + PrintedDepth(*j.source.query));
  return 1 + d;
}

}  // namespace

StatusOr<Query> Parse(std::string_view text) {
  if (text.size() > kMaxQueryBytes) {
    return InvalidArgument(fmt::format("query longer than {} bytes", kMaxQueryBytes));
  }
  auto tokens = Lex(text);
  if (!tokens.ok()) return tokens.status().WithContext("Cannot parse query");
  Parser parser(std::move(tokens).value());
  auto q = parser.ParseAll();
  if (!q.ok()) return q.status().WithContext("Cannot parse query");
  // A chain such as a && b && c && … nests only in its canonical form, ((a && b) && c) …:
  // refuse what could not be read back, so that every accepted query prints and re-parses.
  if (PrintedDepth(*q) > kMaxNestingDepth)
    return InvalidArgument(
        fmt::format("Cannot parse query: CAUSED BY the expression nests deeper than {} levels once "
                    "parenthesized; split it",
                    kMaxNestingDepth));
  return q;
}

}  // namespace causeway::pivot
