#include "spans/span_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include "base/fast_transform.h"
#include "base/file_bytes.h"
#include "base/line_reader.h"
#include "ctf/metadata/metadata_file.h"
#include "ctf/reader/event_reader.h"
#include "spans/hex_ids.h"
#include "spans/otlp_fast_path.h"

namespace causeway::spans {
namespace {

namespace fs = std::filesystem;
using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Where in the document we are, for error messages.
struct Where {
  const std::string& file;
  std::string path;
  Status Error(const std::string& what) const {
    return DataLoss(fmt::format("Cannot read spans: file={}: {}: {}", file, path, what));
  }
};

// An object member that may be missing.
struct Field {
  bool present = false;
  element value;
};
Field Get(const object& o, std::string_view key) {
  Field f;
  f.present = o.at_key(key).get(f.value) == SUCCESS;
  return f;
}
bool String(const Field& f, std::string_view* out) {
  return f.present && f.value.get_string().get(*out) == SUCCESS;
}
bool Object(const Field& f, object* out) {
  return f.present && f.value.get_object().get(*out) == SUCCESS;
}
bool Array(const Field& f, array* out) {
  return f.present && f.value.get_array().get(*out) == SUCCESS;
}

Status ParseTraceId(const Field& f, const Where& w, TraceId* out) {
  std::string_view s;
  if (!String(f, &s)) return w.Error("trace id is not a string");
  // 32 hex digits (OTLP, Jaeger); Jaeger also writes 64-bit ids as 16.
  if (s.size() > 32 || s.empty()) return w.Error(fmt::format("trace id '{}' is not hex", s));
  const size_t split = s.size() > 16 ? s.size() - 16 : 0;
  uint64_t high = 0, low = 0;
  if ((split && !ParseHex(s.substr(0, split), &high)) || !ParseHex(s.substr(split), &low))
    return w.Error(fmt::format("trace id '{}' is not hex", s));
  if ((high | low) == 0) return w.Error("trace id is all zeros");
  *out = {high, low};
  return Status::Ok();
}

// The same without an error message: the per-span fast path (the message, and the path
// it names, are only built when this fails).
bool ParseTraceIdFast(const Field& f, TraceId* out) {
  std::string_view s;
  return String(f, &s) && ParseTraceIdHex(s, out);
}
bool ParseSpanIdFast(const Field& f, uint64_t* out) {
  std::string_view s;
  return String(f, &s) && ParseHex(s, out);
}

Status ParseSpanId(const Field& f, const Where& w, const char* what, uint64_t* out) {
  std::string_view s;
  if (!String(f, &s)) return w.Error(fmt::format("{} is not a string", what));
  if (!ParseHex(s, out)) return w.Error(fmt::format("{} '{}' is not 16 hex digits", what, s));
  return Status::Ok();
}

// OTLP JSON writes 64-bit integers as decimal strings; some writers use numbers.
bool ParseInt64(const Field& f, int64_t* out) {
  if (!f.present) return false;
  int64_t i = 0;
  uint64_t u = 0;
  std::string_view s;
  if (f.value.get_int64().get(i) == SUCCESS) {
    *out = i;
    return true;
  }
  if (f.value.get_uint64().get(u) == SUCCESS) {
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (f.value.get_string().get(s) == SUCCESS && !s.empty()) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec != std::errc() || end != s.data() + s.size()) return false;
    *out = i;
    return true;
  }
  return false;
}

SpanKind OtlpKind(const Field& f) {
  if (!f.present) return SpanKind::kUnspecified;
  int64_t k = 0;
  if (f.value.get_int64().get(k) == SUCCESS)
    return k >= 1 && k <= 5 ? static_cast<SpanKind>(k) : SpanKind::kUnspecified;
  std::string_view s;
  if (f.value.get_string().get(s) == SUCCESS) {
    if (s == "SPAN_KIND_INTERNAL") return SpanKind::kInternal;
    if (s == "SPAN_KIND_SERVER") return SpanKind::kServer;
    if (s == "SPAN_KIND_CLIENT") return SpanKind::kClient;
    if (s == "SPAN_KIND_PRODUCER") return SpanKind::kProducer;
    if (s == "SPAN_KIND_CONSUMER") return SpanKind::kConsumer;
  }
  return SpanKind::kUnspecified;
}

SpanKind JaegerKind(std::string_view s) {
  if (s == "server") return SpanKind::kServer;
  if (s == "client") return SpanKind::kClient;
  if (s == "producer") return SpanKind::kProducer;
  if (s == "consumer") return SpanKind::kConsumer;
  if (s == "internal") return SpanKind::kInternal;
  return SpanKind::kUnspecified;
}

// OTLP AnyValue: {"intValue": "12"} or {"stringValue": "x"}.
bool OtlpIntValue(const Field& value, int64_t* out) {
  object o;
  if (!Object(value, &o)) return false;
  if (Field i = Get(o, "intValue"); i.present) return ParseInt64(i, out);
  if (Field s = Get(o, "stringValue"); s.present) return ParseInt64(s, out);
  return false;
}

void AddSpan(Span s, SpanSet* out) {
  // Before 1970 on the Unix clock: no recording holds it, and as a request it would rank
  // slowest by decades.
  if (s.start_ns < 0) {
    ++out->negative_times;
    return;
  }
  auto [it, inserted] = out->by_id.emplace(s.span_id, out->spans.size());
  if (!inserted) {
    ++out->duplicates;
    return;
  }
  out->spans.push_back(std::move(s));
}

// An attribute list [{"key": …, "value": …}], calling `f(key, value)` for each well-formed one.
template <typename F>
void ForEachKeyValue(const Field& list, F&& f) {
  array a;
  if (!Array(list, &a)) return;
  for (element e : a) {
    object kv;
    std::string_view key;
    if (e.get_object().get(kv) != SUCCESS) continue;
    const Field value = Get(kv, "value");
    if (!String(Get(kv, "key"), &key) || !value.present) continue;
    f(key, value);
  }
}

// The members of an OTLP span the model reads, found in one pass over the object (looking
// each one up scans the members again: eight scans per span were a tenth of reading spans).
// As with a lookup, the first of duplicate members counts.
struct SpanFields {
  Field trace_id, span_id, parent, name, kind, start, end, attributes;
};
SpanFields SpanFieldsOf(const object& j) {
  SpanFields f;
  auto take = [](Field* field, element value) {
    if (field->present) return;
    field->present = true;
    field->value = value;
  };
  for (const auto [key, value] : j) {
    switch (key.size()) {
      case 4:
        if (key == "name") take(&f.name, value);
        if (key == "kind") take(&f.kind, value);
        break;
      case 6:
        if (key == "spanId") take(&f.span_id, value);
        break;
      case 7:
        if (key == "traceId") take(&f.trace_id, value);
        break;
      case 10:
        if (key == "attributes") take(&f.attributes, value);
        break;
      case 12:
        if (key == "parentSpanId") take(&f.parent, value);
        break;
      case 15:
        if (key == "endTimeUnixNano") take(&f.end, value);
        break;
      case 17:
        if (key == "startTimeUnixNano") take(&f.start, value);
        break;
      default:
        break;
    }
  }
  return f;
}

// The resources of one resourceSpans array; `*next_index` numbers them in error messages.
Status ParseOtlpResources(const array& rss, const std::string& file, size_t* next_index,
                          SpanSet* out) {
  size_t& r = *next_index;
  for (element rs_el : rss) {
    const size_t ri = r++;
    object rs;
    if (rs_el.get_object().get(rs) != SUCCESS) continue;
    const std::string* service = out->names->Intern("unknown_service");
    int64_t pid = 0;
    object resource;
    if (Object(Get(rs, "resource"), &resource)) {
      ForEachKeyValue(Get(resource, "attributes"), [&](std::string_view key, const Field& value) {
        object v;
        std::string_view name;
        if (key == "service.name" && Object(value, &v) && String(Get(v, "stringValue"), &name))
          service = out->names->Intern(name);
        if (key == "process.pid") OtlpIntValue(value, &pid);
      });
    }
    // "instrumentationLibrarySpans": the name before OTLP 0.15.
    Field scopes_f = Get(rs, "scopeSpans");
    const char* scope_key = "scopeSpans";
    if (!scopes_f.present) {
      scopes_f = Get(rs, "instrumentationLibrarySpans");
      scope_key = "instrumentationLibrarySpans";
    }
    if (!scopes_f.present) continue;
    array scopes;
    if (!Array(scopes_f, &scopes))
      return Where{file, fmt::format("resourceSpans[{}].{}", ri, scope_key)}.Error("not an array");
    size_t sc = 0;
    for (element scope_el : scopes) {
      const size_t sci = sc++;
      object scope;
      if (scope_el.get_object().get(scope) != SUCCESS) continue;
      const Field spans_f = Get(scope, "spans");
      if (!spans_f.present) continue;
      array spans;
      if (!Array(spans_f, &spans))
        return Where{file, fmt::format("resourceSpans[{}].{}[{}].spans", ri, scope_key, sci)}.Error(
            "not an array");
      size_t i = 0;
      for (element span_el : spans) {
        const size_t si = i++;
        // The path is only formatted when there is an error to report.
        auto where = [&] {
          return Where{file,
                       fmt::format("resourceSpans[{}].{}[{}].spans[{}]", ri, scope_key, sci, si)};
        };
        object j;
        if (span_el.get_object().get(j) != SUCCESS) return where().Error("not an object");
        const SpanFields f = SpanFieldsOf(j);
        Span s;
        s.service = service;
        s.pid = static_cast<int32_t>(pid);
        const Field &trace_id = f.trace_id, &span_id = f.span_id;
        if (!ParseTraceIdFast(trace_id, &s.trace))
          RETURN_IF_ERROR(ParseTraceId(trace_id, where(), &s.trace));
        if (!ParseSpanIdFast(span_id, &s.span_id))
          RETURN_IF_ERROR(ParseSpanId(span_id, where(), "spanId", &s.span_id));
        if (s.span_id == 0) return where().Error("spanId is all zeros");
        std::string_view text;
        const Field& parent = f.parent;
        if (String(parent, &text) && !text.empty() && !ParseSpanIdFast(parent, &s.parent_span_id))
          RETURN_IF_ERROR(ParseSpanId(parent, where(), "parentSpanId", &s.parent_span_id));
        if (String(f.name, &text)) s.operation = out->names->Intern(text);
        s.kind = OtlpKind(f.kind);
        if (!ParseInt64(f.start, &s.start_ns))
          return where().Error("startTimeUnixNano is missing or not an integer");
        if (!ParseInt64(f.end, &s.end_ns))
          return where().Error("endTimeUnixNano is missing or not an integer");
        if (s.end_ns < s.start_ns) return where().Error("ends before it starts");
        ForEachKeyValue(f.attributes, [&](std::string_view key, const Field& value) {
          int64_t v = 0;
          const SpanAttributeKey which = SpanAttributeOf(key);
          if (which != SpanAttributeKey::kOther && OtlpIntValue(value, &v))
            SetSpanAttribute(which, v, &s);
        });
        AddSpan(std::move(s), out);
      }
    }
  }
  return Status::Ok();
}

// Every "resourceSpans" member of the document: a lookup finds the first of a name given
// twice, and the spans of the others would be lost without a word. The resources are
// numbered across them, as one list.
Status ParseOtlp(const object& doc, const std::string& file, SpanSet* out) {
  size_t r = 0;
  for (const auto [member, value] : doc) {
    if (member != "resourceSpans") continue;
    array rss;
    if (value.get_array().get(rss) != SUCCESS)
      return Where{file, "resourceSpans"}.Error("not an array");
    RETURN_IF_ERROR(ParseOtlpResources(rss, file, &r, out));
  }
  return Status::Ok();
}

Status ParseJaeger(const object& doc, const std::string& file, SpanSet* out) {
  array data;
  if (!Array(Get(doc, "data"), &data)) return Where{file, "data"}.Error("not an array");
  size_t t = 0;
  for (element trace_el : data) {
    const size_t ti = t++;
    object trace;
    if (trace_el.get_object().get(trace) != SUCCESS) continue;
    std::map<std::string, std::pair<const std::string*, int64_t>, std::less<>>
        processes;  // id -> service, pid
    object procs;
    if (Object(Get(trace, "processes"), &procs)) {
      for (auto [id, p_el] : procs) {
        object p;
        if (p_el.get_object().get(p) != SUCCESS)
          return Where{file, fmt::format("data[{}].processes.{}", ti, id)}.Error("not an object");
        std::string_view name;
        const std::string* service =
            out->names->Intern(String(Get(p, "serviceName"), &name) ? name : "unknown_service");
        int64_t pid = 0;
        ForEachKeyValue(Get(p, "tags"), [&](std::string_view key, const Field& value) {
          if (key == "pid") ParseInt64(value, &pid);
        });
        processes[std::string(id)] = {service, pid};
      }
    }
    const Field spans_f = Get(trace, "spans");
    if (!spans_f.present) continue;
    array spans;
    if (!Array(spans_f, &spans))
      return Where{file, fmt::format("data[{}].spans", ti)}.Error("not an array");
    size_t i = 0;
    for (element span_el : spans) {
      const Where w{file, fmt::format("data[{}].spans[{}]", ti, i++)};
      object j;
      if (span_el.get_object().get(j) != SUCCESS) return w.Error("not an object");
      Span s;
      RETURN_IF_ERROR(ParseTraceId(Get(j, "traceID"), w, &s.trace));
      RETURN_IF_ERROR(ParseSpanId(Get(j, "spanID"), w, "spanID", &s.span_id));
      if (s.span_id == 0) return w.Error("spanID is all zeros");
      std::string_view text;
      if (String(Get(j, "operationName"), &text)) s.operation = out->names->Intern(text);
      array refs;
      if (Array(Get(j, "references"), &refs)) {
        for (element ref_el : refs) {
          // CHILD_OF is the parent; FOLLOWS_FROM also orders, and is the parent when alone.
          object ref;
          if (ref_el.get_object().get(ref) != SUCCESS) continue;
          const Field id = Get(ref, "spanID");
          if (!id.present) continue;
          uint64_t parent = 0;
          RETURN_IF_ERROR(ParseSpanId(id, w, "references.spanID", &parent));
          std::string_view type;
          if ((String(Get(ref, "refType"), &type) && type == "CHILD_OF") || s.parent_span_id == 0)
            s.parent_span_id = parent;
        }
      }
      int64_t start_us = 0, duration_us = 0;
      if (!ParseInt64(Get(j, "startTime"), &start_us))
        return w.Error("startTime is missing or not an integer");
      if (!ParseInt64(Get(j, "duration"), &duration_us) || duration_us < 0)
        return w.Error("duration is missing, negative or not an integer");
      int64_t end_us = 0;
      if (__builtin_add_overflow(start_us, duration_us, &end_us) ||
          __builtin_mul_overflow(start_us, 1000, &s.start_ns) ||
          __builtin_mul_overflow(end_us, 1000, &s.end_ns))
        return w.Error("startTime + duration is beyond the range of ns timestamps");
      ForEachKeyValue(Get(j, "tags"), [&](std::string_view key, const Field& value) {
        std::string_view v;
        if (key == "span.kind" && String(value, &v)) s.kind = JaegerKind(v);
        int64_t n = 0;
        const SpanAttributeKey which = SpanAttributeOf(key);
        if (which != SpanAttributeKey::kOther && ParseInt64(value, &n))
          SetSpanAttribute(which, n, &s);
      });
      std::string_view pid;
      auto p = String(Get(j, "processID"), &pid) ? processes.find(pid) : processes.end();
      if (p != processes.end()) {
        s.service = p->second.first;
        s.pid = static_cast<int32_t>(p->second.second);
      } else {
        s.service = out->names->Intern("unknown_service");
      }
      AddSpan(std::move(s), out);
    }
  }
  return Status::Ok();
}

Status ParseOne(const element& doc, const std::string& name, SpanSet* out) {
  object o;
  if (doc.get_object().get(o) != SUCCESS)
    return DataLoss(fmt::format("Cannot read spans: file={}: not a JSON object", name));
  if (Get(o, "resourceSpans").present) return ParseOtlp(o, name, out);
  if (Get(o, "data").present) return ParseJaeger(o, name, out);
  return DataLoss(fmt::format(
      "Cannot read spans: file={}: neither OTLP JSON (resourceSpans) nor Jaeger JSON (data)",
      name));
}

}  // namespace

