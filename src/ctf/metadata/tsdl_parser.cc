#include "ctf/metadata/tsdl_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ctf/metadata/tsdl_lexer.h"

namespace causeway::ctf {
namespace {

// A type as the parser holds it: the node plus what it needs to know about it later.
struct TRef {
  TypePtr type;
  uint32_t depth = 1;       // nodes on the longest path from this node to a leaf
  uint64_t nodes = 1;       // nodes of the tree with shared subtrees counted each time
  bool native = false;      // integer/float/enum whose byte order is the trace's
  bool definition = false;  // a named struct/enum/variant with a body (may end with ';')
};

// Names visible in one block; TSDL keeps struct, variant and enum names apart from
// typealias/typedef names, as C does.
struct Scope {
  std::unordered_map<std::string, TRef> aliases;
  std::unordered_map<std::string, TRef> structs;
  std::unordered_map<std::string, TRef> variants;
  std::unordered_map<std::string, TRef> enums;
};

// The right side of `name = value;`.
struct Value {
  enum Kind : uint8_t { kInt, kString, kPath } kind = kInt;
  bool negative = false;  // kInt: value is -magnitude
  uint64_t magnitude = 0;
  std::string text;  // kString: the contents; kPath: identifiers joined with '.'
  const Token* token = nullptr;

  std::string Describe() const {
    switch (kind) {
      case kInt:
        return fmt::format("'{}{}'", negative ? "-" : "", magnitude);
      case kString:
        return fmt::format("string \"{}\"", text);
      case kPath:
        return fmt::format("'{}'", text);
    }
    return {};
  }
};

// What a block attribute holds: `name = value;` or `name := type;`.
struct Attribute {
  std::string name;
  const Token* name_token = nullptr;
  bool is_type = false;
  Value value;  // !is_type
  TRef type;    // is_type
  const Token* type_token = nullptr;
};

struct PendingEvent {
  EventClass event;
  const Token* where = nullptr;  // the `id` value, else the `event` keyword
};

struct PendingStream {
  StreamClass stream;
  const Token* where = nullptr;
};

bool EqualsAnyOf(std::string_view s, std::initializer_list<std::string_view> options) {
  return std::find(options.begin(), options.end(), s) != options.end();
}

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

const char* KindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kInteger:
      return "integer";
    case TypeKind::kFloat:
      return "floating_point";
    case TypeKind::kString:
      return "string";
    case TypeKind::kEnum:
      return "enum";
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kVariant:
      return "variant";
    case TypeKind::kArray:
      return "array";
    case TypeKind::kSequence:
      return "sequence";
  }
  return "?";
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
bool ParseUuid(std::string_view text, std::array<uint8_t, 16>* out) {
  if (text.size() != 36) return false;
  size_t byte = 0;
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
      ++i;
      continue;
    }
    int hi = HexDigit(text[i]), lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[byte++] = static_cast<uint8_t>(hi * 16 + lo);
    i += 2;
  }
  return byte == 16;
}

// `unsigned long long int` is 4; C has no longer type names.
constexpr size_t kMaxNameWords = 8;

class Parser {
 public:
  explicit Parser(std::string_view text) : lexed_(TokenizeTsdl(text)), tokens_(lexed_.tokens) {
    scopes_.emplace_back();
  }

  StatusOr<TraceClass> Run() {
    RETURN_IF_ERROR(ParseTopLevel());
    RETURN_IF_ERROR(Finish());
    return std::move(trace_);
  }

 private:
  // ---- Tokens and errors -------------------------------------------------------------

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool PeekIs(TokenKind kind, size_t ahead = 0) const { return Peek(ahead).kind == kind; }
  bool PeekWord(std::string_view word, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kIdentifier && t.text == word;
  }

  // At the lexical error token, its error wins: the text there is not a token at all.
  Status SyntaxAt(const Token& t, const std::string& message) const {
    if (t.kind == TokenKind::kError) return lexed_.error;
    return TsdlSyntaxError(t.line, t.column, message);
  }
  Status ErrorAt(const Token& t, const std::string& message,
                 StatusCode code = StatusCode::kDataLoss) const {
    if (t.kind == TokenKind::kError) return lexed_.error;
    return TsdlError(t.line, t.column, message, code);
  }
  // Where a token was expected, e.g. {"after attribute '", name, "'"}; only turned into
  // text on error, since building strings for every token would dominate the parse time.
  struct Ctx {
    Ctx(const char* a_ = "") : a(a_) {}  // NOLINT: implicit on purpose
    Ctx(std::string_view a_, std::string_view b_, std::string_view c_ = "") : a(a_), b(b_), c(c_) {}
    std::string Str() const { return fmt::format("{}{}{}", a, b, c); }
    std::string_view a, b, c;
  };

  // "expected WHAT CONTEXT, found X" at the next token.
  Status Expected(std::string_view what, const Ctx& context) const {
    const Token& t = Peek();
    std::string message = fmt::format("expected {}", what);
    std::string where = context.Str();
    if (!where.empty()) message += fmt::format(" {}", where);
    return SyntaxAt(t, fmt::format("{}, found {}", message, DescribeToken(t)));
  }
  Status Expect(TokenKind kind, std::string_view what, const Ctx& context) {
    if (!PeekIs(kind)) return Expected(what, context);
    Next();
    return Status::Ok();
  }

  // ---- Names and scopes --------------------------------------------------------------

