// The common shape of OTLP JSON span documents, read with simdjson's On-Demand parser.
//
// Why: with the DOM parser, a span file is parsed twice over — simdjson builds a tape of
// every value, then the reader walks it looking members up — a large share of `causeway
// requests`'s work on a recording of many requests. On-Demand parses values where
// the reader stands, in document order, and skips what it does not read.
//
// Invariant: for a document this path accepts, the spans are exactly those the DOM reader
// (span_reader.cc) would give, in the same order. It accepts only what causeway-client and
// OTLP file exporters write: a single `resourceSpans` member; `resource` before
// `scopeSpans`; attributes as {"key": string, "value": {one member}}; ids, names and times
// of the expected types; no member twice; no escaped member name. Anything else — and
// every error — returns false having changed nothing, and the caller parses the document
// with the DOM reader, which names the error or handles the rare shape. Values the model
// does not read (a scope, other attributes' values) are walked too, to check that they are
// valid JSON: On-Demand alone would skip them by counting brackets, and read a document the
// DOM reader refuses (a stray quote there turns the rest of the line inside out).
#pragma once

#include <cstddef>
#include <vector>

#include <simdjson.h>

#include "spans/span_model.h"

namespace causeway::spans {

// Parses the document in [data, data + size), whose buffer holds at least
// size + simdjson::SIMDJSON_PADDING readable bytes. On success appends its spans to
// `*spans`, their names in `*names`, and returns true; otherwise leaves `*spans` as it was
// and returns false (`*names` may have gained names no span uses).
bool ParseOtlpFast(simdjson::ondemand::parser& parser, const char* data, size_t size,
                   size_t capacity, SpanNames* names, std::vector<Span>* spans);

}  // namespace causeway::spans