std::string TraceIdHex(const TraceId& t) { return fmt::format("{:016x}{:016x}", t.high, t.low); }
std::string SpanIdHex(uint64_t id) { return fmt::format("{:016x}", id); }
std::string_view SpanKindName(SpanKind k) {
  switch (k) {
    case SpanKind::kInternal:
      return "internal";
    case SpanKind::kServer:
      return "server";
    case SpanKind::kClient:
      return "client";
    case SpanKind::kProducer:
      return "producer";
    case SpanKind::kConsumer:
      return "consumer";
    default:
      return "unspecified";
  }
}

namespace {

// What ParseSpanLines found when the first line is not a document of its own.
struct NotJsonLines {
  uint64_t first_line = 0;
  simdjson::error_code error = SUCCESS;
};

// The parsers of span documents, reused from line to line and file to file: their buffers,
// sized for the longest line, are allocated (and their pages faulted in) once.
struct SpanParsers {
  simdjson::dom::parser dom;
  // The common shape of OTLP lines (otlp_fast_path.h); the DOM parser reads the others and
  // names every error.
  simdjson::ondemand::parser ondemand;
  bool fast_path = true;
  std::string padded;       // a line and simdjson's padding, when its buffer lacks room
  std::vector<Span> batch;  // the spans of a line read by the fast path

