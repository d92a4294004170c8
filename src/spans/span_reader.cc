#include "spans/span_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ctf/reader/event_reader.h"

namespace causeway::spans {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Reads `n` hex digits (any case); false when there are other characters.
bool ParseHex(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = v << 4 | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

// Where in the document we are, for error messages.
struct Where {
  const std::string& file;
  std::string path;
  Status Error(const std::string& what) const {
    return DataLoss(fmt::format("Cannot read spans: file={}: {}: {}", file, path, what));
  }
};

Status ParseTraceId(const json& v, const Where& w, TraceId* out) {
  if (!v.is_string()) return w.Error("trace id is not a string");
  const std::string s = v.get<std::string>();
  // 32 hex digits (OTLP, Jaeger); Jaeger also writes 64-bit ids as 16.
  if (s.size() > 32 || s.empty()) return w.Error(fmt::format("trace id '{}' is not hex", s));
  const size_t split = s.size() > 16 ? s.size() - 16 : 0;
  uint64_t high = 0, low = 0;
  if ((split && !ParseHex(std::string_view(s).substr(0, split), &high)) ||
      !ParseHex(std::string_view(s).substr(split), &low))
    return w.Error(fmt::format("trace id '{}' is not hex", s));
  if ((high | low) == 0) return w.Error("trace id is all zeros");
  *out = {high, low};
  return Status::Ok();
}

Status ParseSpanId(const json& v, const Where& w, const char* what, uint64_t* out) {
  if (!v.is_string()) return w.Error(fmt::format("{} is not a string", what));
  const std::string s = v.get<std::string>();
  if (!ParseHex(s, out)) return w.Error(fmt::format("{} '{}' is not 16 hex digits", what, s));
  return Status::Ok();
}

// OTLP JSON writes 64-bit integers as decimal strings; some writers use numbers.
bool ParseInt64(const json& v, int64_t* out) {
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return true;
  }
  if (v.is_number_unsigned()) {
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (errno || *end) return false;
    *out = x;
    return true;
  }
  return false;
}

SpanKind OtlpKind(const json& v) {
  if (v.is_number_integer()) {
    const int k = v.get<int>();
    return k >= 1 && k <= 5 ? static_cast<SpanKind>(k) : SpanKind::kUnspecified;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "SPAN_KIND_INTERNAL") return SpanKind::kInternal;
    if (s == "SPAN_KIND_SERVER") return SpanKind::kServer;
    if (s == "SPAN_KIND_CLIENT") return SpanKind::kClient;
    if (s == "SPAN_KIND_PRODUCER") return SpanKind::kProducer;
    if (s == "SPAN_KIND_CONSUMER") return SpanKind::kConsumer;
  }
  return SpanKind::kUnspecified;
}

SpanKind JaegerKind(const std::string& s) {
  if (s == "server") return SpanKind::kServer;
  if (s == "client") return SpanKind::kClient;
  if (s == "producer") return SpanKind::kProducer;
  if (s == "consumer") return SpanKind::kConsumer;
  if (s == "internal") return SpanKind::kInternal;
  return SpanKind::kUnspecified;
}

// OTLP AnyValue: {"intValue": "12"} or {"stringValue": "x"}.
bool OtlpIntValue(const json& value, int64_t* out) {
  if (!value.is_object()) return false;
  if (value.contains("intValue")) return ParseInt64(value["intValue"], out);
  if (value.contains("stringValue")) return ParseInt64(value["stringValue"], out);
  return false;
}

void AddSpan(Span s, SpanSet* out) {
  auto [it, inserted] = out->by_id.emplace(s.span_id, out->spans.size());
  if (!inserted) {
    ++out->duplicates;
    return;
  }
  out->spans.push_back(std::move(s));
}

