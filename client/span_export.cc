#include "span_export.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace causeway::client {
namespace {

using nlohmann::json;

std::string TraceIdHex(const SpanContext& c) {
  return fmt::format("{:016x}{:016x}", c.trace_id_high, c.trace_id_low);
}

json OtlpValue(const SpanAttribute& a) {
  switch (a.type) {
    case SpanAttribute::kString:
      return {{"stringValue", a.string_value}};
    case SpanAttribute::kInt:  // OTLP JSON writes 64-bit integers as strings
      return {{"intValue", std::to_string(a.int_value)}};
    case SpanAttribute::kDouble:
      return {{"doubleValue", a.double_value}};
    case SpanAttribute::kBool:
      return {{"boolValue", a.int_value != 0}};
  }
  return {};
}

json JaegerTag(const SpanAttribute& a) {
  switch (a.type) {
    case SpanAttribute::kString:
      return {{"key", a.key}, {"type", "string"}, {"value", a.string_value}};
    case SpanAttribute::kInt:
      return {{"key", a.key}, {"type", "int64"}, {"value", a.int_value}};
    case SpanAttribute::kDouble:
      return {{"key", a.key}, {"type", "float64"}, {"value", a.double_value}};
    case SpanAttribute::kBool:
      return {{"key", a.key}, {"type", "bool"}, {"value", a.int_value != 0}};
  }
  return {};
}

const char* JaegerKind(int kind) {
  switch (kind) {
    case kServer:
      return "server";
    case kClient:
      return "client";
    case kProducer:
      return "producer";
    case kConsumer:
      return "consumer";
    default:
      return "internal";
  }
}

}  // namespace

std::string ToOtlpJson(const std::string& service, int32_t pid,
                       std::span<const FinishedSpan> spans) {
  json resource_attributes =
      json::array({{{"key", "service.name"}, {"value", {{"stringValue", service}}}},
                   {{"key", "process.pid"}, {"value", {{"intValue", std::to_string(pid)}}}}});
  json doc = {
      {"resourceSpans",
       json::array({{{"resource", {{"attributes", resource_attributes}}},
                     {"scopeSpans",
                      json::array({{{"scope", {{"name", "causeway-client"}, {"version", "0.1"}}},
                                    {"spans", json::array()}}})}}})}};
  // The document around an empty span list, then the spans dumped one by one into it: a
  // program's whole history (hundreds of thousands of spans at exit) never becomes one
  // in-memory JSON tree, which took seconds and gigabytes. `"spans":[]` occurs once: inside
  // a string value its quotes would be escaped.
  const std::string frame = doc.dump();
  const std::string_view empty = "\"spans\":[]";
  const size_t at = frame.find(empty);
  std::string out = frame.substr(0, at + empty.size() - 1);
  out.reserve(out.size() + spans.size() * 400 + frame.size());
  bool first = true;
  for (const FinishedSpan& s : spans) {
    json attributes = json::array();
    for (const SpanAttribute& a : s.attributes)
      attributes.push_back({{"key", a.key}, {"value", OtlpValue(a)}});
    attributes.push_back({{"key", "thread.id"}, {"value", {{"intValue", std::to_string(s.tid)}}}});
    json j = {{"traceId", TraceIdHex(s.context)},
              {"spanId", fmt::format("{:016x}", s.context.span_id)},
              {"name", s.name},
              {"kind", s.kind},
              {"startTimeUnixNano", std::to_string(s.start_unix_ns)},
              {"endTimeUnixNano", std::to_string(s.end_unix_ns)},
              {"attributes", std::move(attributes)}};
    if (s.parent_span_id) j["parentSpanId"] = fmt::format("{:016x}", s.parent_span_id);
    if (!first) out += ',';
    first = false;
    out += j.dump();
  }
  out.append(frame, at + empty.size() - 1, std::string::npos);
  return out;
}

std::string ToOtlpJsonLines(const std::string& service, int32_t pid,
                            std::span<const FinishedSpan> spans, size_t spans_per_line) {
  spans_per_line = std::max<size_t>(spans_per_line, 1);
  std::string out;
  // No spans: still one line, so that the file says which service had none.
  size_t i = 0;
  do {
    const size_t n = std::min(spans_per_line, spans.size() - i);
    out += ToOtlpJson(service, pid, spans.subspan(i, n));
    out += '\n';
    i += n;
  } while (i < spans.size());
  return out;
}