  // True when the fast path read `line` (its spans are then in `out`). `after` bytes of
  // input follow it in its buffer.
  bool ParseFast(std::string_view line, size_t after, SpanSet* out) {
    if (!fast_path) return false;
    // The parser reads up to SIMDJSON_PADDING bytes past the text (their content does not
    // matter): a line followed by as many bytes in the reader's window is parsed in place,
    // the window's last line is copied where those bytes exist.
    const char* text = line.data();
    size_t capacity = line.size() + after;
    if (after < simdjson::SIMDJSON_PADDING) {
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
      std::memcpy(padded.data(), line.data(), line.size());
      text = padded.data();
      capacity = padded.size();
    }
    batch.clear();
    if (!ParseOtlpFast(ondemand, text, line.size(), capacity, out->names.get(), &batch))
      return false;
    for (Span& s : batch) AddSpan(std::move(s), out);
    return true;
  }
};

// JSON Lines (the OTLP file format), one document per line, parsed as the lines are read:
// the parser's buffers (about 3x the text they hold) stay the size of a line, and so does
// the reader's window. The DOM parser copies each line into its own padded buffer; the fast
// path reads a line in place when the window holds simdjson's padding after it.
// A first (non-blank) line that is a document with nothing but blank lines after it is the
// whole document (named without a line number). A first line that is not a document sets
// `*not_lines`: the caller parses the text as one document (pretty-printed JSON).
Status ParseSpanLines(SpanParsers& parsers, LineReader& lines, const std::string& name,
                      SpanSet* out, std::optional<NotJsonLines>* not_lines) {
  simdjson::dom::parser& parser = parsers.dom;
  std::string_view line;
  auto next_nonblank = [&] {
    while (lines.Next(&line))
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) return true;
    return false;
  };
  auto read_error = [&] {
    return lines.status().WithContext(fmt::format("Cannot read spans: file={}", name));
  };
  if (!next_nonblank()) {
    if (!lines.status().ok()) return read_error();
    return DataLoss(fmt::format("Cannot read spans: file={}: empty", name));
  }
  const uint64_t first_line = lines.line_number();
  if (parsers.ParseFast(line, lines.bytes_after_line(), out)) {
    if (!next_nonblank()) {
      if (!lines.status().ok()) return read_error();
      return Status::Ok();
    }
  } else {
    element doc;
    if (const auto error = parser.parse(line.data(), line.size()).get(doc); error != SUCCESS) {
      *not_lines = NotJsonLines{first_line, error};
      return Status::Ok();
    }
    // The parser holds the first document while the next line is looked for.
    if (!next_nonblank()) {
      if (!lines.status().ok()) return read_error();
      return ParseOne(doc, name, out);
    }
    RETURN_IF_ERROR(ParseOne(doc, fmt::format("{} line {}", name, first_line), out));
  }
  do {
    if (parsers.ParseFast(line, lines.bytes_after_line(), out)) continue;
    element doc;
    const auto error = parser.parse(line.data(), line.size()).get(doc);
    if (error != SUCCESS && lines.last_line_unterminated()) {
      // The last line has no newline and does not parse: its writer stopped mid-append.
      // The lines before it are whole; say what was skipped rather than refuse them all.
      ++out->truncated_lines;
      out->warnings.push_back(
          fmt::format("span file {}: line {} ({} bytes at offset {}) is cut short ({}); skipped, "
                      "its spans are lost",
                      name, lines.line_number(), line.size(), lines.line_offset(),
                      simdjson::error_message(error)));
      break;
    }
    if (error != SUCCESS)
      return DataLoss(fmt::format("Cannot read spans: file={}: line {}: {}", name,
                                  lines.line_number(), simdjson::error_message(error)));
    RETURN_IF_ERROR(ParseOne(doc, fmt::format("{} line {}", name, lines.line_number()), out));
  } while (next_nonblank());
  if (!lines.status().ok()) return read_error();
  return Status::Ok();
}