  template <typename Map>
  const TRef* Lookup(Map Scope::*map, const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = ((*it).*map).find(name);
      if (found != ((*it).*map).end()) return &found->second;
    }
    return nullptr;
  }

  Status Declare(std::unordered_map<std::string, TRef> Scope::*map, const char* what,
                 const std::string& name, TRef ref, const Token& where) {
    ref.definition = false;
    auto [it, inserted] = (scopes_.back().*map).emplace(name, std::move(ref));
    if (!inserted)
      return ErrorAt(where, fmt::format("{} '{}' is already declared in this scope", what, name));
    return Status::Ok();
  }

  // ---- Values ------------------------------------------------------------------------

  // `a.b.c` (at least one identifier).
  StatusOr<std::string> ParsePath(const Ctx& context) {
    if (!PeekIs(TokenKind::kIdentifier)) return Expected("an identifier", context);
    std::string path(Next().text);
    while (PeekIs(TokenKind::kDot)) {
      Next();
      if (!PeekIs(TokenKind::kIdentifier)) return Expected("an identifier after '.'", "");
      path += '.';
      path += Next().text;
    }
    return path;
  }

  StatusOr<Value> ParseValue(const Ctx& context) {
    Value v;
    v.token = &Peek();
    if (PeekIs(TokenKind::kMinus) || PeekIs(TokenKind::kPlus)) {
      v.negative = Next().kind == TokenKind::kMinus;
      if (!PeekIs(TokenKind::kInteger)) return Expected("an integer after the sign", "");
    }
    if (PeekIs(TokenKind::kInteger)) {
      v.kind = Value::kInt;
      v.magnitude = Next().integer;
      if (v.magnitude == 0) v.negative = false;
      return v;
    }
    if (PeekIs(TokenKind::kString)) {
      v.kind = Value::kString;
      v.text = lexed_.StringValue(Next());
      return v;
    }
    if (PeekIs(TokenKind::kIdentifier)) {
      v.kind = Value::kPath;
      ASSIGN_OR_RETURN(v.text, ParsePath(context));
      return v;
    }
    return Expected("a value", context);
  }

  StatusOr<uint64_t> ToUint64(const Value& v, std::string_view what) {
    if (v.kind != Value::kInt)
      return ErrorAt(*v.token, fmt::format("{} must be an integer, found {}", what, v.Describe()));
    if (v.negative)
      return ErrorAt(*v.token,
                     fmt::format("{} must not be negative, found {}", what, v.Describe()));
    return v.magnitude;
  }
  StatusOr<uint32_t> ToUint32(const Value& v, std::string_view what) {
    ASSIGN_OR_RETURN(uint64_t x, ToUint64(v, what));
    if (x > UINT32_MAX) return ErrorAt(*v.token, fmt::format("{} is too large: {}", what, x));
    return static_cast<uint32_t>(x);
  }
  StatusOr<int64_t> ToInt64(const Value& v, std::string_view what) {
    if (v.kind != Value::kInt)
      return ErrorAt(*v.token, fmt::format("{} must be an integer, found {}", what, v.Describe()));
    uint64_t limit = v.negative ? (uint64_t{1} << 63) : static_cast<uint64_t>(INT64_MAX);
    if (v.magnitude > limit)
      return ErrorAt(*v.token, fmt::format("{} does not fit in a signed 64-bit integer: {}", what,
                                           v.Describe()));
    if (v.negative) return static_cast<int64_t>(0 - v.magnitude);  // modular, exact
    return static_cast<int64_t>(v.magnitude);
  }
  StatusOr<std::string> ToText(const Value& v, std::string_view what) {
    if (v.kind != Value::kString)
      return ErrorAt(*v.token, fmt::format("{} must be a string, found {}", what, v.Describe()));
    return v.text;
  }
  // A string or a bare identifier (clock and event names are written both ways).
  StatusOr<std::string> ToName(const Value& v, std::string_view what) {
    if (v.kind == Value::kInt)
      return ErrorAt(*v.token, fmt::format("{} must be a string or an identifier, found {}", what,
                                           v.Describe()));
    return v.text;
  }
  StatusOr<bool> ToBool(const Value& v, std::string_view what) {
    if (v.kind == Value::kInt && !v.negative && v.magnitude <= 1) return v.magnitude == 1;
    if (v.kind == Value::kPath) {
      std::string lower = Lowercase(v.text);
      if (lower == "true") return true;
      if (lower == "false") return false;
    }
    return ErrorAt(*v.token,
                   fmt::format("{} must be true, false, 1 or 0, found {}", what, v.Describe()));
  }
  StatusOr<std::array<uint8_t, 16>> ToUuid(const Value& v, std::string_view what) {
    ASSIGN_OR_RETURN(std::string text, ToText(v, what));
    std::array<uint8_t, 16> uuid{};
    if (!ParseUuid(text, &uuid))
      return ErrorAt(*v.token, fmt::format("{} is not a UUID: \"{}\"", what, text));
    return uuid;
  }
  // le/be/network -> order; native -> nullopt (resolved when the trace's order is known).
  StatusOr<std::optional<ByteOrder>> ToByteOrder(const Value& v) {
    if (v.kind == Value::kPath) {
      if (EqualsAnyOf(v.text, {"le", "little", "little_endian"}))
        return std::optional<ByteOrder>(ByteOrder::kLittle);
      if (EqualsAnyOf(v.text, {"be", "big", "big_endian", "network"}))
        return std::optional<ByteOrder>(ByteOrder::kBig);
      if (v.text == "native") return std::optional<ByteOrder>();
    }
    return ErrorAt(*v.token, fmt::format("byte_order must be le, be, network or native, found {}",
                                         v.Describe()));
  }
  StatusOr<Encoding> ToEncoding(const Value& v) {
    if (v.kind != Value::kInt) {
      std::string lower = Lowercase(v.text);
      if (lower == "none") return Encoding::kNone;
      if (lower == "utf8" || lower == "utf-8") return Encoding::kUtf8;
      if (lower == "ascii") return Encoding::kAscii;
    }
    return ErrorAt(*v.token,
                   fmt::format("encoding must be none, UTF8 or ASCII, found {}", v.Describe()));
  }
  StatusOr<uint32_t> ToAlign(const Value& v) {
    ASSIGN_OR_RETURN(uint64_t align, ToUint64(v, "align"));
    if (!IsPowerOfTwo(align) || align > (uint64_t{1} << 31))
      return ErrorAt(*v.token,
                     fmt::format("align must be a power of two (in bits), found {}", align));
    return static_cast<uint32_t>(align);
  }

  // ---- Type construction ---------------------------------------------------------------

  StatusOr<TRef> MakeRef(std::shared_ptr<Type> type, uint32_t depth, uint64_t nodes, bool native,
                         const Token& where) {
    if (depth > kMaxTsdlNesting)
      return ErrorAt(where,
                     fmt::format("types are nested more than {} levels deep", kMaxTsdlNesting),
                     StatusCode::kUnimplemented);
    if (nodes > kMaxTsdlTypeNodes)
      return ErrorAt(where,
                     fmt::format("type has more than {} nodes once its named parts are expanded",
                                 kMaxTsdlTypeNodes),
                     StatusCode::kUnimplemented);
    if (native) native_fixups_.push_back(type);
    TRef ref;
    ref.type = std::move(type);
    ref.depth = depth;
    ref.nodes = nodes;
    ref.native = native;
    return ref;
  }

  // Keeps the parser's recursion within kMaxTsdlNesting.
  class NestingGuard {
   public:
    explicit NestingGuard(uint32_t* depth) : depth_(depth) { ++*depth_; }
    ~NestingGuard() { --*depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    uint32_t* depth_;
  };

  // A type specifier: integer {…}, floating_point {…}, string [{…}], enum …, struct …,
  // variant …, or a type name (typealias/typedef; may be several words). When a
  // declarator follows, the last identifier of a run of words is left for it.
  StatusOr<TRef> ParseTypeSpecifier(bool declarator_follows) {
    NestingGuard guard(&nesting_);
    const Token& t = Peek();
    if (nesting_ > kMaxTsdlNesting)
      return ErrorAt(t, fmt::format("types are nested more than {} levels deep", kMaxTsdlNesting),
                     StatusCode::kUnimplemented);
    if (t.kind != TokenKind::kIdentifier) return Expected("a type", "");
    if (t.text == "integer") return ParseInteger();
    if (t.text == "floating_point") return ParseFloat();
    if (t.text == "string") return ParseString();
    if (t.text == "enum") return ParseEnum();
    if (t.text == "struct") return ParseStruct();
    if (t.text == "variant") return ParseVariant();
    return ParseTypeName(declarator_follows);
  }

  StatusOr<TRef> ParseTypeName(bool declarator_follows) {
    // Words of the run that can matter: a name has at most kMaxNameWords words, plus
    // one for the declarator and one to tell that the run goes on.
    size_t n = 0;
    while (n < kMaxNameWords + 2 && PeekIs(TokenKind::kIdentifier, n)) ++n;
    auto join = [&](size_t count) {
      std::string name(Peek(0).text);
      for (size_t i = 1; i < count; ++i) {
        name += ' ';
        name += Peek(i).text;
      }
      return name;
    };
    const Token& first = Peek();
    if (!declarator_follows) {
      std::string name = join(std::min(n, kMaxNameWords));
      const TRef* ref = n <= kMaxNameWords ? Lookup(&Scope::aliases, name) : nullptr;
      if (!ref) return ErrorAt(first, fmt::format("unknown type name '{}'", name));
      for (size_t i = 0; i < n; ++i) Next();
      return *ref;
    }
    // Longest known name that leaves a word for the declarator; a lone known word too
    // (then the declarator is missing, which the caller reports).
    for (size_t count = std::min(n > 1 ? n - 1 : 1, kMaxNameWords); count >= 1; --count) {
      if (const TRef* ref = Lookup(&Scope::aliases, join(count))) {
        for (size_t i = 0; i < count; ++i) Next();
        return *ref;
      }
    }
    // Unknown: name the words before the declarator that sit on the first word's line
    // (a missing ';' must not glue the next line's words into the name).
    size_t count = 1;
    while (count + 1 < n && count < kMaxNameWords && Peek(count).line == first.line) ++count;
    return ErrorAt(first, fmt::format("unknown type name '{}'", join(count)));
  }

  // `{ name = value; … }` for integer, floating_point and string.
  template <typename Handler>
  Status ParseTypeAttributes(std::string_view type_name, Handler&& handle) {
    RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{'", Ctx("after '", type_name, "'")));
    while (!PeekIs(TokenKind::kRBrace)) {
      if (!PeekIs(TokenKind::kIdentifier))
        return Expected(fmt::format("an attribute name or '}}' in {} declaration", type_name), "");
      const Token& name = Next();
      RETURN_IF_ERROR(Expect(TokenKind::kEquals, "'='", Ctx("after attribute '", name.text, "'")));
      ASSIGN_OR_RETURN(Value v, ParseValue(Ctx("after '", name.text, " ='")));
      RETURN_IF_ERROR(
          Expect(TokenKind::kSemicolon, "';'", Ctx("after attribute '", name.text, "'")));
      RETURN_IF_ERROR(handle(name.text, v));
    }
    Next();  // '}'
    return Status::Ok();
  }

  StatusOr<TRef> ParseInteger() {
    const Token& keyword = Next();
    auto type = std::make_shared<Type>();
    type->kind = TypeKind::kInteger;
    std::optional<Value> size_value;
    std::optional<uint32_t> align;
    std::optional<ByteOrder> order;
    auto handle = [&](std::string_view name, const Value& v) -> Status {
      if (name == "size") {
        size_value = v;
      } else if (name == "align") {
        ASSIGN_OR_RETURN(align, ToAlign(v));
      } else if (name == "signed") {
        ASSIGN_OR_RETURN(type->is_signed, ToBool(v, "signed"));
      } else if (name == "byte_order") {
        ASSIGN_OR_RETURN(order, ToByteOrder(v));
      } else if (name == "base") {
        ASSIGN_OR_RETURN(type->base, ToBase(v));
      } else if (name == "encoding") {
        ASSIGN_OR_RETURN(type->encoding, ToEncoding(v));
      } else if (name == "map") {
        ASSIGN_OR_RETURN(type->mapped_clock, ToClockMap(v));
      }
      return Status::Ok();  // other attributes are ignored
    };
    RETURN_IF_ERROR(ParseTypeAttributes("integer", handle));
    if (!size_value) return ErrorAt(keyword, "integer declaration has no size attribute");
    ASSIGN_OR_RETURN(uint64_t size, ToUint64(*size_value, "integer size"));
    if (size == 0)
      return ErrorAt(*size_value->token, "integer size must be between 1 and 64 bits, found 0");
    if (size > 64)
      return ErrorAt(*size_value->token,
                     fmt::format("integer size {} is not supported (at most 64 bits)", size),
                     StatusCode::kUnimplemented);
    type->size_bits = static_cast<uint32_t>(size);
    type->align_bits = align ? *align : (size % 8 == 0 ? 8 : 1);
    type->byte_order = order.value_or(ByteOrder::kLittle);
    return MakeRef(std::move(type), 1, 1, !order.has_value(), keyword);
  }

  StatusOr<uint8_t> ToBase(const Value& v) {
    if (v.kind == Value::kInt && !v.negative) {
      if (v.magnitude == 2 || v.magnitude == 8 || v.magnitude == 10 || v.magnitude == 16)
        return static_cast<uint8_t>(v.magnitude);
    } else if (v.kind == Value::kPath) {
      const std::string& s = v.text;
      if (EqualsAnyOf(s, {"decimal", "dec", "d", "i", "u"})) return uint8_t{10};
      if (EqualsAnyOf(s, {"hexadecimal", "hex", "x", "X", "p"})) return uint8_t{16};
      if (EqualsAnyOf(s, {"octal", "oct", "o"})) return uint8_t{8};
      if (EqualsAnyOf(s, {"binary", "b"})) return uint8_t{2};
    }
    return ErrorAt(*v.token, fmt::format("base must be 2, 8, 10 or 16, found {}", v.Describe()));
  }

  // `clock.NAME.value` -> NAME (checked against the clock blocks at the end).
  StatusOr<std::string> ToClockMap(const Value& v) {
    if (v.kind == Value::kPath) {
      std::string_view s = v.text;
      size_t first_dot = s.find('.');
      size_t last_dot = s.rfind('.');
      if (s.substr(0, first_dot) == "clock" && first_dot != last_dot &&
          s.substr(last_dot) == ".value" &&
          s.substr(first_dot + 1, last_dot - first_dot - 1).find('.') == std::string_view::npos) {
        std::string name(s.substr(first_dot + 1, last_dot - first_dot - 1));
        clock_refs_.emplace_back(name, v.token);
        return name;
      }
    }
    return ErrorAt(*v.token, fmt::format("map must be clock.NAME.value, found {}", v.Describe()));
  }

  StatusOr<TRef> ParseFloat() {
    const Token& keyword = Next();
    auto type = std::make_shared<Type>();
    type->kind = TypeKind::kFloat;
    std::optional<uint32_t> align, exp_dig, mant_dig;
    std::optional<ByteOrder> order;
    auto handle = [&](std::string_view name, const Value& v) -> Status {
      if (name == "exp_dig") {
        ASSIGN_OR_RETURN(exp_dig, ToUint32(v, "exp_dig"));
      } else if (name == "mant_dig") {
        ASSIGN_OR_RETURN(mant_dig, ToUint32(v, "mant_dig"));
      } else if (name == "align") {
        ASSIGN_OR_RETURN(align, ToAlign(v));
      } else if (name == "byte_order") {
        ASSIGN_OR_RETURN(order, ToByteOrder(v));
      }
      return Status::Ok();
    };
    RETURN_IF_ERROR(ParseTypeAttributes("floating_point", handle));
    if (!exp_dig || !mant_dig)
      return ErrorAt(keyword, "floating_point declaration needs both exp_dig and mant_dig");
    if (!((*exp_dig == 8 && *mant_dig == 24) || (*exp_dig == 11 && *mant_dig == 53)))
      return ErrorAt(keyword,
                     fmt::format("floating_point with exp_dig = {} and mant_dig = {} is not "
                                 "supported (only 8/24 and 11/53: IEEE 754 binary32 and binary64)",
                                 *exp_dig, *mant_dig),
                     StatusCode::kUnimplemented);
    type->exp_dig = *exp_dig;
    type->mant_dig = *mant_dig;
    type->size_bits = *exp_dig + *mant_dig;
    type->align_bits = align ? *align : (type->size_bits % 8 == 0 ? 8 : 1);
    type->byte_order = order.value_or(ByteOrder::kLittle);
    return MakeRef(std::move(type), 1, 1, !order.has_value(), keyword);
  }

  StatusOr<TRef> ParseString() {
    const Token& keyword = Next();
    auto type = std::make_shared<Type>();
    type->kind = TypeKind::kString;
    type->align_bits = 8;
    type->encoding = Encoding::kUtf8;
    if (PeekIs(TokenKind::kLBrace)) {
      auto handle = [&](std::string_view name, const Value& v) -> Status {
        if (name == "encoding") {
          ASSIGN_OR_RETURN(type->encoding, ToEncoding(v));
        }
        return Status::Ok();
      };
      RETURN_IF_ERROR(ParseTypeAttributes("string", handle));
    }
    return MakeRef(std::move(type), 1, 1, false, keyword);
  }

  // An enumerator value: the sign and magnitude as written.
  struct EnumValue {
    bool negative = false;
    uint64_t magnitude = 0;
    bool LessThan(const EnumValue& o) const {
      if (negative != o.negative) return negative;
      return negative ? magnitude > o.magnitude : magnitude < o.magnitude;
    }
    std::string ToString() const { return fmt::format("{}{}", negative ? "-" : "", magnitude); }
  };

  Status CheckFits(const EnumValue& v, const Type& container, const Token& where) {
    uint32_t bits = container.size_bits;
    bool fits;
    if (container.is_signed) {
      uint64_t max_positive = (uint64_t{1} << (bits - 1)) - 1;
      fits = v.negative ? v.magnitude <= max_positive + 1 : v.magnitude <= max_positive;
    } else {
      uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      fits = !v.negative && v.magnitude <= max;
    }
    if (fits) return Status::Ok();
    return ErrorAt(
        where, fmt::format("enum value {} does not fit in its {}-bit {} container", v.ToString(),
                           bits, container.is_signed ? "signed" : "unsigned"));
  }

  static int64_t ToBits(const EnumValue& v) {
    return static_cast<int64_t>(v.negative ? 0 - v.magnitude : v.magnitude);
  }

  StatusOr<EnumValue> ParseEnumValue() {
    const Token& start = Peek();
    ASSIGN_OR_RETURN(Value v, ParseValue("in enumerator"));
    if (v.kind != Value::kInt)
      return ErrorAt(start,
                     fmt::format("enumerator value must be an integer, found {}", v.Describe()));
    return EnumValue{v.negative, v.magnitude};
  }

  StatusOr<TRef> ParseEnum() {
    const Token& keyword = Next();
    std::string name;
    const Token* name_token = nullptr;
    if (PeekIs(TokenKind::kIdentifier)) {
      name_token = &Next();
      name = std::string(name_token->text);
    }
    TRef container;
    bool has_container = false;
    if (PeekIs(TokenKind::kColon)) {
      Next();
      ASSIGN_OR_RETURN(container, ParseTypeSpecifier(false));
      has_container = true;
    }
    if (!PeekIs(TokenKind::kLBrace)) {
      if (has_container) return Expected("'{'", "after the enum container type");
      if (name.empty()) return Expected("an enum name, ':' or '{'", "after 'enum'");
      const TRef* ref = Lookup(&Scope::enums, name);
      if (!ref) return ErrorAt(*name_token, fmt::format("unknown enum '{}'", name));
      return *ref;
    }
    if (!has_container) {
      const TRef* int_alias = Lookup(&Scope::aliases, "int");
      if (!int_alias)
        return ErrorAt(keyword, "enum has no container type and no 'int' typealias is declared");
      container = *int_alias;
    }
    if (container.type->kind != TypeKind::kInteger)
      return ErrorAt(keyword, fmt::format("enum container must be an integer type, found {}",
                                          KindName(container.type->kind)));
    auto type = std::make_shared<Type>(*container.type);
    type->kind = TypeKind::kEnum;

    Next();  // '{'
    EnumValue next{};
    bool next_overflows = false;
    while (!PeekIs(TokenKind::kRBrace)) {
      const Token& label_token = Peek();
      EnumMapping mapping;
      if (label_token.kind == TokenKind::kIdentifier) {
        mapping.label = std::string(label_token.text);
      } else if (label_token.kind == TokenKind::kString) {
        mapping.label = lexed_.StringValue(label_token);
      } else {
        return Expected("an enumerator label or '}'", "");
      }
      Next();
      EnumValue lo = next, hi = next;
      if (PeekIs(TokenKind::kEquals)) {
        Next();
        const Token& lo_token = Peek();
        ASSIGN_OR_RETURN(lo, ParseEnumValue());
        RETURN_IF_ERROR(CheckFits(lo, *type, lo_token));
        hi = lo;
        if (PeekIs(TokenKind::kEllipsis)) {
          Next();
          const Token& hi_token = Peek();
          ASSIGN_OR_RETURN(hi, ParseEnumValue());
          RETURN_IF_ERROR(CheckFits(hi, *type, hi_token));
          if (hi.LessThan(lo))
            return ErrorAt(hi_token, fmt::format("enum range {} ... {} of '{}' is reversed",
                                                 lo.ToString(), hi.ToString(), mapping.label));
        }
      } else {
        if (next_overflows)
          return ErrorAt(
              label_token,
              fmt::format("implicit value of enumerator '{}' overflows 64 bits", mapping.label));
        RETURN_IF_ERROR(CheckFits(lo, *type, label_token));
      }
      mapping.lo = ToBits(lo);
      mapping.hi = ToBits(hi);
      type->mappings.push_back(std::move(mapping));
      // The next implicit value is hi + 1.
      next_overflows = false;
      if (hi.negative) {
        next = hi.magnitude == 1 ? EnumValue{false, 0} : EnumValue{true, hi.magnitude - 1};
      } else if (hi.magnitude == UINT64_MAX) {
        next_overflows = true;
      } else {
        next = EnumValue{false, hi.magnitude + 1};
      }
      if (PeekIs(TokenKind::kComma)) {
        Next();
      } else if (!PeekIs(TokenKind::kRBrace)) {
        return Expected("',' or '}'", Ctx("after enumerator '", type->mappings.back().label, "'"));
      }
    }
    Next();  // '}'
    ASSIGN_OR_RETURN(TRef ref, MakeRef(std::move(type), 1, 1, container.native, keyword));
    if (!name.empty()) {
      RETURN_IF_ERROR(Declare(&Scope::enums, "enum", name, ref, *name_token));
      ref.definition = true;
    }
    return ref;
  }

  // Fields of a struct or options of a variant, up to and including the '}'.
  Status ParseMembers(const Token& keyword, std::vector<Field>* fields, std::vector<TRef>* refs) {
    const char* what = keyword.text == "variant" ? "variant" : "struct";
    // Names seen so far; a linear scan is faster for the usual handful of fields, but a
    // hostile struct of 100,000 fields must not take quadratic time.
    std::unordered_set<std::string> names;
    scopes_.emplace_back();
    while (!PeekIs(TokenKind::kRBrace)) {
      if (PeekIs(TokenKind::kEnd))
        return Expected(fmt::format("'}}' to close the {} opened at line {}", what, keyword.line),
                        "");
      if (PeekWord("typealias")) {
        RETURN_IF_ERROR(ParseTypealias());
        continue;
      }
      if (PeekWord("typedef")) {
        RETURN_IF_ERROR(ParseTypedef());
        continue;
      }
      ASSIGN_OR_RETURN(TRef spec, ParseTypeSpecifier(true));
      if (spec.definition && PeekIs(TokenKind::kSemicolon)) {
        Next();  // `struct name { … };` declares a type, no field
        continue;
      }
      while (true) {
        const Token& name_token = Peek();
        ASSIGN_OR_RETURN(TRef field, ParseDeclarator(spec, "field name"));
        RETURN_IF_ERROR(CheckTagged(field, name_token));
        std::string_view name = name_token.text;
        bool duplicate;
        if (fields->size() < 16) {
          duplicate = std::any_of(fields->begin(), fields->end(),
                                  [&](const Field& f) { return f.name == name; });
        } else {
          if (names.empty())
            for (const Field& f : *fields) names.insert(f.name);
          duplicate = !names.emplace(name).second;
        }
        if (duplicate)
          return ErrorAt(name_token, fmt::format("duplicate {} '{}' in {}",
                                                 *what == 'v' ? "option" : "field", name, what));
        fields->push_back(Field{std::string(name), field.type});
        refs->push_back(std::move(field));
        if (!PeekIs(TokenKind::kComma)) break;
        Next();
      }
      RETURN_IF_ERROR(Expect(TokenKind::kSemicolon, "';'", "after field declaration"));
    }
    Next();  // '}'
    scopes_.pop_back();
    return Status::Ok();
  }

  // A variant used as a field (directly or as array/sequence elements) needs a tag.
  Status CheckTagged(const TRef& ref, const Token& where) {
    const Type* t = ref.type.get();
    while (t->kind == TypeKind::kArray || t->kind == TypeKind::kSequence) t = t->element.get();
    if (t->kind == TypeKind::kVariant && t->ref.empty())
      return ErrorAt(
          where, fmt::format("variant field '{}' has no tag (write variant <tag>)", where.text));
    return Status::Ok();
  }

  // `name`, `name[4]`, `name[len]`, `name[2][3]`, … applied to `spec`.
  StatusOr<TRef> ParseDeclarator(const TRef& spec, std::string_view what) {
    if (!PeekIs(TokenKind::kIdentifier)) return Expected(fmt::format("a {}", what), "");
    const Token& name = Next();
    struct Dim {
      bool is_sequence;
      uint64_t length;
      std::string ref;
    };
    std::vector<Dim> dims;
    while (PeekIs(TokenKind::kLBracket)) {
      Next();
      if (PeekIs(TokenKind::kInteger)) {
        dims.push_back(Dim{false, Next().integer, {}});
      } else if (PeekIs(TokenKind::kIdentifier)) {
        ASSIGN_OR_RETURN(std::string ref, ParsePath("in sequence length"));
        dims.push_back(Dim{true, 0, std::move(ref)});
      } else {
        return Expected("an array length or a sequence length field", "after '['");
      }
      RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "']'", "after the length"));
    }
    TRef current = spec;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
      auto type = std::make_shared<Type>();
      type->kind = it->is_sequence ? TypeKind::kSequence : TypeKind::kArray;
      type->align_bits = current.type->align_bits;
      type->length = it->length;
      type->ref = std::move(it->ref);
      type->element = current.type;
      ASSIGN_OR_RETURN(current,
                       MakeRef(std::move(type), current.depth + 1, current.nodes + 1, false, name));
    }
    current.definition = false;
    return current;
  }

  // `align(N)` after a struct.
  Status MaybeParseAlign(std::optional<uint32_t>* align) {
    if (!(PeekWord("align") && PeekIs(TokenKind::kLParen, 1))) return Status::Ok();
    Next();
    Next();
    ASSIGN_OR_RETURN(Value v, ParseValue("in align()"));
    ASSIGN_OR_RETURN(*align, ToAlign(v));
    return Expect(TokenKind::kRParen, "')'", "after the alignment");
  }

  StatusOr<TRef> ParseStruct() {
    const Token& keyword = Next();
    std::string name;
    const Token* name_token = nullptr;
    if (PeekIs(TokenKind::kIdentifier)) {
      name_token = &Next();
      name = std::string(name_token->text);
    }
    if (!PeekIs(TokenKind::kLBrace)) {
      if (name.empty()) return Expected("a struct name or '{'", "after 'struct'");
      const TRef* found = Lookup(&Scope::structs, name);
      if (!found) return ErrorAt(*name_token, fmt::format("unknown struct '{}'", name));
      TRef ref = *found;
      std::optional<uint32_t> align;
      RETURN_IF_ERROR(MaybeParseAlign(&align));
      if (align && *align > ref.type->align_bits) {
        auto copy = std::make_shared<Type>(*ref.type);
        copy->align_bits = *align;
        ref.type = std::move(copy);
      }
      return ref;
    }
    Next();  // '{'
    auto type = std::make_shared<Type>();
    type->kind = TypeKind::kStruct;
    std::vector<TRef> members;
    RETURN_IF_ERROR(ParseMembers(keyword, &type->fields, &members));
    std::optional<uint32_t> align;
    RETURN_IF_ERROR(MaybeParseAlign(&align));
    uint32_t depth = 1;
    uint64_t nodes = 1;
    type->align_bits = align.value_or(1);
    for (const TRef& m : members) {
      type->align_bits = std::max(type->align_bits, m.type->align_bits);
      depth = std::max(depth, m.depth + 1);
      nodes += m.nodes;
    }
    ASSIGN_OR_RETURN(TRef ref, MakeRef(std::move(type), depth, nodes, false, keyword));
    if (!name.empty()) {
      RETURN_IF_ERROR(Declare(&Scope::structs, "struct", name, ref, *name_token));
      ref.definition = true;
    }
    return ref;
  }

  StatusOr<TRef> ParseVariant() {
    const Token& keyword = Next();
    std::string name;
    const Token* name_token = nullptr;
    if (PeekIs(TokenKind::kIdentifier)) {
      name_token = &Next();
      name = std::string(name_token->text);
    }
    std::string tag;
    if (PeekIs(TokenKind::kLAngle)) {
      Next();
      ASSIGN_OR_RETURN(tag, ParsePath("in variant tag"));
      RETURN_IF_ERROR(Expect(TokenKind::kRAngle, "'>'", "after the variant tag"));
    }
    if (!PeekIs(TokenKind::kLBrace)) {
      if (name.empty()) return Expected("a variant name, '<' or '{'", "after 'variant'");
      const TRef* found = Lookup(&Scope::variants, name);
      if (!found) return ErrorAt(*name_token, fmt::format("unknown variant '{}'", name));
      TRef ref = *found;
      if (!tag.empty() && tag != ref.type->ref) {
        auto copy = std::make_shared<Type>(*ref.type);
        copy->ref = tag;
        ref.type = std::move(copy);
      }
      return ref;
    }
    Next();  // '{'
    auto type = std::make_shared<Type>();
    type->kind = TypeKind::kVariant;
    type->align_bits = 1;  // the selected option aligns itself
    type->ref = std::move(tag);
    std::vector<TRef> options;
    RETURN_IF_ERROR(ParseMembers(keyword, &type->fields, &options));
    uint32_t depth = 1;
    uint64_t nodes = 1;
    for (const TRef& o : options) {
      depth = std::max(depth, o.depth + 1);
      nodes += o.nodes;
    }
    ASSIGN_OR_RETURN(TRef ref, MakeRef(std::move(type), depth, nodes, false, keyword));
    if (!name.empty()) {
      RETURN_IF_ERROR(Declare(&Scope::variants, "variant", name, ref, *name_token));
      ref.definition = true;
    }
    return ref;
  }

  // typealias TYPE := NAME;
  Status ParseTypealias() {
    Next();  // typealias
    ASSIGN_OR_RETURN(TRef type, ParseTypeSpecifier(false));
    RETURN_IF_ERROR(Expect(TokenKind::kColonEquals, "':='", "after the typealias type"));
    if (!PeekIs(TokenKind::kIdentifier)) return Expected("a type name", "after ':='");
    const Token& first = Peek();
    std::string name(Next().text);
    for (size_t words = 1; PeekIs(TokenKind::kIdentifier); ++words) {
      if (words == kMaxNameWords)
        return ErrorAt(first, fmt::format("type name has more than {} words", kMaxNameWords));
      name += ' ';
      name += Next().text;
    }
    RETURN_IF_ERROR(Expect(TokenKind::kSemicolon, "';'", "after typealias"));
    return Declare(&Scope::aliases, "type", name, std::move(type), first);
  }

  // typedef TYPE NAME[dims], NAME2;
  Status ParseTypedef() {
    Next();  // typedef
    ASSIGN_OR_RETURN(TRef spec, ParseTypeSpecifier(true));
    while (true) {
      const Token& name_token = Peek();
      ASSIGN_OR_RETURN(TRef type, ParseDeclarator(spec, "type name"));
      RETURN_IF_ERROR(Declare(&Scope::aliases, "type", std::string(name_token.text),
                              std::move(type), name_token));
      if (!PeekIs(TokenKind::kComma)) break;
      Next();
    }
    return Expect(TokenKind::kSemicolon, "';'", "after typedef");
  }

  // ---- Blocks ------------------------------------------------------------------------

  // `KEYWORD { (name = value; | name := type; | type declarations)* };`
  // `type_attributes` are the attributes of this block that take a type (`:=`).
  template <typename Handler>
  Status ParseBlock(std::initializer_list<std::string_view> type_attributes, Handler&& handle) {
    const Token& keyword = Next();
    RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{'", Ctx("after '", keyword.text, "'")));
    scopes_.emplace_back();
    while (!PeekIs(TokenKind::kRBrace)) {
      if (PeekIs(TokenKind::kEnd))
        return Expected(
            fmt::format("'}}' to close the {} block opened at line {}", keyword.text, keyword.line),
            "");
      if (PeekWord("typealias")) {
        RETURN_IF_ERROR(ParseTypealias());
        continue;
      }
      if (PeekWord("typedef")) {
        RETURN_IF_ERROR(ParseTypedef());
        continue;
      }
      if (PeekWord("struct") || PeekWord("enum") || PeekWord("variant")) {
        RETURN_IF_ERROR(ParseTypeDefinition());
        continue;
      }
      if (!PeekIs(TokenKind::kIdentifier))
        return Expected(fmt::format("an attribute name or '}}' in {} block", keyword.text), "");
      Attribute attr;
      attr.name_token = &Peek();
      ASSIGN_OR_RETURN(attr.name, ParsePath("in attribute name"));
      if (PeekIs(TokenKind::kEquals)) {
        Next();
        if (EqualsAnyOf(attr.name, type_attributes) && !PeekIs(TokenKind::kInteger) &&
            !PeekIs(TokenKind::kString))
          return SyntaxAt(*attr.name_token,
                          fmt::format("attribute '{}' takes a type: write '{} := TYPE;'", attr.name,
                                      attr.name));
        ASSIGN_OR_RETURN(attr.value, ParseValue(Ctx("after '", attr.name, " ='")));
      } else if (PeekIs(TokenKind::kColonEquals)) {
        Next();
        attr.is_type = true;
        attr.type_token = &Peek();
        ASSIGN_OR_RETURN(attr.type, ParseTypeSpecifier(false));
      } else {
        return Expected("'=' or ':='", Ctx("after attribute '", attr.name, "'"));
      }
      RETURN_IF_ERROR(
          Expect(TokenKind::kSemicolon, "';'", Ctx("after attribute '", attr.name, "'")));
      RETURN_IF_ERROR(handle(attr));
    }
    Next();  // '}'
    scopes_.pop_back();
    return Expect(TokenKind::kSemicolon, "';'", Ctx("after ", keyword.text, " block"));
  }

  // `struct|enum|variant NAME {…} [align(N)];` outside of a struct body.
  Status ParseTypeDefinition() {
    ASSIGN_OR_RETURN(TRef spec, ParseTypeSpecifier(true));
    if (!spec.definition && PeekIs(TokenKind::kSemicolon))
      return SyntaxAt(Peek(), "a type here must be a named definition, e.g. struct NAME { ... };");
    return Expect(TokenKind::kSemicolon, "';'", "after type definition");
  }

  // Types of packet.header, event.header, event.context, fields, … must be structs.
  Status RequireStruct(const Attribute& attr, std::string_view owner) {
    if (attr.type.type->kind == TypeKind::kStruct) return Status::Ok();
    return ErrorAt(*attr.type_token, fmt::format("{} {} must be a struct, found {}", owner,
                                                 attr.name, KindName(attr.type.type->kind)));
  }

  Status ParseTrace() {
    const Token& keyword = Peek();
    if (trace_keyword_)
      return ErrorAt(keyword, fmt::format("duplicate trace block (the first one is at line {})",
                                          trace_keyword_->line));
    trace_keyword_ = &keyword;
    const Token* major_token = nullptr;
    auto handle = [&](const Attribute& a) -> Status {
      if (a.name == "major" && !a.is_type) {
        ASSIGN_OR_RETURN(trace_.major, ToUint32(a.value, "trace major"));
        major_token = a.value.token;
      } else if (a.name == "minor" && !a.is_type) {
        ASSIGN_OR_RETURN(trace_.minor, ToUint32(a.value, "trace minor"));
      } else if (a.name == "uuid" && !a.is_type) {
        ASSIGN_OR_RETURN(trace_.uuid, ToUuid(a.value, "trace uuid"));
      } else if (a.name == "byte_order" && !a.is_type) {
        ASSIGN_OR_RETURN(std::optional<ByteOrder> order, ToByteOrder(a.value));
        if (!order)
          return ErrorAt(*a.value.token, "trace byte_order must be le, be or network, not native");
        trace_.byte_order = *order;
      } else if (a.name == "packet.header" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "trace"));
        trace_.packet_header = a.type.type;
      }
      return Status::Ok();
    };
    RETURN_IF_ERROR(ParseBlock({"packet.header"}, handle));
    if (trace_.major != 1)
      return ErrorAt(
          *major_token,
          fmt::format("CTF {}.{} is not supported (only CTF 1.x TSDL)", trace_.major, trace_.minor),
          StatusCode::kUnimplemented);
    return Status::Ok();
  }

  Status ParseEnv() {
    return ParseBlock({}, [&](const Attribute& a) -> Status {
      if (a.is_type) return Status::Ok();
      EnvValue value;
      if (a.value.kind == Value::kInt) {
        ASSIGN_OR_RETURN(int64_t i, ToInt64(a.value, fmt::format("env {}", a.name)));
        value = i;
      } else {
        value = a.value.text;
      }
      auto [it, inserted] = env_index_.emplace(a.name, trace_.env.size());
      if (!inserted) {
        trace_.env[it->second].second = std::move(value);
        return Status::Ok();
      }
      trace_.env.emplace_back(a.name, std::move(value));
      return Status::Ok();
    });
  }

  Status ParseClock() {
    const Token& keyword = Peek();
    ClockClass clock;
    bool has_name = false;
    const Token* name_token = nullptr;
    auto handle = [&](const Attribute& a) -> Status {
      if (a.is_type) return Status::Ok();
      const Value& v = a.value;
      if (a.name == "name") {
        ASSIGN_OR_RETURN(clock.name, ToName(v, "clock name"));
        has_name = true;
        name_token = v.token;
      } else if (a.name == "uuid") {
        ASSIGN_OR_RETURN(clock.uuid, ToUuid(v, "clock uuid"));
      } else if (a.name == "description") {
        ASSIGN_OR_RETURN(clock.description, ToText(v, "clock description"));
      } else if (a.name == "freq") {
        ASSIGN_OR_RETURN(clock.freq, ToUint64(v, "clock freq"));
        if (clock.freq == 0) return ErrorAt(*v.token, "clock freq must not be 0");
      } else if (a.name == "offset_s") {
        ASSIGN_OR_RETURN(clock.offset_s, ToInt64(v, "clock offset_s"));
      } else if (a.name == "offset") {
        ASSIGN_OR_RETURN(clock.offset, ToInt64(v, "clock offset"));
      } else if (a.name == "precision") {
        ASSIGN_OR_RETURN(clock.precision, ToUint64(v, "clock precision"));
      } else if (a.name == "absolute") {
        ASSIGN_OR_RETURN(clock.absolute, ToBool(v, "clock absolute"));
      }
      return Status::Ok();
    };
    RETURN_IF_ERROR(ParseBlock({}, handle));
    if (!has_name) return ErrorAt(keyword, "clock block has no name");
    if (!clock_names_.insert(clock.name).second)
      return ErrorAt(*name_token, fmt::format("duplicate clock '{}'", clock.name));
    trace_.clocks.push_back(std::move(clock));
    return Status::Ok();
  }

  Status ParseStream() {
    PendingStream pending;
    pending.where = &Peek();
    StreamClass& s = pending.stream;
    auto handle = [&](const Attribute& a) -> Status {
      if (a.name == "id" && !a.is_type) {
        ASSIGN_OR_RETURN(s.id, ToUint64(a.value, "stream id"));
        pending.where = a.value.token;
      } else if (a.name == "event.header" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "stream"));
        s.event_header = a.type.type;
      } else if (a.name == "event.context" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "stream"));
        s.event_context = a.type.type;
      } else if (a.name == "packet.context" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "stream"));
        s.packet_context = a.type.type;
      }
      return Status::Ok();
    };
    RETURN_IF_ERROR((ParseBlock({"event.header", "event.context", "packet.context"}, handle)));
    auto [it, inserted] = stream_lines_.emplace(s.id, pending.where->line);
    if (!inserted)
      return ErrorAt(
          *pending.where,
          fmt::format("duplicate stream id {} (also declared at line {})", s.id, it->second));
    streams_.push_back(std::move(pending));
    return Status::Ok();
  }

  Status ParseEvent() {
    const Token& keyword = Peek();
    PendingEvent pending;
    pending.where = &keyword;
    EventClass& e = pending.event;
    bool has_name = false;
    auto handle = [&](const Attribute& a) -> Status {
      const Value& v = a.value;
      if (a.name == "name" && !a.is_type) {
        ASSIGN_OR_RETURN(e.name, ToName(v, "event name"));
        has_name = true;
      } else if (a.name == "id" && !a.is_type) {
        ASSIGN_OR_RETURN(e.id, ToUint64(v, "event id"));
        pending.where = v.token;
      } else if (a.name == "stream_id" && !a.is_type) {
        ASSIGN_OR_RETURN(e.stream_id, ToUint64(v, "event stream_id"));
      } else if (a.name == "loglevel" && !a.is_type) {
        ASSIGN_OR_RETURN(e.loglevel, ToInt64(v, "event loglevel"));
      } else if (a.name == "model.emf.uri" && !a.is_type) {
        ASSIGN_OR_RETURN(e.model_emf_uri, ToText(v, "event model.emf.uri"));
      } else if (a.name == "context" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "event"));
        e.context = a.type.type;
      } else if (a.name == "fields" && a.is_type) {
        RETURN_IF_ERROR(RequireStruct(a, "event"));
        e.fields = a.type.type;
      }
      return Status::Ok();
    };
    RETURN_IF_ERROR((ParseBlock({"context", "fields"}, handle)));
    if (!has_name) return ErrorAt(keyword, "event block has no name");
    events_.push_back(std::move(pending));
    return Status::Ok();
  }

  Status ParseTopLevel() {
    while (!PeekIs(TokenKind::kEnd)) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kIdentifier && PeekIs(TokenKind::kLBrace, 1)) {
        if (t.text == "trace") {
          RETURN_IF_ERROR(ParseTrace());
          continue;
        }
        if (t.text == "env") {
          RETURN_IF_ERROR(ParseEnv());
          continue;
        }
        if (t.text == "clock") {
          RETURN_IF_ERROR(ParseClock());
          continue;
        }
        if (t.text == "stream") {
          RETURN_IF_ERROR(ParseStream());
          continue;
        }
        if (t.text == "event") {
          RETURN_IF_ERROR(ParseEvent());
          continue;
        }
        if (t.text == "callsite") {
          RETURN_IF_ERROR(ParseBlock({}, [](const Attribute&) { return Status::Ok(); }));
          continue;
        }
      }
      if (t.kind == TokenKind::kIdentifier) {
        if (t.text == "typealias") {
          RETURN_IF_ERROR(ParseTypealias());
          continue;
        }
        if (t.text == "typedef") {
          RETURN_IF_ERROR(ParseTypedef());
          continue;
        }
        if (t.text == "struct" || t.text == "enum" || t.text == "variant") {
          RETURN_IF_ERROR(ParseTypeDefinition());
          continue;
        }
      }
      return SyntaxAt(t, fmt::format("expected a block (trace, env, clock, stream, event, "
                                     "callsite) or a type declaration, found {}",
                                     DescribeToken(t)));
    }
    return Status::Ok();
  }

  // ---- After the last token ----------------------------------------------------------

  Status Finish() {
    if (!trace_keyword_) return ErrorAt(Peek(), "no trace block: this is not CTF 1.8 metadata");
    for (const auto& type : native_fixups_) type->byte_order = trace_.byte_order;
    for (const auto& [name, token] : clock_refs_)
      if (!clock_names_.count(name))
        return ErrorAt(*token,
                       fmt::format("integer is mapped to clock '{}', which is not declared", name));

    if (streams_.empty() && !events_.empty()) {
      PendingStream implicit;
      implicit.where = events_.front().where;
      streams_.push_back(std::move(implicit));
    }
    std::stable_sort(
        streams_.begin(), streams_.end(),
        [](const PendingStream& a, const PendingStream& b) { return a.stream.id < b.stream.id; });
    std::vector<std::vector<const PendingEvent*>> per_stream(streams_.size());
    for (const PendingEvent& e : events_) {
      auto it =
          std::lower_bound(streams_.begin(), streams_.end(), e.event.stream_id,
                           [](const PendingStream& s, uint64_t id) { return s.stream.id < id; });
      if (it == streams_.end() || it->stream.id != e.event.stream_id)
        return ErrorAt(*e.where,
                       fmt::format("event '{}' belongs to stream {}, which is not declared",
                                   e.event.name, e.event.stream_id));
      per_stream[static_cast<size_t>(it - streams_.begin())].push_back(&e);
    }
    for (size_t i = 0; i < streams_.size(); ++i) {
      auto& list = per_stream[i];
      std::stable_sort(list.begin(), list.end(), [](const PendingEvent* a, const PendingEvent* b) {
        return a->event.id < b->event.id;
      });
      for (size_t j = 1; j < list.size(); ++j) {
        if (list[j]->event.id != list[j - 1]->event.id) continue;
        const PendingEvent* first = list[j - 1];
        const PendingEvent* second = list[j];
        if (second->where->line < first->where->line ||
            (second->where->line == first->where->line &&
             second->where->column < first->where->column))
          std::swap(first, second);
        return ErrorAt(*second->where,
                       fmt::format("duplicate event id {} in stream {}: '{}' and '{}' (line {})",
                                   second->event.id, streams_[i].stream.id, second->event.name,
                                   first->event.name, first->where->line));
      }
    }
    for (size_t i = 0; i < streams_.size(); ++i) {
      StreamClass& s = streams_[i].stream;
      s.events.reserve(per_stream[i].size());
      for (const PendingEvent* e : per_stream[i]) s.events.push_back(e->event);
      trace_.streams.push_back(std::move(s));
    }
    return Status::Ok();
  }

  TsdlTokens lexed_;
  const std::vector<Token>& tokens_;
  size_t pos_ = 0;
  uint32_t nesting_ = 0;
  std::vector<Scope> scopes_;
  std::vector<std::shared_ptr<Type>> native_fixups_;
  std::vector<std::pair<std::string, const Token*>> clock_refs_;
  TraceClass trace_;
  const Token* trace_keyword_ = nullptr;
  std::vector<PendingStream> streams_;
  std::unordered_map<uint64_t, uint32_t> stream_lines_;  // id -> line of its `id` value
  std::unordered_map<std::string, size_t> env_index_;    // key -> index in trace_.env
  std::unordered_set<std::string> clock_names_;
  std::vector<PendingEvent> events_;
};

}  // namespace

StatusOr<TraceClass> ParseTsdl(std::string_view text) { return Parser(text).Run(); }

}  // namespace causeway::ctf
