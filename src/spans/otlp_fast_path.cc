#include "spans/otlp_fast_path.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "spans/hex_ids.h"

namespace causeway::spans {
namespace {

namespace od = simdjson::ondemand;
using simdjson::SUCCESS;

// A member name without escapes. Names the reader knows are compared raw (a match cannot
// hide an escape); any other name is checked with this, since once unescaped it might be
// one of the known names, which only the DOM reader would see.
bool PlainKey(const od::raw_json_string& key) {
  for (const char* p = key.raw(); *p != '"'; ++p)
    if (*p == '\\') return false;
  return true;
}

// True when the raw (unescaped) member name is `name`: as simdjson's `key == "name"`, a
// name with an escape never matches. Inline, with the length known at compile time, where
// simdjson's == calls memcmp (two dozen calls a span). Reads up to 24 bytes from the name's start:
// inside the document or its padding (SIMDJSON_PADDING, 64 bytes). A shorter raw name ends with its
// quote where `name` has a letter, so it never matches (the same reasoning as simdjson's ==).
template <size_t N>
inline bool KeyIs(const od::raw_json_string& key, const char (&name)[N]) {
  static_assert(N - 1 <= 24, "longer names: use simdjson's ==");
  const char* r = key.raw();
  if (r[N - 1] != '"') return false;  // most names differ in length
  // Compared 8 bytes at a time, the bytes past the name masked off: the name's words
  // fold to constants once inlined.
  char padded[24] = {};
  std::memcpy(padded, name, N - 1);
  uint64_t diff = 0;
  for (size_t at = 0; at < N - 1; at += 8) {
    uint64_t a, b;
    std::memcpy(&a, r + at, 8);
    std::memcpy(&b, padded + at, 8);
    const size_t left = N - 1 - at;
    const uint64_t mask = left >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * left)) - 1;
    diff |= (a ^ b) & mask;
  }
  return diff == 0;
}

// simdjson's DOM parser refuses documents nested deeper than this: so does the walk below
// (which would otherwise recurse as deep as the input goes).
constexpr int kMaxDepth = 1024;

// Walks a value the model does not read, only to check that it is valid JSON: On-Demand
// would otherwise skip it by counting brackets, and a broken value there (a stray quote
// turns the rest of the line inside out) could be read as something else instead of being
// refused as the DOM reader refuses it. Names need no check: any name with an escape sends
// the document to the DOM reader, and stage 1 checked every string's UTF-8 and closing quote.
bool Valid(od::value& v, int depth = 0) {
  od::json_type type;
  if (depth > kMaxDepth || v.type().get(type) != SUCCESS) return false;
  switch (type) {
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) != SUCCESS) return false;
      for (auto member : o) {
        od::field f;
        if (std::move(member).get(f) != SUCCESS || !PlainKey(f.key()) ||
            !Valid(f.value(), depth + 1))
          return false;
      }
      return true;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) != SUCCESS) return false;
      for (auto element : a) {
        od::value e;
        if (std::move(element).get(e) != SUCCESS || !Valid(e, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      return v.get_string().get(s) == SUCCESS;
    }
    case od::json_type::number: {
      simdjson::ondemand::number n;
      return v.get_number().get(n) == SUCCESS;
    }
    case od::json_type::boolean: {
      bool b = false;
      return v.get_bool().get(b) == SUCCESS;
    }
    case od::json_type::null: {
      bool null = false;
      return v.is_null().get(null) == SUCCESS && null;
    }
  }
  return false;
}

bool String(od::value& v, std::string_view* out) { return v.get_string().get(*out) == SUCCESS; }

// A 64-bit integer written as a decimal string (OTLP JSON) or as a number.
bool Int64(od::value& v, int64_t* out) {
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  if (type == od::json_type::string) return v.get_int64_in_string().get(*out) == SUCCESS;
  if (type == od::json_type::number) return v.get_int64().get(*out) == SUCCESS;
  return false;
}

// An AnyValue holding an integer: {"intValue": …} or {"stringValue": …}. Sets `*found` when
// it holds one; false when its shape is not the common one (the DOM reader decides).
bool AnyValueInt(od::value& v, int64_t* out, bool* found) {
  od::object o;
  if (v.get_object().get(o) != SUCCESS) return false;
  int members = 0;
  for (auto member : o) {
    od::field f;
    if (std::move(member).get(f) != SUCCESS || ++members > 1) return false;
    const od::raw_json_string key = f.key();
    if (KeyIs(key, "intValue") || KeyIs(key, "stringValue")) {
      if (!Int64(f.value(), out)) return false;
      *found = true;
    } else if (!PlainKey(key) || !Valid(f.value())) {
      return false;
    }
  }
  return true;
}