// The whole text as one document, once its first line was not one.
Status ParseWhole(simdjson::dom::parser& parser, std::string_view text, const std::string& name,
                  const NotJsonLines& first, SpanSet* out) {
  element doc;
  if (parser.parse(text.data(), text.size()).get(doc) == SUCCESS) return ParseOne(doc, name, out);
  return DataLoss(fmt::format("Cannot read spans: file={}: line {}: {}", name, first.first_line,
                              simdjson::error_message(first.error)));
}

Status ParseSpanText(SpanParsers& parsers, std::string_view text, const std::string& name,
                     SpanSet* out) {
  std::optional<NotJsonLines> not_lines;
  auto lines = LineReader::OfText(text);
  RETURN_IF_ERROR(ParseSpanLines(parsers, *lines, name, out, &not_lines));
  if (not_lines) return ParseWhole(parsers.dom, text, name, *not_lines, out);
  return Status::Ok();
}

}  // namespace

Status ParseSpanDocument(std::string_view text, const std::string& name, SpanSet* out,
                         bool fast_path) {
  SpanParsers parsers;
  parsers.fast_path = fast_path;
  return ParseSpanText(parsers, text, name, out);
}

StatusOr<SpanSet> ReadSpanFiles(const std::vector<std::string>& paths, size_t window) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.path().extension() != ".json" || e.is_directory(ec)) continue;
        if (!e.is_regular_file(ec))
          return IoError(
              fmt::format("Cannot read span file {}: not a regular file", e.path().string()));
        found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) return NotFound(fmt::format("No span files (*.json) in {}", p));
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else if (fs::exists(p, ec)) {
      // A FIFO or a device would block the reader or never end.
      return IoError(fmt::format("Cannot read span file {}: not a regular file", p));
    } else {
      return NotFound(fmt::format("No span file or directory {}", p));
    }
  }
  SpanSet set;
  // About 500 bytes per span in OTLP JSON: reserving spares the id index its rehashes.
  uint64_t total = 0;
  for (const std::string& f : files) {
    std::error_code ec;
    total += fs::file_size(f, ec);
  }
  set.by_id.reserve(total / 512);
  // The spans too (a little more generously: untouched capacity costs no memory): growing by
  // doubling leaves up to half the vector unused and, with the copy, peaks higher still.
  set.spans.reserve(total / 448);
  SpanParsers parsers;
  for (const std::string& f : files) {
    // JSON Lines files are parsed as they are read, a window at a time; only a file whose
    // first line is not a document of its own (pretty-printed JSON) is read whole.
    auto lines = LineReader::Open(f, window);
    if (!lines.ok()) return lines.status().WithContext(fmt::format("Cannot read span file {}", f));
    std::optional<NotJsonLines> not_lines;
    RETURN_IF_ERROR(ParseSpanLines(parsers, **lines, f, &set, &not_lines));
    if (not_lines) {
      lines->reset();
      auto bytes = FileBytes::Read(f);
      if (!bytes.ok())
        return bytes.status().WithContext(fmt::format("Cannot read span file {}", f));
      RETURN_IF_ERROR(ParseWhole(parsers.dom, bytes->text(), f, *not_lines, &set));
    }
    set.files.push_back(f);
  }
  return set;
}

