// causeway-client's user-space trace of a recording (the span sync events jaeger_ust:start_span
// and end_span of one process's thread), written with Causeway's CTF writer, for the tests
// that build recordings by hand. Header only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {

class SyncEventTrace {
 public:
  // Creates the trace in `dir` (host `hostname`, process `procname`, thread `tid`); check
  // status() before writing.
  SyncEventTrace(const std::string& dir, const std::string& hostname, std::string procname,
                 int32_t tid)
      : procname_(std::move(procname)), tid_(tid) {
    ctf::TraceOptions opts;
    opts.hostname = hostname;
    opts.domain = "ust";
    opts.tracer_name = "causeway-client";
    opts.event_context_procname_vtid = true;
    auto w = ctf::CtfWriter::Create(dir, opts);
    if (!w.ok()) {
      status_ = w.status();
      return;
    }
    writer_ = std::move(*w);
    const std::vector<ctf::FieldSpec> span = {
        {"trace_id_high", ctf::FieldKind::kU64}, {"trace_id_low", ctf::FieldKind::kU64},
        {"span_id", ctf::FieldKind::kU64},       {"parent_span_id", ctf::FieldKind::kU64},
        {"op_name", ctf::FieldKind::kString},    {"tid", ctf::FieldKind::kS32}};
    start_ = *writer_->AddEventClass("jaeger_ust:start_span", span);
    end_ = *writer_->AddEventClass("jaeger_ust:end_span", span);
  }
  const Status& status() const { return status_; }
  ctf::CtfWriter& writer() { return *writer_; }

  // The start or end of span `span_id` of trace (0, trace_low), named `name`, at `ts`.
  void Start(uint64_t ts, uint64_t trace_low, uint64_t span_id, std::string_view name) {
    Write(start_, ts, trace_low, span_id, name);
  }
  void End(uint64_t ts, uint64_t trace_low, uint64_t span_id, std::string_view name) {
    Write(end_, ts, trace_low, span_id, name);
  }
  Status Close() { return writer_->Close(); }

 private:
  void Write(uint32_t cls, uint64_t ts, uint64_t trace_low, uint64_t span_id,
             std::string_view name) {
    const ctf::UstContext ctx{procname_, tid_};
    writer_->Begin(0, cls, ts, ctx)
        .U64(1)
        .U64(trace_low)
        .U64(span_id)
        .U64(0)
        .String(name)
        .S32(tid_);
  }

  std::unique_ptr<ctf::CtfWriter> writer_;
  Status status_;
  std::string procname_;
  int32_t tid_;
  uint32_t start_ = 0, end_ = 0;
};

}  // namespace causeway::testing
