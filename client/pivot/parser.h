// Lexer and recursive-descent parser of the Pivot Tracing query language (query.h).
//
// Keywords (From In Join On Where GroupBy Select And Or Not True False, the join kinds and the
// aggregates) are case-insensitive. Errors read
//   "line 2, column 9: expected 'In', found identifier 'Inn'".
// The input size and the nesting depth are bounded, so any input terminates quickly and
// without exhausting the stack.
#pragma once

#include <string_view>

#include "base/status.h"
#include "pivot/query.h"

namespace causeway::pivot {

inline constexpr size_t kMaxQueryBytes = 64 * 1024;
inline constexpr int kMaxNestingDepth = 32;  // nested queries plus parentheses

StatusOr<Query> Parse(std::string_view text);

}  // namespace causeway::pivot