void TransformUnsynced(const ClockTransform& t, SpanSet* set) {
  for (Span& s : set->spans) {
    if (s.synced) continue;
    s.start_ns = t.Apply(s.start_ns);
    s.end_ns = t.Apply(s.end_ns);
  }
}

StatusOr<SyncEvents> ReadSyncEvents(const std::vector<std::string>& trace_paths) {
  SyncEvents out;
  for (const std::string& p : trace_paths) {
    ASSIGN_OR_RETURN(auto dirs, ctf::FindTraceDirs(p));
    for (const std::string& dir : dirs) {
      // Only user-space traces with sync events: skip the (large) kernel trace unread.
      ASSIGN_OR_RETURN(const std::string text, ctf::ReadMetadataText(dir));
      if (text.find("jaeger_ust:") == std::string::npos &&
          text.find("causeway_ust:") == std::string::npos)
        continue;
      // Each host's own clock: the caller's transforms are applied afterwards.
      ctf::ReaderOptions options;
      options.decode_threads = 0;  // small traces, read beside other work
      auto opened = ctf::EventReader::Open({dir}, options);
      // A damaged user-space trace (a service killed mid-write, a bad disk) costs its own
      // sync events, not the analysis: its spans keep their own times, and the damage is
      // reported with the file and offset the reader names.
      if (!opened.ok()) {
        out.damaged.push_back(opened.status().ToString());
        continue;
      }
      auto& reader = *opened;
      SyncEvents::Trace& trace = out.traces.emplace_back();
      trace.dir = dir;
      if (!reader->traces().empty()) trace.hostname = reader->traces().front()->hostname();
      // Per event class, computed at its first event: which sync event it is, and where
      // its fields are (no string comparison per event).
      struct Fields {
        bool known = false;
        SyncEvent::Kind kind = SyncEvent::kOther;
        int high = -1, low = -1, span = -1, tid = -1, vtid = -1;
      };
      std::vector<Fields> classes(reader->num_event_classes());
      while (const ctf::Event* e = reader->Next()) {
        if (!e->plan) {
          // Sync events may be among them: counted, so that the spans left on their own
          // times are explained.
          if (e->kind == ctf::Event::Kind::kDiscarded) trace.discarded_events += e->discarded;
          continue;
        }
        Fields& f = classes[e->class_index];
        if (!f.known) [[unlikely]] {
          const std::string_view name = e->name();
          f.known = true;
          f.kind = name == "jaeger_ust:start_span"     ? SyncEvent::kStart
                   : name == "jaeger_ust:end_span"     ? SyncEvent::kEnd
                   : name == "causeway_ust:activate"   ? SyncEvent::kActivate
                   : name == "causeway_ust:deactivate" ? SyncEvent::kDeactivate
                                                       : SyncEvent::kOther;
          f.high = e->plan->FieldIndex("trace_id_high");
          f.low = e->plan->FieldIndex("trace_id_low");
          f.span = e->plan->FieldIndex("span_id");
          f.tid = e->plan->FieldIndex("tid");
          f.vtid = e->plan->FieldIndex("vtid");
        }
        if (f.kind == SyncEvent::kOther || f.span < 0) continue;
        SyncEvent& x = trace.events.emplace_back();
        x.kind = f.kind;
        x.ts = static_cast<int64_t>(e->timestamp);
        x.span_id = e->GetUnsigned(f.span);
        // The thread: the `tid` field, else LTTng-UST's vtid context (seed 000's events).
        x.tid = static_cast<int32_t>(f.tid >= 0 ? e->GetSigned(f.tid)
                                                : (f.vtid >= 0 ? e->GetSigned(f.vtid) : 0));
        if (f.kind == SyncEvent::kDeactivate)
          trace.deactivated.push_back(
              {f.high >= 0 ? e->GetUnsigned(f.high) : 0, f.low >= 0 ? e->GetUnsigned(f.low) : 0});
      }
      // The events before the damage are whole: kept.
      if (!reader->status().ok()) out.damaged.push_back(reader->status().ToString());
    }
  }
  return out;
}