// An attribute list [{"key": …, "value": …}, …], calling `f(key, value)` for each; false
// when an element has another shape (or `f` returns false).
template <typename F>
bool ForEachAttribute(od::value& list, F&& f) {
  od::array a;
  if (list.get_array().get(a) != SUCCESS) return false;
  for (auto element : a) {
    od::object kv;
    if (element.get_object().get(kv) != SUCCESS) return false;
    int members = 0;
    std::string_view key;
    for (auto member : kv) {
      od::field m;
      if (std::move(member).get(m) != SUCCESS) return false;
      ++members;
      const od::raw_json_string name = m.key();
      if (members == 1 && KeyIs(name, "key")) {
        if (!String(m.value(), &key)) return false;
      } else if (members == 2 && KeyIs(name, "value")) {
        if (!f(key, m.value())) return false;
      } else {
        return false;
      }
    }
    if (members != 2) return false;
  }
  return true;
}

SpanKind KindOf(int64_t k) {
  return k >= 1 && k <= 5 ? static_cast<SpanKind>(k) : SpanKind::kUnspecified;
}
bool Kind(od::value& v, SpanKind* out) {
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  if (type == od::json_type::number) {
    int64_t k = 0;
    if (v.get_int64().get(k) != SUCCESS) return false;
    *out = KindOf(k);
    return true;
  }
  std::string_view s;
  if (type != od::json_type::string || !String(v, &s)) return false;
  *out = s == "SPAN_KIND_INTERNAL"   ? SpanKind::kInternal
         : s == "SPAN_KIND_SERVER"   ? SpanKind::kServer
         : s == "SPAN_KIND_CLIENT"   ? SpanKind::kClient
         : s == "SPAN_KIND_PRODUCER" ? SpanKind::kProducer
         : s == "SPAN_KIND_CONSUMER" ? SpanKind::kConsumer
                                     : SpanKind::kUnspecified;
  return true;
}

// The span attributes the model reads: the thread id and the connection's ports.
bool SpanAttribute(std::string_view key, od::value& v, Span* s) {
  const SpanAttributeKey which = SpanAttributeOf(key);
  if (which == SpanAttributeKey::kOther) return Valid(v);
  int64_t t = 0;
  bool found = false;
  if (!AnyValueInt(v, &t, &found)) return false;
  if (found) SetSpanAttribute(which, t, s);
  return true;
}

bool ParseSpan(od::value& v, const std::string* service, int32_t pid, SpanNames* names, Span* s) {
  od::object o;
  if (v.get_object().get(o) != SUCCESS) return false;
  enum : unsigned {
    kTrace = 1,
    kSpan = 2,
    kParent = 4,
    kName = 8,
    kKindBit = 16,
    kStart = 32,
    kEnd = 64,
    kAttributes = 128
  };
  unsigned seen = 0;
  auto first = [&seen](unsigned bit) {
    if (seen & bit) return false;  // a member twice: the DOM reader takes the first
    seen |= bit;
    return true;
  };
  s->service = service;
  s->pid = pid;
  std::string_view text;
  for (auto member : o) {
    od::field f;
    if (std::move(member).get(f) != SUCCESS) return false;
    const od::raw_json_string key = f.key();
    od::value& value = f.value();
    if (KeyIs(key, "traceId")) {
      if (!first(kTrace) || !String(value, &text) || !ParseTraceIdHex(text, &s->trace))
        return false;
    } else if (KeyIs(key, "spanId")) {
      if (!first(kSpan) || !String(value, &text) || !ParseHex(text, &s->span_id) || s->span_id == 0)
        return false;
    } else if (KeyIs(key, "parentSpanId")) {
      if (!first(kParent) || !String(value, &text)) return false;
      if (!text.empty() && !ParseHex(text, &s->parent_span_id)) return false;
    } else if (KeyIs(key, "name")) {
      if (!first(kName) || !String(value, &text)) return false;
      s->operation = names->Intern(text);
    } else if (KeyIs(key, "kind")) {
      if (!first(kKindBit) || !Kind(value, &s->kind)) return false;
    } else if (KeyIs(key, "startTimeUnixNano")) {
      if (!first(kStart) || !Int64(value, &s->start_ns)) return false;
    } else if (KeyIs(key, "endTimeUnixNano")) {
      if (!first(kEnd) || !Int64(value, &s->end_ns)) return false;
    } else if (KeyIs(key, "attributes")) {
      if (!first(kAttributes)) return false;
      const bool ok = ForEachAttribute(
          value, [s](std::string_view k, od::value& attr) { return SpanAttribute(k, attr, s); });
      if (!ok) return false;
    } else if (!PlainKey(key) || !Valid(value)) {
      return false;
    }
  }
  constexpr unsigned kRequired = kTrace | kSpan | kStart | kEnd;
  return (seen & kRequired) == kRequired && s->end_ns >= s->start_ns;
}