Status ParseOtlp(const json& doc, const std::string& file, SpanSet* out) {
  const json& rss = doc["resourceSpans"];
  if (!rss.is_array()) return Where{file, "resourceSpans"}.Error("not an array");
  for (size_t r = 0; r < rss.size(); ++r) {
    const json& rs = rss[r];
    std::string service = "unknown_service";
    int64_t pid = 0;
    if (rs.contains("resource") && rs["resource"].contains("attributes") &&
        rs["resource"]["attributes"].is_array()) {
      for (const json& a : rs["resource"]["attributes"]) {
        if (!a.is_object() || !a.contains("key") || !a.contains("value")) continue;
        if (a["key"] == "service.name" && a["value"].contains("stringValue") &&
            a["value"]["stringValue"].is_string())
          service = a["value"]["stringValue"].get<std::string>();
        if (a["key"] == "process.pid") OtlpIntValue(a["value"], &pid);
      }
    }
    // "instrumentationLibrarySpans": the name before OTLP 0.15.
    const char* scope_key =
        rs.contains("scopeSpans") ? "scopeSpans" : "instrumentationLibrarySpans";
    if (!rs.contains(scope_key)) continue;
    const json& scopes = rs[scope_key];
    if (!scopes.is_array())
      return Where{file, fmt::format("resourceSpans[{}].{}", r, scope_key)}.Error("not an array");
    for (size_t sc = 0; sc < scopes.size(); ++sc) {
      if (!scopes[sc].contains("spans")) continue;
      const json& spans = scopes[sc]["spans"];
      if (!spans.is_array())
        return Where{file, fmt::format("resourceSpans[{}].{}[{}].spans", r, scope_key, sc)}.Error(
            "not an array");
      for (size_t i = 0; i < spans.size(); ++i) {
        const Where w{file, fmt::format("resourceSpans[{}].{}[{}].spans[{}]", r, scope_key, sc, i)};
        const json& j = spans[i];
        if (!j.is_object()) return w.Error("not an object");
        Span s;
        s.service = service;
        s.pid = static_cast<int32_t>(pid);
        RETURN_IF_ERROR(ParseTraceId(j.value("traceId", json()), w, &s.trace));
        RETURN_IF_ERROR(ParseSpanId(j.value("spanId", json()), w, "spanId", &s.span_id));
        if (s.span_id == 0) return w.Error("spanId is all zeros");
        if (j.contains("parentSpanId") && j["parentSpanId"].is_string() &&
            !j["parentSpanId"].get<std::string>().empty())
          RETURN_IF_ERROR(ParseSpanId(j["parentSpanId"], w, "parentSpanId", &s.parent_span_id));
        if (j.contains("name") && j["name"].is_string()) s.operation = j["name"].get<std::string>();
        s.kind = OtlpKind(j.value("kind", json()));
        if (!ParseInt64(j.value("startTimeUnixNano", json()), &s.start_ns))
          return w.Error("startTimeUnixNano is missing or not an integer");
        if (!ParseInt64(j.value("endTimeUnixNano", json()), &s.end_ns))
          return w.Error("endTimeUnixNano is missing or not an integer");
        if (s.end_ns < s.start_ns) return w.Error("ends before it starts");
        if (j.contains("attributes") && j["attributes"].is_array()) {
          for (const json& a : j["attributes"]) {
            if (!a.is_object() || !a.contains("key") || !a.contains("value")) continue;
            int64_t v = 0;
            if ((a["key"] == "thread.id" || a["key"] == "tid") && OtlpIntValue(a["value"], &v))
              s.tid = static_cast<int32_t>(v);
          }
        }
        AddSpan(std::move(s), out);
      }
    }
  }
  return Status::Ok();
}

