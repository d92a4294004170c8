#include "analysis/kernel_analysis_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <type_traits>

#include <fmt/format.h>

#include "base/binary_file.h"
#include "base/file_bytes.h"
#include "graph/graph_file.h"

namespace causeway::analysis {

namespace {

constexpr char kMagic[8] = {'C', 'W', 'K', 'G', 'R', 'A', 'P', 'H'};
constexpr uint32_t kByteOrderMark = 0x01020304;

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t byte_order;
  int64_t built_unix_s;
  uint64_t key_size;
  uint64_t body_size;  // the key included
  uint64_t checksum;   // of the body
  // The sizes of the structures copied whole: a build whose counters differ reads the file
  // as of another version rather than misplacing every field.
  uint32_t counters_size;
  uint32_t long_double_size;
};
static_assert(std::is_trivially_copyable_v<FileHeader>);
static_assert(std::is_trivially_copyable_v<kernel::ModelCounters>);

void WriteStrings(BinaryFileWriter* out, const std::vector<std::string>& v) {
  out->Pod<uint64_t>(v.size());
  for (const std::string& s : v) out->String(s);
}

bool ReadStrings(BinaryReader* in, std::vector<std::string>* v, const char* what) {
  uint64_t n;
  if (!in->Count(&n, 8, what)) return false;
  v->resize(n);
  for (std::string& s : *v)
    if (!in->String(&s, what)) return false;
  return true;
}

// StreamStats less its path, field by field (no padding written).
constexpr size_t kStreamNumbers = 14;
void WriteStream(BinaryFileWriter* out, const ctf::StreamStats& s) {
  out->String(s.path);
  const uint64_t v[kStreamNumbers] = {s.trace_index,
                                      s.stream_class_id,
                                      s.stream_instance_id,
                                      static_cast<uint64_t>(s.cpu),
                                      s.file_bytes,
                                      s.packets,
                                      s.events,
                                      s.discarded_events,
                                      s.discarded_before_first_packet,
                                      s.lost_packets,
                                      s.clamped_events,
                                      s.max_backward_ns,
                                      s.first_ts,
                                      s.last_ts};
  out->Bytes(v, sizeof(v));
}

bool ReadStream(BinaryReader* in, ctf::StreamStats* s) {
  uint64_t v[kStreamNumbers];
  if (!in->String(&s->path, "stream path") || !in->Bytes(v, sizeof(v), "stream statistics"))
    return false;
  s->trace_index = static_cast<uint32_t>(v[0]);
  s->stream_class_id = v[1];
  s->stream_instance_id = v[2];
  s->cpu = static_cast<int64_t>(v[3]);
  s->file_bytes = v[4];
  s->packets = v[5];
  s->events = v[6];
  s->discarded_events = v[7];
  s->discarded_before_first_packet = v[8];
  s->lost_packets = v[9];
  s->clamped_events = v[10];
  s->max_backward_ns = v[11];
  s->first_ts = v[12];
  s->last_ts = v[13];
  return true;
}

struct HttpNumbers {
  uint32_t host;
  int32_t tid, pid;
  uint8_t sent, truncated, family, reserved;
  int64_t ts;
  uint64_t size;
  uint16_t lport, rport;
  uint32_t reserved2;
};

void WriteHttp(BinaryFileWriter* out, const kernel::HttpMessage& m) {
  out->Pod(HttpNumbers{m.host, m.tid, m.pid, m.sent, m.truncated, m.family, 0, m.ts, m.size,
                       m.lport, m.rport, 0});
  for (const std::string* s :
       {&m.laddr, &m.raddr, &m.first_line, &m.traceparent, &m.b3, &m.uber_trace_id})
    out->String(*s);
}

bool ReadHttp(BinaryReader* in, kernel::HttpMessage* m) {
  HttpNumbers n;
  if (!in->Pod(&n, "HTTP message")) return false;
  m->host = n.host;
  m->tid = n.tid;
  m->pid = n.pid;
  m->sent = n.sent != 0;
  m->truncated = n.truncated != 0;
  m->family = n.family;
  m->ts = n.ts;
  m->size = n.size;
  m->lport = n.lport;
  m->rport = n.rport;
  for (std::string* s :
       {&m->laddr, &m->raddr, &m->first_line, &m->traceparent, &m->b3, &m->uber_trace_id})
    if (!in->String(s, "HTTP message text")) return false;
  return true;
}

void WriteClocks(BinaryFileWriter* out, const ClockSync& c) {
  out->Pod<uint8_t>(c.applied);
  out->String(c.source);
  out->Pod<uint64_t>(c.matched_segments);
  out->Pod<uint64_t>(c.hosts.size());
  for (const sync::HostTransform& h : c.hosts) {
    out->String(h.host);
    out->String(h.via);
    out->Pod<uint8_t>(h.reference);
    out->Pod<uint8_t>(h.connected);
    for (long double x : {h.slope, h.offset, h.accuracy_ns}) out->Pod(x);
    out->Pod(h.transform);
  }
}

bool ReadClocks(BinaryReader* in, ClockSync* c) {
  uint8_t applied;
  uint64_t n;
  if (!in->Pod(&applied, "clocks") || !in->String(&c->source, "clock source") ||
      !in->Pod(&c->matched_segments, "clocks") || !in->Count(&n, 16, "clock hosts"))
    return false;
  c->applied = applied != 0;
  c->hosts.resize(n);
  for (sync::HostTransform& h : c->hosts) {
    uint8_t reference, connected;
    if (!in->String(&h.host, "clock host") || !in->String(&h.via, "clock host") ||
        !in->Pod(&reference, "clock host") || !in->Pod(&connected, "clock host") ||
        !in->Pod(&h.slope, "clock slope") || !in->Pod(&h.offset, "clock offset") ||
        !in->Pod(&h.accuracy_ns, "clock accuracy") || !in->Pod(&h.transform, "clock transform"))
      return false;
    h.reference = reference != 0;
    h.connected = connected != 0;
  }
  return true;
}

void WriteBody(BinaryFileWriter* out, const KernelAnalysis& a) {
  graph::WriteExecutionGraph(a.graph, out);
  out->Pod(a.counters);
  WriteStrings(out, a.paths);
  WriteStrings(out, a.trace_dirs);
  WriteStrings(out, a.unused_trace_dirs);
  out->Pod<uint64_t>(a.streams.size());
  for (const ctf::StreamStats& s : a.streams) WriteStream(out, s);
  out->Pod(a.events_read);
  out->Pod(a.bytes);
  out->Pod<uint64_t>(a.http_messages.size());
  for (const kernel::HttpMessage& m : a.http_messages) WriteHttp(out, m);
  WriteClocks(out, a.clocks);
  out->Pod(a.begin);
  out->Pod(a.end);
}

bool ReadBody(BinaryReader* in, KernelAnalysis* a) {
  if (!graph::ReadExecutionGraph(in, &a->graph) || !in->Pod(&a->counters, "model counters") ||
      !ReadStrings(in, &a->paths, "trace paths") ||
      !ReadStrings(in, &a->trace_dirs, "trace folders") ||
      !ReadStrings(in, &a->unused_trace_dirs, "unused trace folders"))
    return false;
  uint64_t n;
  if (!in->Count(&n, 8 + kStreamNumbers * 8, "streams")) return false;
  a->streams.resize(n);
  for (ctf::StreamStats& s : a->streams)
    if (!ReadStream(in, &s)) return false;
  if (!in->Pod(&a->events_read, "events read") || !in->Pod(&a->bytes, "trace bytes") ||
      !in->Count(&n, sizeof(HttpNumbers) + 6 * 8, "HTTP messages"))
    return false;
  a->http_messages.resize(n);
  for (kernel::HttpMessage& m : a->http_messages)
    if (!ReadHttp(in, &m)) return false;
  for (const kernel::HttpMessage& m : a->http_messages)
    if (m.host >= a->graph.hosts().size())
      return in->Fail(
          fmt::format("an HTTP message of host {} of {}", m.host, a->graph.hosts().size()));
  if (!ReadClocks(in, &a->clocks) || !in->Pod(&a->begin, "begin") || !in->Pod(&a->end, "end"))
    return false;
  if (!in->at_end()) return in->Fail(fmt::format("{} bytes after the end", in->remaining()));
  return true;
}

}  // namespace