bool ParseScopeSpans(od::value& v, const std::string* service, int32_t pid, SpanNames* names,
                     std::vector<Span>* spans) {
  od::array scopes;
  if (v.get_array().get(scopes) != SUCCESS) return false;
  for (auto scope_el : scopes) {
    od::object scope;
    if (scope_el.get_object().get(scope) != SUCCESS) return false;
    bool seen_spans = false;
    for (auto member : scope) {
      od::field f;
      if (std::move(member).get(f) != SUCCESS) return false;
      const od::raw_json_string key = f.key();
      if (KeyIs(key, "spans")) {
        if (seen_spans) return false;
        seen_spans = true;
        od::array list;
        if (f.value().get_array().get(list) != SUCCESS) return false;
        for (auto span_el : list) {
          od::value span;
          if (std::move(span_el).get(span) != SUCCESS) return false;
          if (!ParseSpan(span, service, pid, names, &spans->emplace_back())) return false;
        }
      } else if (!PlainKey(key) || !Valid(f.value())) {
        return false;
      }
    }
  }
  return true;
}

bool ParseResourceSpans(od::value& v, SpanNames* names, std::vector<Span>* spans) {
  od::array list;
  if (v.get_array().get(list) != SUCCESS) return false;
  for (auto rs_el : list) {
    od::object rs;
    if (rs_el.get_object().get(rs) != SUCCESS) return false;
    const std::string* service = names->Intern("unknown_service");
    int64_t pid = 0;
    bool seen_resource = false, seen_scopes = false;
    for (auto member : rs) {
      od::field f;
      if (std::move(member).get(f) != SUCCESS) return false;
      const od::raw_json_string key = f.key();
      if (KeyIs(key, "resource")) {
        // The spans take the resource's service: it must come first.
        if (seen_resource || seen_scopes) return false;
        seen_resource = true;
        od::object resource;
        if (f.value().get_object().get(resource) != SUCCESS) return false;
        bool seen_attributes = false;
        for (auto r_member : resource) {
          od::field rf;
          if (std::move(r_member).get(rf) != SUCCESS) return false;
          const od::raw_json_string r_key = rf.key();
          if (KeyIs(r_key, "attributes")) {
            if (seen_attributes) return false;
            seen_attributes = true;
            const bool ok = ForEachAttribute(rf.value(), [&](std::string_view k, od::value& attr) {
              if (k == "service.name") {
                od::object o;
                if (attr.get_object().get(o) != SUCCESS) return false;
                int members = 0;
                for (auto m : o) {
                  od::field sf;
                  std::string_view name;
                  if (std::move(m).get(sf) != SUCCESS || ++members > 1 ||
                      !KeyIs(sf.key(), "stringValue") || !String(sf.value(), &name))
                    return false;
                  service = names->Intern(name);
                }
                return members == 1;
              }
              if (k == "process.pid") {
                bool found = false;
                return AnyValueInt(attr, &pid, &found);
              }
              return Valid(attr);
            });
            if (!ok) return false;
          } else if (!PlainKey(r_key) || !Valid(rf.value())) {
            return false;
          }
        }
      } else if (KeyIs(key, "scopeSpans")) {
        if (seen_scopes) return false;
        seen_scopes = true;
        if (!ParseScopeSpans(f.value(), service, static_cast<int32_t>(pid), names, spans))
          return false;
      } else if (key == "instrumentationLibrarySpans" || !PlainKey(key) || !Valid(f.value())) {
        return false;  // the name before OTLP 0.15: the DOM reader knows when it counts
      }
    }
  }
  return true;
}

}  // namespace

bool ParseOtlpFast(od::parser& parser, const char* data, size_t size, size_t capacity,
                   SpanNames* names, std::vector<Span>* spans) {
  const size_t before = spans->size();
  auto fail = [&] {
    spans->resize(before);
    return false;
  };
  od::document doc;
  if (parser.iterate(data, size, capacity).get(doc) != SUCCESS) return fail();
  od::object top;
  if (doc.get_object().get(top) != SUCCESS) return fail();
  bool seen = false;
  for (auto member : top) {
    od::field f;
    if (std::move(member).get(f) != SUCCESS) return fail();
    const od::raw_json_string key = f.key();
    if (KeyIs(key, "resourceSpans")) {
      if (seen) return fail();
      seen = true;
      if (!ParseResourceSpans(f.value(), names, spans)) return fail();
    } else if (!PlainKey(key) || !Valid(f.value())) {
      return fail();
    }
  }
  if (!seen) return fail();
  // On-Demand stops at the end of the first value: anything but whitespace after it (a
  // second document on the line, a stray brace) is for the DOM reader to refuse.
  std::string_view consumed;
  if (doc.raw_json().get(consumed) != SUCCESS) return fail();
  for (const char* p = consumed.data() + consumed.size(); p < data + size; ++p)
    if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') return fail();
  return true;
}

}  // namespace causeway::spans