void NoteDamagedSyncTraces(const SyncEvents& events, SpanSet* set) {
  for (const std::string& error : events.damaged) {
    ++set->sync_traces_damaged;
    set->warnings.push_back(
        fmt::format("user-space trace damaged, its sync events read up to the damage: {}", error));
  }
}

void ApplySyncEvents(const SyncEvents& events, SpanSet* set,
                     const std::map<std::string, ClockTransform>& transforms) {
  struct Sync {
    int64_t start = -1, end = -1;
    int32_t tid = 0;
  };
  // Per span, by its index (set->by_id): events of span ids no span has are of no use.
  std::vector<Sync> sync(set->spans.size());
  std::map<std::pair<int32_t, uint64_t>, std::vector<int64_t>> open_activations;
  for (const SyncEvents::Trace& trace : events.traces) {
    set->sync_events_discarded += trace.discarded_events;
    // The transform the reader would have applied: exact and monotonic, so each trace's
    // events stay in order.
    const auto t = transforms.find(trace.hostname);
    std::optional<FastTransform> transform;
    if (t != transforms.end() && !t->second.identity()) transform.emplace(t->second);
    size_t deactivations = 0;  // kDeactivate events seen: the index into trace.deactivated
    for (const SyncEvent& e : trace.events) {
      const int64_t ts = transform ? transform->Apply(e.ts) : e.ts;
      switch (e.kind) {
        case SyncEvent::kStart:
        case SyncEvent::kEnd: {
          const bool start = e.kind == SyncEvent::kStart;
          const auto span = set->by_id.find(e.span_id);
          if (span == set->by_id.end() || span->second >= sync.size()) break;
          Sync& s = sync[span->second];
          (start ? s.start : s.end) = ts;
          if (e.tid) s.tid = start || s.tid == 0 ? e.tid : s.tid;
          break;
        }
        case SyncEvent::kActivate:
          open_activations[{e.tid, e.span_id}].push_back(ts);
          break;
        case SyncEvent::kDeactivate: {
          const TraceId& trace_id = trace.deactivated[deactivations++];
          auto a = open_activations.find({e.tid, e.span_id});
          if (a == open_activations.end() || a->second.empty()) break;
          Activation x;
          x.trace = trace_id;
          x.span_id = e.span_id;
          x.tid = e.tid;
          x.begin_ns = a->second.back();
          x.end_ns = ts;
          a->second.pop_back();
          set->activations.push_back(x);
          break;
        }
        case SyncEvent::kOther:
          break;
      }
    }
  }
  for (size_t i = 0; i < set->spans.size(); ++i) {
    Span& s = set->spans[i];
    const Sync& x = sync[i];
    if (x.start < 0 || x.end < x.start) continue;
    s.start_ns = x.start;
    s.end_ns = x.end;
    if (x.tid) s.tid = x.tid;
    s.synced = true;
    ++set->synced;
  }
}

Status ApplySyncEvents(const std::vector<std::string>& trace_paths, SpanSet* set,
                       const std::map<std::string, ClockTransform>& transforms) {
  ASSIGN_OR_RETURN(const SyncEvents events, ReadSyncEvents(trace_paths));
  NoteDamagedSyncTraces(events, set);
  ApplySyncEvents(events, set, transforms);
  return Status::Ok();
}

}  // namespace causeway::spans
