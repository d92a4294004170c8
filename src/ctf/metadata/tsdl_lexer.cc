#include "ctf/metadata/tsdl_lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace causeway::ctf {
namespace {

// Character classes: 1 = identifier start, 2 = digit.
constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<size_t>(c)] = 1;
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<size_t>(c)] = 1;
  table['_'] = 1;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<size_t>(c)] = 2;
  return table;
}();

inline bool IsIdentStart(char c) { return kCharClass[static_cast<uint8_t>(c)] == 1; }
inline bool IsDigit(char c) { return kCharClass[static_cast<uint8_t>(c)] == 2; }
inline bool IsIdentChar(char c) { return kCharClass[static_cast<uint8_t>(c)] != 0; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  TsdlTokens Run() {
    // Real metadata has about one token per 4 bytes; reserving more costs only address
    // space, while growing would copy megabytes.
    out_.tokens.reserve(std::min<size_t>(text_.size() / 3 + 16, size_t{1} << 20));
    while (true) {
      if (!SkipSpaceAndComments()) break;
      Token token;
      token.line = line_;
      token.column = Column();
      if (pos_ >= text_.size()) {
        token.kind = TokenKind::kEnd;
        out_.tokens.push_back(token);
        break;
      }
      size_t start = pos_;
      if (!LexOne(token)) break;
      token.text = text_.substr(start, pos_ - start);
      out_.tokens.push_back(token);
    }
    return std::move(out_);
  }

 private:
  uint32_t Column() const { return static_cast<uint32_t>(pos_ - line_start_ + 1); }

  bool Fail(uint32_t line, uint32_t column, const std::string& message) {
    Token error;
    error.kind = TokenKind::kError;
    error.line = line;
    error.column = column;
    out_.tokens.push_back(error);
    out_.error = TsdlSyntaxError(line, column, message);
    return false;
  }

  void NewLine() {
    ++line_;
    line_start_ = pos_ + 1;
  }

  bool SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        NewLine();
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        uint32_t line = line_, column = Column();
        pos_ += 2;
        bool closed = false;
        while (pos_ < text_.size()) {
          if (text_[pos_] == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
            pos_ += 2;
            closed = true;
            break;
          }
          if (text_[pos_] == '\n') NewLine();
          ++pos_;
        }
        if (!closed) return Fail(line, column, "unterminated comment");
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return true;
      }
    }
    return true;
  }

  bool LexOne(Token& token) {
    char c = text_[pos_];
    if (IsIdentStart(c)) {
      token.kind = TokenKind::kIdentifier;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      return true;
    }
    if (IsDigit(c)) return LexInteger(token);
    if (c == '"') return LexString(token);
    auto single = [&](TokenKind kind) {
      token.kind = kind;
      ++pos_;
      return true;
    };
    switch (c) {
      case '{':
        return single(TokenKind::kLBrace);
      case '}':
        return single(TokenKind::kRBrace);
      case '(':
        return single(TokenKind::kLParen);
      case ')':
        return single(TokenKind::kRParen);
      case '[':
        return single(TokenKind::kLBracket);
      case ']':
        return single(TokenKind::kRBracket);
      case '<':
        return single(TokenKind::kLAngle);
      case '>':
        return single(TokenKind::kRAngle);
      case ';':
        return single(TokenKind::kSemicolon);
      case ',':
        return single(TokenKind::kComma);
      case '=':
        return single(TokenKind::kEquals);
      case '-':
        return single(TokenKind::kMinus);
      case '+':
        return single(TokenKind::kPlus);
      case ':':
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
          token.kind = TokenKind::kColonEquals;
          pos_ += 2;
          return true;
        }
        return single(TokenKind::kColon);
      case '.':
        if (text_.substr(pos_, 3) == "...") {
          token.kind = TokenKind::kEllipsis;
          pos_ += 3;
          return true;
        }
        return single(TokenKind::kDot);
      default:
        break;
    }
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x21 && byte < 0x7f)
      return Fail(token.line, token.column, fmt::format("unexpected character '{}'", c));
    return Fail(token.line, token.column, fmt::format("unexpected byte 0x{:02x}", byte));
  }

  bool LexInteger(Token& token) {
    token.kind = TokenKind::kInteger;
    size_t start = pos_;
    unsigned radix = 10;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
      radix = 16;
      pos_ += 2;
    } else if (text_[pos_] == '0') {
      radix = 8;
    }
    size_t digits_start = pos_;
    uint64_t value = 0;
    bool overflow = false;
    while (pos_ < text_.size()) {
      int digit = HexValue(text_[pos_]);
      if (digit < 0 || (radix != 16 && !IsDigit(text_[pos_]))) break;
      if (static_cast<unsigned>(digit) >= radix)
        return Fail(token.line, token.column,
                    fmt::format("invalid digit '{}' in octal integer literal", text_[pos_]));
      if (value > (UINT64_MAX - static_cast<uint64_t>(digit)) / radix) overflow = true;
      value = value * radix + static_cast<uint64_t>(digit);
      ++pos_;
    }
    if (radix == 16 && pos_ == digits_start)
      return Fail(token.line, token.column, "hexadecimal integer literal has no digits");
    while (pos_ < text_.size() &&
           (text_[pos_] == 'u' || text_[pos_] == 'U' || text_[pos_] == 'l' || text_[pos_] == 'L'))
      ++pos_;
    if (pos_ < text_.size() &&
        (IsIdentChar(text_[pos_]) || (text_[pos_] == '.' && text_.substr(pos_, 3) != "..."))) {
      size_t end = pos_;
      while (end < text_.size() && (IsIdentChar(text_[end]) || text_[end] == '.')) ++end;
      return Fail(token.line, token.column,
                  fmt::format("invalid integer literal '{}'", text_.substr(start, end - start)));
    }
    if (overflow)
      return Fail(token.line, token.column,
                  fmt::format("integer literal '{}' does not fit in 64 bits",
                              text_.substr(start, pos_ - start)));
    token.integer = value;
    return true;
  }

  bool LexString(Token& token) {
    token.kind = TokenKind::kString;
    token.string_index = static_cast<uint32_t>(out_.strings.size());
    ++pos_;  // opening quote
    std::string& out = out_.strings.emplace_back();
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n')
        return Fail(token.line, token.column, "unterminated string literal");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      uint32_t escape_column = Column();
      ++pos_;
      if (pos_ >= text_.size())
        return Fail(token.line, token.column, "unterminated string literal");
      char e = text_[pos_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'v':
          out += '\v';
          break;
        case '\\':
          out += '\\';
          break;
        case '"':
          out += '"';
          break;
        case '\'':
          out += '\'';
          break;
        case '?':
          out += '?';
          break;
        case '\n':
          NewLine();
          break;  // line continuation
        case 'x': {
          unsigned value = 0;
          int count = 0;
          while (pos_ < text_.size() && count < 2 && HexValue(text_[pos_]) >= 0) {
            value = value * 16 + static_cast<unsigned>(HexValue(text_[pos_]));
            ++pos_;
            ++count;
          }
          if (count == 0)
            return Fail(token.line, escape_column, "\\x escape without hexadecimal digits");
          out += static_cast<char>(value);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            unsigned value = static_cast<unsigned>(e - '0');
            for (int i = 0;
                 i < 2 && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '7';
                 ++i, ++pos_)
              value = value * 8 + static_cast<unsigned>(text_[pos_] - '0');
            out += static_cast<char>(value & 0xff);
            break;
          }
          return Fail(token.line, escape_column,
                      fmt::format("unknown escape sequence '\\{}' in string literal",
                                  static_cast<unsigned char>(e) >= 0x20 &&
                                          static_cast<unsigned char>(e) < 0x7f
                                      ? std::string(1, e)
                                      : fmt::format("x{:02x}", static_cast<unsigned char>(e))));
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  TsdlTokens out_;
};

}  // namespace

TsdlTokens TokenizeTsdl(std::string_view text) { return Lexer(text).Run(); }

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kError:
      return "invalid text";
    case TokenKind::kString: {
      std::string_view text = token.text;
      if (text.size() > 40) return fmt::format("string {}...\"", text.substr(0, 36));
      return fmt::format("string {}", text);
    }
    default: {
      std::string_view text = token.text;
      if (text.size() > 40) return fmt::format("'{}...'", text.substr(0, 36));
      return fmt::format("'{}'", text);
    }
  }
}

Status TsdlSyntaxError(uint32_t line, uint32_t column, const std::string& message) {
  return DataLoss(
      fmt::format("TSDL syntax error at line {}, column {}: {}", line, column, message));
}

Status TsdlError(uint32_t line, uint32_t column, const std::string& message, StatusCode code) {
  return Status(code, fmt::format("TSDL error at line {}, column {}: {}", line, column, message));
}

}  // namespace causeway::ctf