Status WriteKernelAnalysisFile(const KernelAnalysis& a, const std::string& path,
                               const std::string& key) {
  ASSIGN_OR_RETURN(std::unique_ptr<BinaryFileWriter> out,
                   BinaryFileWriter::Create(path, sizeof(FileHeader)));
  out->Bytes(key.data(), key.size());
  WriteBody(out.get(), a);
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kKernelAnalysisFileVersion;
  h.byte_order = kByteOrderMark;
  h.built_unix_s = static_cast<int64_t>(std::time(nullptr));
  h.key_size = key.size();
  h.body_size = out->body_bytes();
  h.checksum = out->body_checksum();
  h.counters_size = sizeof(kernel::ModelCounters);
  h.long_double_size = sizeof(long double);
  return out->Commit(&h, sizeof(h));
}

StatusOr<std::unique_ptr<KernelAnalysis>> ReadKernelAnalysisFile(const std::string& path,
                                                                 const std::string& expected_key,
                                                                 KernelAnalysisFileInfo* info) {
  KernelAnalysisFileInfo local;
  if (!info) info = &local;
  struct stat st;
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT)
    return NotFound(fmt::format("{}: no such file", path));
  ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path));
  info->bytes = file.size();
  auto refuse = [&path](const std::string& reason) {
    return DataLoss(fmt::format("{}: {}", path, reason));
  };
  FileHeader h;
  if (file.size() < sizeof(h))
    return refuse(
        fmt::format("cut short ({} bytes, less than the header's {})", file.size(), sizeof(h)));
  RETURN_IF_ERROR(file.Read(&h, sizeof(h), 0).WithContext("Cannot read " + path));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0)
    return refuse("not a Causeway graph file (wrong magic)");
  if (h.byte_order != kByteOrderMark) return refuse("written on a machine of another byte order");
  if (h.version != kKernelAnalysisFileVersion || h.counters_size != sizeof(kernel::ModelCounters) ||
      h.long_double_size != sizeof(long double))
    return refuse(fmt::format(
        "format version {} (counters of {} bytes), this causeway reads "
        "version {} ({} bytes)",
        h.version, h.counters_size, kKernelAnalysisFileVersion, sizeof(kernel::ModelCounters)));
  if (h.body_size != file.size() - sizeof(h))
    return refuse(fmt::format("{} bytes, the header says {} (cut short or appended to)",
                              file.size(), h.body_size + sizeof(h)));
  if (h.key_size > h.body_size) return refuse("the key is longer than the file");
  info->built_unix_s = h.built_unix_s;
  info->key.resize(h.key_size);
  RETURN_IF_ERROR(
      file.Read(info->key.data(), h.key_size, sizeof(h)).WithContext("Cannot read " + path));
  if (info->key != expected_key) return std::unique_ptr<KernelAnalysis>();

  // One read of the whole body, checked, then parsed: its size is the file's, so a forged
  // header cannot ask for more memory than the file holds.
  std::unique_ptr<char[]> body(new char[h.body_size]);
  RETURN_IF_ERROR(file.Read(body.get(), h.body_size, sizeof(h)).WithContext("Cannot read " + path));
  if (Checksum64::Of(body.get(), h.body_size) != h.checksum)
    return refuse("damaged (checksum mismatch)");
  BinaryReader in(std::string_view(body.get() + h.key_size, h.body_size - h.key_size),
                  sizeof(h) + h.key_size);
  auto a = std::make_unique<KernelAnalysis>();
  if (!ReadBody(&in, a.get())) return refuse("inconsistent " + in.error());
  return a;
}

}  // namespace causeway::analysis