Status ParseJaeger(const json& doc, const std::string& file, SpanSet* out) {
  const json& data = doc["data"];
  if (!data.is_array()) return Where{file, "data"}.Error("not an array");
  for (size_t t = 0; t < data.size(); ++t) {
    const json& trace = data[t];
    std::map<std::string, std::pair<std::string, int64_t>> processes;  // id -> service, pid
    if (trace.contains("processes") && trace["processes"].is_object()) {
      for (const auto& [id, p] : trace["processes"].items()) {
        std::string service = p.value("serviceName", std::string("unknown_service"));
        int64_t pid = 0;
        if (p.contains("tags") && p["tags"].is_array())
          for (const json& tag : p["tags"])
            if (tag.is_object() && tag.value("key", "") == "pid")
              ParseInt64(tag.value("value", json()), &pid);
        processes[id] = {service, pid};
      }
    }
    if (!trace.contains("spans")) continue;
    const json& spans = trace["spans"];
    if (!spans.is_array())
      return Where{file, fmt::format("data[{}].spans", t)}.Error("not an array");
    for (size_t i = 0; i < spans.size(); ++i) {
      const Where w{file, fmt::format("data[{}].spans[{}]", t, i)};
      const json& j = spans[i];
      if (!j.is_object()) return w.Error("not an object");
      Span s;
      RETURN_IF_ERROR(ParseTraceId(j.value("traceID", json()), w, &s.trace));
      RETURN_IF_ERROR(ParseSpanId(j.value("spanID", json()), w, "spanID", &s.span_id));
      if (s.span_id == 0) return w.Error("spanID is all zeros");
      if (j.contains("operationName") && j["operationName"].is_string())
        s.operation = j["operationName"].get<std::string>();
      if (j.contains("references") && j["references"].is_array()) {
        for (const json& ref : j["references"]) {
          // CHILD_OF is the parent; FOLLOWS_FROM also orders, and is the parent when alone.
          if (!ref.is_object() || !ref.contains("spanID")) continue;
          uint64_t parent = 0;
          RETURN_IF_ERROR(ParseSpanId(ref["spanID"], w, "references.spanID", &parent));
          if (ref.value("refType", "") == "CHILD_OF" || s.parent_span_id == 0)
            s.parent_span_id = parent;
        }
      }
      int64_t start_us = 0, duration_us = 0;
      if (!ParseInt64(j.value("startTime", json()), &start_us))
        return w.Error("startTime is missing or not an integer");
      if (!ParseInt64(j.value("duration", json()), &duration_us) || duration_us < 0)
        return w.Error("duration is missing, negative or not an integer");
      s.start_ns = start_us * 1000;
      s.end_ns = (start_us + duration_us) * 1000;
      if (j.contains("tags") && j["tags"].is_array()) {
        for (const json& tag : j["tags"]) {
          if (!tag.is_object()) continue;
          const std::string key = tag.value("key", "");
          if (key == "span.kind" && tag.contains("value") && tag["value"].is_string())
            s.kind = JaegerKind(tag["value"].get<std::string>());
          int64_t v = 0;
          if ((key == "thread.id" || key == "tid") && ParseInt64(tag.value("value", json()), &v))
            s.tid = static_cast<int32_t>(v);
        }
      }
      auto p = processes.find(j.value("processID", ""));
      if (p != processes.end()) {
        s.service = p->second.first;
        s.pid = static_cast<int32_t>(p->second.second);
      } else {
        s.service = "unknown_service";
      }
      AddSpan(std::move(s), out);
    }
  }
  return Status::Ok();
}

Status ParseOne(const json& doc, const std::string& name, SpanSet* out) {
  if (!doc.is_object())
    return DataLoss(fmt::format("Cannot read spans: file={}: not a JSON object", name));
  if (doc.contains("resourceSpans")) return ParseOtlp(doc, name, out);
  if (doc.contains("data")) return ParseJaeger(doc, name, out);
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

Status ParseSpanDocumentImpl(std::string_view text, const std::string& name, SpanSet* out);

Status ParseSpanDocument(std::string_view text, const std::string& name, SpanSet* out) {
  // nlohmann-json throws on shapes the checks above do not foresee (a number too large, a
  // member of a non-object): every such case is bad input, reported with the file.
  try {
    return ParseSpanDocumentImpl(text, name, out);
  } catch (const json::exception& e) {
    return DataLoss(fmt::format("Cannot read spans: file={}: {}", name, e.what()));
  }
}

Status ParseSpanDocumentImpl(std::string_view text, const std::string& name, SpanSet* out) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded()) return ParseOne(doc, name, out);
  // JSON Lines: one document per line (OTLP file exporters write this).
  size_t line_no = 0, begin = 0, docs = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    ++line_no;
    begin = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json d = json::parse(line, nullptr, false);
    if (d.is_discarded()) {
      // Report the parser's own message for the first bad line.
      try {
        const json unused = json::parse(line);
        (void)unused;
      } catch (const json::exception& e) {
        return DataLoss(
            fmt::format("Cannot read spans: file={}: line {}: {}", name, line_no, e.what()));
      }
    }
    RETURN_IF_ERROR(ParseOne(d, fmt::format("{} line {}", name, line_no), out));
    ++docs;
  }
  if (docs == 0) return DataLoss(fmt::format("Cannot read spans: file={}: empty", name));
  return Status::Ok();
}