std::string ToJaegerJson(const std::string& service, int32_t pid,
                         const std::vector<FinishedSpan>& spans) {
  std::map<std::string, json> traces;  // by trace id: a stable, sorted output
  for (const FinishedSpan& s : spans) {
    const std::string trace_id = TraceIdHex(s.context);
    json references = json::array();
    if (s.parent_span_id)
      references.push_back({{"refType", "CHILD_OF"},
                            {"traceID", trace_id},
                            {"spanID", fmt::format("{:016x}", s.parent_span_id)}});
    json tags =
        json::array({{{"key", "span.kind"}, {"type", "string"}, {"value", JaegerKind(s.kind)}},
                     {{"key", "thread.id"}, {"type", "int64"}, {"value", s.tid}}});
    for (const SpanAttribute& a : s.attributes) tags.push_back(JaegerTag(a));
    json& trace = traces[trace_id];
    if (trace.is_null()) {
      trace = {
          {"traceID", trace_id},
          {"spans", json::array()},
          {"processes",
           {{"p1",
             {{"serviceName", service},
              {"tags", json::array({{{"key", "pid"}, {"type", "int64"}, {"value", pid}}})}}}}}};
    }
    // Jaeger's times are microseconds; the exact nanoseconds stay in the OTLP export and
    // in the user-space trace.
    trace["spans"].push_back({{"traceID", trace_id},
                              {"spanID", fmt::format("{:016x}", s.context.span_id)},
                              {"operationName", s.name},
                              {"references", std::move(references)},
                              {"startTime", s.start_unix_ns / 1000},
                              {"duration", (s.end_unix_ns - s.start_unix_ns) / 1000},
                              {"tags", std::move(tags)},
                              {"logs", json::array()},
                              {"processID", "p1"}});
  }
  json data = json::array();
  for (auto& [id, trace] : traces) data.push_back(std::move(trace));
  return json{{"data", std::move(data)}}.dump();
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << content;
    if (content.empty() || content.back() != '\n') out << '\n';  // a text file ends a line
    out.flush();
    if (!out) return IoError(fmt::format("Cannot write span file: file={}", tmp));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return IoError(fmt::format("Cannot write span file: file={}: {}", path, ec.message()));
  return Status::Ok();
}

LineFile::~LineFile() { Close(); }

Status LineFile::Open(const std::string& path) {
  Close();
  path_ = path;
  size_ = 0;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    return IoError(fmt::format("Cannot create span file: file={}: {}", path, strerror(errno)));
  return Status::Ok();
}

Status LineFile::Append(std::string_view lines) {
  if (fd_ < 0) return FailedPrecondition(fmt::format("span file {} is not open", path_));
  while (!lines.empty()) {
    const ssize_t n = ::write(fd_, lines.data(), lines.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return IoError(fmt::format("Cannot write span file: file={}, offset={}: {}", path_, size_,
                                 n < 0 ? strerror(errno) : "nothing written"));
    lines.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

void LineFile::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

struct OtlpHttpExporter::Impl {
  std::unique_ptr<httplib::Client> client;
  std::string path;
};

OtlpHttpExporter::~OtlpHttpExporter() = default;

StatusOr<std::unique_ptr<OtlpHttpExporter>> OtlpHttpExporter::Create(const std::string& endpoint) {
  // scheme://host[:port][/path]
  const size_t scheme_end = endpoint.find("://");
  if (scheme_end == std::string::npos || endpoint.substr(0, scheme_end) != "http")
    return InvalidArgument(fmt::format(
        "Bad OTLP endpoint '{}': expected http://HOST:PORT[/PATH] (https is not supported)",
        endpoint));
  const size_t host_begin = scheme_end + 3;
  const size_t path_begin = endpoint.find('/', host_begin);
  const std::string host_port = endpoint.substr(host_begin, path_begin - host_begin);
  std::string path = path_begin == std::string::npos ? "" : endpoint.substr(path_begin);
  if (path.empty() || path == "/") path = "/v1/traces";
  if (host_port.empty())
    return InvalidArgument(fmt::format("Bad OTLP endpoint '{}': no host", endpoint));
  std::unique_ptr<OtlpHttpExporter> e(new OtlpHttpExporter);
  e->impl_ = std::make_unique<Impl>();
  e->impl_->client = std::make_unique<httplib::Client>("http://" + host_port);
  e->impl_->client->set_connection_timeout(2, 0);
  e->impl_->client->set_read_timeout(5, 0);
  e->impl_->client->set_write_timeout(5, 0);
  e->impl_->path = path;
  return e;
}

Status OtlpHttpExporter::Post(const std::string& body) {
  auto res = impl_->client->Post(impl_->path, body, "application/json");
  if (!res)
    return IoError(fmt::format("OTLP export failed: POST {}: {}", impl_->path,
                               httplib::to_string(res.error())));
  if (res->status / 100 != 2)
    return IoError(fmt::format("OTLP export failed: POST {}: HTTP {}", impl_->path, res->status));
  return Status::Ok();
}

}  // namespace causeway::client
