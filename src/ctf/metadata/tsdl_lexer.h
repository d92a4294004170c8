// The TSDL lexer: turns CTF 1.8 metadata text into tokens with line and column.
//
// Keywords are not a token kind: `struct`, `integer`, `trace`, … are identifiers, and the
// parser decides by context (so a field may be called `id` or `name`). Comments and
// white space are dropped. On a lexical error the token list ends with one kError token
// placed where the bad text starts, and TsdlTokens::error holds the message; the parser
// reports it when it gets there, so errors come out in text order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace causeway::ctf {

enum class TokenKind : uint8_t {
  kIdentifier,
  kInteger,      // value in `integer` (magnitude; a leading '-' is a separate token)
  kString,       // unescaped contents in TsdlTokens::strings[string_index]
  kLBrace,       // {
  kRBrace,       // }
  kLParen,       // (
  kRParen,       // )
  kLBracket,     // [
  kRBracket,     // ]
  kLAngle,       // <
  kRAngle,       // >
  kSemicolon,    // ;
  kComma,        // ,
  kEquals,       // =
  kColon,        // :
  kColonEquals,  // :=
  kDot,          // .
  kEllipsis,     // ...
  kMinus,        // -
  kPlus,         // +
  kEnd,          // end of input (always the last token unless kError is)
  kError,        // a lexical error; TsdlTokens::error holds it
};

// Kept small (40 bytes): a 300 KB metadata file has about 100,000 tokens.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  uint32_t line = 1;          // 1-based
  uint32_t column = 1;        // 1-based, in bytes
  uint32_t string_index = 0;  // kString
  std::string_view text;      // the source text of the token (points into the input)
  uint64_t integer = 0;       // kInteger
};

struct TsdlTokens {
  std::vector<Token> tokens;         // ends with a kEnd or a kError token
  std::vector<std::string> strings;  // unescaped string literals
  Status error;                      // set when tokens.back() is kError

  const std::string& StringValue(const Token& t) const { return strings[t.string_index]; }
};

// Splits `text` into tokens, which point into `text`: it must outlive them.
TsdlTokens TokenizeTsdl(std::string_view text);

// How a token is named in messages: 'foo', '}', '42', "abc", end of input.
std::string DescribeToken(const Token& token);

// "TSDL syntax error at line L, column C: MESSAGE" (kDataLoss).
Status TsdlSyntaxError(uint32_t line, uint32_t column, const std::string& message);
// "TSDL error at line L, column C: MESSAGE" for meaning errors (unknown names, bad values).
Status TsdlError(uint32_t line, uint32_t column, const std::string& message,
                 StatusCode code = StatusCode::kDataLoss);

}  // namespace causeway::ctf