StatusOr<SpanSet> ReadSpanFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".json")
          found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) return NotFound(fmt::format("No span files (*.json) in {}", p));
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      return NotFound(fmt::format("No span file or directory {}", p));
    }
  }
  SpanSet set;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in && !in.eof()) return IoError(fmt::format("Cannot read span file {}", f));
    RETURN_IF_ERROR(ParseSpanDocument(ss.str(), f, &set));
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

Status ApplySyncEvents(const std::vector<std::string>& trace_paths, SpanSet* set,
                       const std::map<std::string, ClockTransform>& transforms) {
  struct Sync {
    int64_t start = -1, end = -1;
    int32_t tid = 0;
  };
  std::unordered_map<uint64_t, Sync> sync;
  std::map<std::pair<int32_t, uint64_t>, std::vector<int64_t>> open_activations;
  for (const std::string& p : trace_paths) {
    ASSIGN_OR_RETURN(auto dirs, ctf::FindTraceDirs(p));
    for (const std::string& dir : dirs) {
      // Only user-space traces with sync events: skip the (large) kernel trace unread.
      std::ifstream meta(dir + "/metadata", std::ios::binary);
      std::stringstream ss;
      ss << meta.rdbuf();
      const std::string text = ss.str();
      if (text.find("jaeger_ust:") == std::string::npos &&
          text.find("causeway_ust:") == std::string::npos)
        continue;
      ctf::ReaderOptions ro;
      if (!transforms.empty()) {
        ro.clock_transform = [&transforms](const ctf::Trace& t) {
          auto it = transforms.find(t.hostname());
          return it != transforms.end() ? it->second : ClockTransform{};
        };
      }
      ASSIGN_OR_RETURN(auto reader, ctf::EventReader::Open({dir}, ro));
      struct Fields {
        int high = -1, low = -1, span = -1, tid = -1, vtid = -1;
      };
      std::unordered_map<const ctf::EventPlan*, Fields> fields;
      while (const ctf::Event* e = reader->Next()) {
        if (!e->plan) continue;
        const std::string_view name = e->name();
        const bool start = name == "jaeger_ust:start_span", end = name == "jaeger_ust:end_span";
        const bool act = name == "causeway_ust:activate", deact = name == "causeway_ust:deactivate";
        if (!start && !end && !act && !deact) continue;
        auto [it, fresh] = fields.try_emplace(e->plan);
        if (fresh) {
          it->second = {e->plan->FieldIndex("trace_id_high"), e->plan->FieldIndex("trace_id_low"),
                        e->plan->FieldIndex("span_id"), e->plan->FieldIndex("tid"),
                        e->plan->FieldIndex("vtid")};
        }
        const Fields& f = it->second;
        if (f.span < 0) continue;
        const uint64_t id = e->GetUnsigned(f.span);
        // The thread: the `tid` field, else LTTng-UST's vtid context (seed 000's events).
        const int32_t tid = static_cast<int32_t>(
            f.tid >= 0 ? e->GetSigned(f.tid) : (f.vtid >= 0 ? e->GetSigned(f.vtid) : 0));
        const int64_t ts = static_cast<int64_t>(e->timestamp);
        if (start || end) {
          Sync& s = sync[id];
          (start ? s.start : s.end) = ts;
          if (tid) s.tid = start || s.tid == 0 ? tid : s.tid;
        } else if (act) {
          open_activations[{tid, id}].push_back(ts);
        } else {
          auto a = open_activations.find({tid, id});
          if (a == open_activations.end() || a->second.empty()) continue;
          const int64_t begin = a->second.back();
          a->second.pop_back();
          Activation x;
          x.trace = {f.high >= 0 ? e->GetUnsigned(f.high) : 0,
                     f.low >= 0 ? e->GetUnsigned(f.low) : 0};
          x.span_id = id;
          x.tid = tid;
          x.begin_ns = begin;
          x.end_ns = ts;
          set->activations.push_back(x);
        }
      }
      RETURN_IF_ERROR(reader->status());
    }
  }
  for (Span& s : set->spans) {
    auto it = sync.find(s.span_id);
    if (it == sync.end() || it->second.start < 0 || it->second.end < it->second.start) continue;
    s.start_ns = it->second.start;
    s.end_ns = it->second.end;
    if (it->second.tid) s.tid = it->second.tid;
    s.synced = true;
    ++set->synced;
  }
  return Status::Ok();
}

}  // namespace causeway::spans
