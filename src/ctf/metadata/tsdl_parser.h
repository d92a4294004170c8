// The TSDL parser: CTF 1.8 metadata text -> TraceClass.
//
// A hand-written recursive-descent parser over the tokens of tsdl_lexer.h. It resolves
// every type name as it goes (typealias, typedef, named struct/enum/variant, with block
// scoping), so the TraceClass it returns holds complete type trees; only variant tags and
// sequence lengths stay as text (Type::ref) for the plan compiler to resolve.
//
// Errors carry the position of the offending token:
//   "TSDL syntax error at line 12, column 5: expected ';' after field declaration, found '}'"
//   "TSDL error at line 3, column 9: unknown type name 'uint33_t'"
// Syntax and meaning errors are kDataLoss; valid CTF we do not handle (integers over 64
// bits, floats other than binary32/binary64, CTF 2) is kUnimplemented. README.md lists
// the invariants of the result.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "ctf/metadata/trace_class.h"

namespace causeway::ctf {

// Types, struct and variant bodies may nest at most this deep (parser recursion and the
// depth of the resulting type trees are both capped, so hostile input cannot blow the stack).
inline constexpr uint32_t kMaxTsdlNesting = 64;
// Types are DAGs (a typealias used twice is one node), so a small text can describe a
// huge tree: `typedef struct { t0 a; t0 b; } t1;` repeated doubles it each time. No type
// may have more nodes than this once expanded, so walking a tree is always cheap.
inline constexpr uint64_t kMaxTsdlTypeNodes = uint64_t{1} << 20;

StatusOr<TraceClass> ParseTsdl(std::string_view text);

}  // namespace causeway::ctf
