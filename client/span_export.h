// Finished spans to OTLP JSON and Jaeger JSON documents, files and OTLP/HTTP.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "causeway/client.h"

namespace causeway::client {

struct SpanAttribute {
  enum Type : uint8_t { kString, kInt, kDouble, kBool };
  std::string key;
  Type type = kString;
  std::string string_value;
  int64_t int_value = 0;  // kInt, kBool
  double double_value = 0;
};

// A span as exported: times in nanoseconds since the Unix epoch.
struct FinishedSpan {
  SpanContext context;
  uint64_t parent_span_id = 0;
  std::string name;
  int kind = kInternal;
  uint64_t start_unix_ns = 0;
  uint64_t end_unix_ns = 0;
  int32_t tid = 0;  // the thread that ended it (attribute thread.id)
  std::vector<SpanAttribute> attributes;
};

// One ExportTraceServiceRequest (OTLP/JSON encoding: hex ids, 64-bit numbers as strings).
std::string ToOtlpJson(const std::string& service, int32_t pid,
                       std::span<const FinishedSpan> spans);
// OTLP JSON Lines, the OTLP file format (what the OpenTelemetry Collector's file exporter
// writes): one ExportTraceServiceRequest per line, `spans_per_line` spans each, so that a
// reader's memory is bounded by a line, not by a program's whole history.
std::string ToOtlpJsonLines(const std::string& service, int32_t pid,
                            std::span<const FinishedSpan> spans, size_t spans_per_line = 1000);
// A Jaeger query-API document ({"data":[{traceID, spans, processes}]}, µs times), one entry
// per trace.
std::string ToJaegerJson(const std::string& service, int32_t pid,
                         const std::vector<FinishedSpan>& spans);

// Writes beside `path` and renames, so that a reader never sees half a file.
Status WriteFileAtomically(const std::string& path, const std::string& content);

// A file that grows by whole lines: created empty (truncated) by Open, then each Append is
// one or more complete lines written with as few write(2) calls as the kernel allows, so a
// crash loses at most the lines being appended (a reader then finds a last line without its
// newline, and says so).
class LineFile {
 public:
  LineFile() = default;
  ~LineFile();
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;

  Status Open(const std::string& path);
  // `lines` must end with '\n'.
  Status Append(std::string_view lines);
  void Close();
  bool is_open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
  uint64_t size_ = 0;
};

// POSTs OTLP JSON to an OTLP/HTTP receiver ("http://host:port[/path]"; /v1/traces when no path).
class OtlpHttpExporter {
 public:
  static StatusOr<std::unique_ptr<OtlpHttpExporter>> Create(const std::string& endpoint);
  ~OtlpHttpExporter();
  Status Post(const std::string& body);

 private:
  OtlpHttpExporter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace causeway::client
