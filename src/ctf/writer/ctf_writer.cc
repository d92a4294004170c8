#include "ctf/writer/ctf_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <random>
#include <system_error>

#include <fmt/format.h>

namespace causeway::ctf {
namespace writer_internal {

// Packet layout (all integers little-endian, byte aligned):
//   header:  u32 magic, u8 uuid[16], u32 stream_id, u64 stream_instance_id      (32 bytes)
//   context: u64 timestamp_begin, timestamp_end, content_size, packet_size,
//            packet_seq_num, events_discarded; u32 cpu_id                        (52 bytes)
constexpr uint32_t kMagic = 0xC1FC1FC1;
constexpr size_t kOffTsBegin = 32;
constexpr size_t kOffTsEnd = 40;
constexpr size_t kOffContentSize = 48;
constexpr size_t kOffPacketSize = 56;
constexpr size_t kOffSeqNum = 64;
constexpr size_t kOffDiscarded = 72;
constexpr size_t kOffCpuId = 80;
constexpr size_t kPacketPreamble = 84;

// Event header (struct event_header_compact, align(8)):
//   compact:  u32 = id (5 bits) | ts low 27 bits << 5                            (4 bytes)
//   extended: u8 = 31, u32 id, u64 ts                                            (13 bytes)
// The reader rebuilds a compact timestamp from the previous clock value of the stream
// (the previous event, or timestamp_begin at the start of a packet) as the next value
// with those low 27 bits: compact is exact when ts - previous < 2^27.
// With TraceOptions::plain_event_header: u32 id, u64 ts                         (12 bytes)

struct EventClassInfo {
  std::string name;
  std::vector<FieldSpec> fields;
  std::vector<FieldKind> kinds;
  int loglevel = -1;
  size_t fixed_size = 0;  // bytes of the non-string fields
};

}  // namespace writer_internal

using writer_internal::EventClassInfo;
using writer_internal::Stream;
namespace wi = writer_internal;

namespace {

size_t FixedSize(FieldKind k) {
  switch (k) {
    case FieldKind::kU8:
    case FieldKind::kS8:
      return 1;
    case FieldKind::kU16:
    case FieldKind::kS16:
      return 2;
    case FieldKind::kU32:
    case FieldKind::kS32:
      return 4;
    case FieldKind::kU64:
    case FieldKind::kS64:
    case FieldKind::kHex64:
    case FieldKind::kDouble:
      return 8;
    case FieldKind::kCharArray16:
    case FieldKind::kBytes16:
      return 16;
    case FieldKind::kString:
      return 0;
  }
  return 0;
}

const char* KindName(FieldKind k) {
  switch (k) {
    case FieldKind::kU8:
      return "u8";
    case FieldKind::kU16:
      return "u16";
    case FieldKind::kU32:
      return "u32";
    case FieldKind::kU64:
      return "u64";
    case FieldKind::kS8:
      return "s8";
    case FieldKind::kS16:
      return "s16";
    case FieldKind::kS32:
      return "s32";
    case FieldKind::kS64:
      return "s64";
    case FieldKind::kHex64:
      return "hex64";
    case FieldKind::kString:
      return "string";
    case FieldKind::kCharArray16:
      return "char[16]";
    case FieldKind::kBytes16:
      return "u8[16]";
    case FieldKind::kDouble:
      return "double";
  }
  return "?";
}

// TSDL declaration of one field type, as lttng-modules writes it.
std::string TypeDecl(FieldKind k) {
  auto integer = [](int size, bool is_signed, int base) {
    return fmt::format(
        "integer {{ size = {}; align = 8; signed = {}; encoding = none; base = {}; }}", size,
        is_signed ? 1 : 0, base);
  };
  switch (k) {
    case FieldKind::kU8:
      return integer(8, false, 10);
    case FieldKind::kU16:
      return integer(16, false, 10);
    case FieldKind::kU32:
      return integer(32, false, 10);
    case FieldKind::kU64:
      return integer(64, false, 10);
    case FieldKind::kS8:
      return integer(8, true, 10);
    case FieldKind::kS16:
      return integer(16, true, 10);
    case FieldKind::kS32:
      return integer(32, true, 10);
    case FieldKind::kS64:
      return integer(64, true, 10);
    case FieldKind::kHex64:
      return integer(64, false, 16);
    case FieldKind::kString:
      return "string";
    case FieldKind::kCharArray16:
      return "integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; }";
    case FieldKind::kBytes16:
      return integer(8, false, 10);
    case FieldKind::kDouble:
      return "floating_point { exp_dig = 11; mant_dig = 53; align = 8; }";
  }
  return "";
}

bool IsInteger(FieldKind k) {
  switch (k) {
    case FieldKind::kU8:
    case FieldKind::kU16:
    case FieldKind::kU32:
    case FieldKind::kU64:
    case FieldKind::kS8:
    case FieldKind::kS16:
    case FieldKind::kS32:
    case FieldKind::kS64:
    case FieldKind::kHex64:
      return true;
    default:
      return false;
  }
}

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// TSDL string literal body; rejects what cannot be written.
bool IsPlainLiteral(std::string_view s) {
  for (unsigned char c : s)
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) return false;
  return true;
}

std::string UuidText(const std::array<uint8_t, 16>& u) {
  std::string s;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", u[i]);
  }
  return s;
}

std::array<uint8_t, 16> RandomUuid() {
  std::random_device rd;
  std::array<uint8_t, 16> u{};
  for (size_t i = 0; i < 16; i += 4) {
    uint32_t r = rd();
    std::memcpy(&u[i], &r, 4);
  }
  u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
  u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return u;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(v));
}

Status WriteAll(int fd, const uint8_t* data, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError(fmt::format("Cannot write: file={}, error={}", path, std::strerror(errno)));
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Creation, event classes.

CtfWriter::CtfWriter(std::string dir, TraceOptions opts)
    : dir_(std::move(dir)), opts_(std::move(opts)) {
  uuid_ = opts_.uuid ? *opts_.uuid : RandomUuid();
  ctx_size_ = opts_.event_context_procname_vtid ? wi::kContextSize : 0;
  plain_header_ = opts_.plain_event_header;
  packet_size_ = opts_.packet_size;
}

namespace {

Status CheckOptions(const std::string& dir, const TraceOptions& opts) {
  auto fail = [&](const std::string& why) {
    return InvalidArgument(fmt::format("Cannot create CTF trace: dir={}: {}", dir, why));
  };
  if (opts.domain != "kernel" && opts.domain != "ust") return fail("domain must be kernel or ust");
  if (opts.packet_size < 256 || opts.packet_size % 8 != 0 || opts.packet_size > (size_t{1} << 30))
    return fail(
        fmt::format("packet_size={} must be a multiple of 8 in [256, 1 GiB]", opts.packet_size));
  if (!IsIdentifier(opts.clock_name)) return fail("clock_name must be an identifier");
  if (opts.channel_name.empty() || opts.channel_name.find('/') != std::string::npos)
    return fail("bad channel_name");
  for (const std::string* s : {&opts.hostname, &opts.domain, &opts.tracer_name, &opts.sysname,
                               &opts.kernel_release, &opts.kernel_version})
    if (!IsPlainLiteral(*s))
      return fail("env strings cannot hold quotes, backslashes or control characters");
  for (const auto& [key, value] : opts.extra_env) {
    if (!IsIdentifier(key)) return fail(fmt::format("env key '{}' is not an identifier", key));
    if (const auto* str = std::get_if<std::string>(&value); str && !IsPlainLiteral(*str))
      return fail(
          fmt::format("env value of '{}' has quotes, backslashes or control characters", key));
  }
  if ((opts.dir_mode | opts.file_mode) & ~07777u) return fail("bad dir_mode or file_mode");
  return Status::Ok();
}

// `dir` as an empty directory (created with `mode`, parents as usual, when missing).
Status MakeEmptyDirectory(const std::string& dir, uint32_t mode) {
  std::error_code ec;
  namespace fs = std::filesystem;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec))
      return InvalidArgument("it exists and is not an empty directory");
    return Status::Ok();
  }
  fs::create_directories(dir, ec);
  if (ec) return IoError(fmt::format("cannot create it: {}", ec.message()));
  if (::chmod(dir.c_str(), mode) != 0)
    return IoError(fmt::format("cannot set its mode: {}", std::strerror(errno)));
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<CtfWriter>> CtfWriter::Create(const std::string& dir, TraceOptions opts) {
  RETURN_IF_ERROR(CheckOptions(dir, opts));
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec)) {
    return InvalidArgument(fmt::format("Cannot create CTF trace: dir={}: {}", dir,
                                       std::filesystem::is_directory(dir, ec)
                                           ? "directory exists and is not empty"
                                           : "exists and is not a directory"));
  }
  if (Status st = MakeEmptyDirectory(dir, opts.dir_mode); !st.ok()) {
    return Status(st.code(), fmt::format("Cannot create CTF trace: dir={}: {}", dir, st.message()));
  }
  std::unique_ptr<CtfWriter> w(new CtfWriter(dir, std::move(opts)));
  RETURN_IF_ERROR(w->OpenDirectory(dir));
  return w;
}

StatusOr<std::unique_ptr<CtfWriter>> CtfWriter::CreateAt(int dir_fd, const std::string& dir,
                                                         TraceOptions opts) {
  RETURN_IF_ERROR(CheckOptions(dir, opts));
  std::unique_ptr<CtfWriter> w(new CtfWriter(dir, std::move(opts)));
  w->dir_fd_ = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (w->dir_fd_ < 0)
    return IoError(
        fmt::format("Cannot use directory: dir={}, error={}", dir, std::strerror(errno)));
  return w;
}

Status CtfWriter::OpenDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return IoError(
        fmt::format("Cannot open directory: dir={}, error={}", dir, std::strerror(errno)));
  if (dir_fd_ >= 0) ::close(dir_fd_);
  dir_fd_ = fd;
  dir_ = dir;
  return Status::Ok();
}

// A new file in the trace directory, never through a symbolic link nor over an existing
// file, with exactly the configured mode.
int CtfWriter::CreateFile(const std::string& name, std::string* path) {
  *path = dir_ + "/" + name;
  const int fd = ::openat(dir_fd_, name.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, opts_.file_mode);
  if (fd < 0) return fd;
  if (::fchmod(fd, opts_.file_mode) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

CtfWriter::~CtfWriter() {
  if (!closed_) {
    Status st = Close();
    if (!st.ok()) std::fprintf(stderr, "CtfWriter: %s\n", st.ToString().c_str());
  }
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

StatusOr<uint32_t> CtfWriter::AddEventClass(std::string name, std::vector<FieldSpec> fields,
                                            int loglevel) {
  auto fail = [&](const std::string& why) {
    return InvalidArgument(fmt::format("Cannot add event class: name={}: {}", name, why));
  };
  if (closed_) return fail("writer is closed");
  if (name.empty() || !IsPlainLiteral(name)) return fail("bad event name");
  if (classes_.size() >= 0xffffffffu) return fail("too many event classes");
  EventClassInfo c;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!IsIdentifier(fields[i].name))
      return fail(fmt::format("bad field name '{}'", fields[i].name));
    for (size_t j = 0; j < i; ++j)
      if (fields[j].name == fields[i].name)
        return fail(fmt::format("duplicate field '{}'", fields[i].name));
    if (static_cast<uint8_t>(fields[i].kind) > static_cast<uint8_t>(FieldKind::kBytes16))
      return fail("bad field kind");
    if (!fields[i].labels.empty()) {
      if (!IsInteger(fields[i].kind))
        return fail(fmt::format("labels on the non-integer field '{}'", fields[i].name));
      for (const EnumLabel& l : fields[i].labels)
        if (l.label.empty() || !IsPlainLiteral(l.label))
          return fail(fmt::format("bad label '{}' of field '{}'", l.label, fields[i].name));
    }
    c.kinds.push_back(fields[i].kind);
    c.fixed_size += FixedSize(fields[i].kind);
  }
  c.name = std::move(name);
  c.fields = std::move(fields);
  c.loglevel = loglevel;
  classes_.push_back(std::move(c));
  const EventClassInfo& added = classes_.back();  // moving a vector keeps its buffer
  hot_.push_back({added.kinds.data(), static_cast<uint32_t>(added.kinds.size()),
                  static_cast<uint32_t>(added.fixed_size)});
  return static_cast<uint32_t>(classes_.size() - 1);
}

size_t CtfWriter::event_class_count() const { return classes_.size(); }

void CtfWriter::Fail(Status st) {
  if (status_.ok()) status_ = std::move(st);
}

// ---------------------------------------------------------------------------------------
// Streams and packets.

Status CtfWriter::OpenStreamFile(Stream& s) {
  s.chunk_first_seq_num = s.seq_num;
  s.file_end = 0;
  s.published_pos = 0;
  s.fd = CreateFile(fmt::format("{}_{}", opts_.channel_name, s.index), &s.path);
  if (s.fd >= 0) return Status::Ok();
  io_failed_ = true;
  return IoError(
      fmt::format("Cannot create stream file: file={}, error={}", s.path, std::strerror(errno)));
}

void CtfWriter::CloseStreamFile(Stream& s) {
  if (::close(s.fd) != 0 && !io_failed_) {
    io_failed_ = true;
    Fail(IoError(fmt::format("Cannot close: file={}, error={}", s.path, std::strerror(errno))));
  }
  s.fd = -1;
}

StatusOr<Stream*> CtfWriter::GetStream(uint32_t index) {
  if (index < streams_.size() && streams_[index]) [[likely]]
    return streams_[index].get();
  if (index >= 65536) return InvalidArgument(fmt::format("stream index {} is too large", index));
  if (io_failed_) return IoError("an earlier write failed");
  if (index >= streams_.size()) streams_.resize(index + 1);
  auto s = std::make_unique<Stream>();
  s->index = index;
  s->seq_num = opts_.first_packet_seq_num;
  if (Status st = OpenStreamFile(*s); !st.ok()) return st;
  s->cap = opts_.packet_size + 4096;
  s->buf = std::make_unique<uint8_t[]>(s->cap);
  if (index >= fast_streams_.size()) fast_streams_.resize(index + 1, nullptr);
  fast_streams_[index] = s.get();
  streams_[index] = std::move(s);
  return streams_[index].get();
}

void CtfWriter::OpenPacket(Stream& s, uint64_t begin_ts) {
  if (s.seq_num == 0 && s.discarded > 0) {
    // Readers give no count for discarded events reported by a stream's first packet
    // (nothing to compare with): lead with an empty packet that reports none.
    uint64_t total = std::exchange(s.discarded, 0);
    OpenPacket(s, begin_ts);
    (void)FlushPacket(s);
    s.discarded = total;
  }
  uint8_t* p = s.buf.get();
  Store<uint32_t>(p, wi::kMagic);
  std::memcpy(p + 4, uuid_.data(), 16);
  Store<uint32_t>(p + 20, 0);                        // stream_id
  Store<uint64_t>(p + 24, s.index);                  // stream_instance_id
  std::memset(p + 32, 0, wi::kPacketPreamble - 32);  // context, patched at flush
  s.pos = wi::kPacketPreamble;
  s.packet_open = true;
  s.packet_begin_ts = begin_ts;
  s.packet_events = 0;
  s.discard_pending = false;
}

void CtfWriter::StampContext(Stream& s, uint64_t end_ts) {
  uint8_t* p = s.buf.get();
  Store<uint64_t>(p + wi::kOffTsBegin, s.packet_begin_ts);
  Store<uint64_t>(p + wi::kOffTsEnd, end_ts);
  Store<uint64_t>(p + wi::kOffContentSize, uint64_t{s.pos} * 8);
  Store<uint64_t>(p + wi::kOffPacketSize, uint64_t{opts_.packet_size} * 8);
  Store<uint64_t>(p + wi::kOffSeqNum, s.seq_num);
  Store<uint64_t>(p + wi::kOffDiscarded, s.discarded);
  Store<uint32_t>(p + wi::kOffCpuId, s.index);
}

Status CtfWriter::WritePacketBytes(Stream& s, size_t from, size_t n) {
  const uint8_t* data = s.buf.get() + from;
  off_t at = static_cast<off_t>(s.file_end + from);
  while (n > 0) {
    ssize_t w = ::pwrite(s.fd, data, n, at);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError(fmt::format("Cannot write: file={}, error={}", s.path, std::strerror(errno)));
    }
    data += w;
    at += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

void CtfWriter::OnPacketWriteError(Stream& s, const Status& st, bool drop_packet) {
  if (opts_.on_write_error != TraceOptions::OnWriteError::kDropPacket) {
    io_failed_ = true;
    Fail(st);
    return;
  }
  // The file ends with whole packets again; what did not fit is lost, and said so.
  ++losses_.failures;
  losses_.last_error = st.message();
  if (::ftruncate(s.fd, static_cast<off_t>(s.file_end)) != 0) {
    io_failed_ = true;
    Fail(IoError(fmt::format("Cannot cut back a partly written packet: file={}, error={}", s.path,
                             std::strerror(errno))));
  }
  s.published_pos = 0;
  if (!drop_packet) return;
  ++losses_.packets;
  losses_.events += s.packet_events;
  losses_.bytes += s.pos;
  // The next packet of the stream reports the dropped events as discarded.
  s.discarded += s.packet_events;
  s.write_dropped += s.packet_events;
  s.discard_pending = true;
}

Status CtfWriter::FlushPacket(Stream& s, uint64_t empty_end_ts) {
  uint8_t* p = s.buf.get();
  uint64_t end_ts = s.packet_events ? s.last_ts : std::max(s.packet_begin_ts, empty_end_ts);
  StampContext(s, end_ts);
  std::memset(p + s.pos, 0, opts_.packet_size - s.pos);
  s.packet_open = false;
  if (io_failed_) {
    s.seq_num++;
    s.pos = 0;
    s.packet_events = 0;
    return IoError("an earlier write failed");
  }
  // A published packet has its padding on disk already: the new content, then the
  // context that declares it, so that the file is whole at every moment.
  Status st = s.published_pos > 0 ? WritePacketBytes(s, s.published_pos, s.pos - s.published_pos)
                                  : WritePacketBytes(s, 0, opts_.packet_size);
  if (st.ok() && s.published_pos > 0) st = WritePacketBytes(s, 0, wi::kPacketPreamble);
  if (!st.ok()) {
    OnPacketWriteError(s, st, /*drop_packet=*/true);
    s.pos = 0;
    s.packet_events = 0;
    return st;
  }
  s.published_pos = 0;
  s.file_end += opts_.packet_size;
  s.seq_num++;
  s.pos = 0;
  events_flushed_ += s.packet_events;
  s.packet_events = 0;
  bytes_flushed_ += opts_.packet_size;
  return Status::Ok();
}

Status CtfWriter::PublishOpenPackets() {
  if (closed_) return status_;
  for (auto& sp : streams_) {
    if (!sp) continue;
    Stream& s = *sp;
    if (io_failed_ || !s.packet_open || s.builder_open || s.packet_events == 0) continue;
    if (s.published_pos == s.pos) continue;
    StampContext(s, s.last_ts);
    Status st;
    if (s.published_pos == 0) {
      std::memset(s.buf.get() + s.pos, 0, opts_.packet_size - s.pos);
      st = WritePacketBytes(s, 0, opts_.packet_size);
    } else {
      st = WritePacketBytes(s, s.published_pos, s.pos - s.published_pos);
      if (st.ok()) st = WritePacketBytes(s, 0, wi::kPacketPreamble);
    }
    if (!st.ok()) {
      OnPacketWriteError(s, st, /*drop_packet=*/false);
      continue;
    }
    s.published_pos = s.pos;
  }
  return status_;
}

uint64_t CtfWriter::events_written() const {
  uint64_t n = events_flushed_;
  for (const auto& s : streams_)
    if (s && s->packet_open) n += s->packet_events;
  return n;
}

uint64_t CtfWriter::bytes_written() const {
  uint64_t n = bytes_flushed_;
  for (const auto& s : streams_)
    if (s && s->packet_open) n += s->pos;
  return n;
}

// ---------------------------------------------------------------------------------------
// Events.

CtfWriter::EventBuilder CtfWriter::BeginImpl(uint32_t stream, uint32_t event_class_id,
                                             uint64_t timestamp, const UstContext* context) {
  EventBuilder b;
  auto fail = [&](Status st) {
    Fail(std::move(st).WithContext(fmt::format("Cannot write event: stream={}, class={}, ts={}",
                                               stream, event_class_id, timestamp)));
    return std::move(b);
  };
  if (closed_) [[unlikely]]
    return fail(InvalidArgument("writer is closed"));
  if (event_class_id >= classes_.size()) [[unlikely]]
    return fail(InvalidArgument("unknown event class"));
  if ((context != nullptr) != opts_.event_context_procname_vtid) [[unlikely]]
    return fail(InvalidArgument(context ? "this trace has no event context"
                                        : "this trace needs a UstContext for every event"));
  StatusOr<Stream*> so = GetStream(stream);
  if (!so.ok()) [[unlikely]]
    return fail(so.status());
  Stream& s = **so;
  if (s.builder_open) [[unlikely]]
    return fail(InvalidArgument("another event is being written on this stream"));
  if (s.has_ts && timestamp < s.last_ts) [[unlikely]]
    return fail(InvalidArgument(
        fmt::format("timestamp goes backwards on this stream (previous event at {})", s.last_ts)));

  const EventClassInfo& c = classes_[event_class_id];
  if (!s.has_ts && !rotated_)  // the recording's start, for an idle stream's first chunk
    first_ts_ = std::min(first_ts_, timestamp);
  uint64_t baseline = s.has_ts ? s.last_ts : timestamp;
  bool compact = event_class_id < wi::kExtendedId && timestamp - baseline <= wi::kTs27Mask;
  size_t need = (plain_header_ ? wi::kPlainHeader
                 : compact     ? 4
                               : wi::kMaxHeader) +
                ctx_size_ + c.fixed_size;
  if (!s.packet_open) {
    OpenPacket(s, baseline);
  } else if (s.packet_events == 0) {
    s.packet_begin_ts = baseline;  // an earlier event of this packet was dropped
  } else if (s.pos + need > opts_.packet_size && s.packet_events > 0) {
    // A dropped packet (OnWriteError::kDropPacket) does not stop the stream.
    if (!FlushPacket(s).ok() && io_failed_) return b;
    OpenPacket(s, baseline);
  }
  if (s.pos + need > s.cap) {
    size_t cap = std::max(s.cap * 2, s.pos + need + 4096);
    auto nb = std::make_unique<uint8_t[]>(cap);
    std::memcpy(nb.get(), s.buf.get(), s.pos);
    s.buf = std::move(nb);
    s.cap = cap;
  }

  uint8_t* p = s.buf.get() + s.pos;
  if (plain_header_) {
    Store<uint32_t>(p, event_class_id);
    Store<uint64_t>(p + 4, timestamp);
    p += wi::kPlainHeader;
  } else if (compact) {
    Store<uint32_t>(p, event_class_id | static_cast<uint32_t>((timestamp & wi::kTs27Mask) << 5));
    p += 4;
  } else {
    p[0] = wi::kExtendedId;
    Store<uint32_t>(p + 1, event_class_id);
    Store<uint64_t>(p + 5, timestamp);
    p += 13;
  }
  if (context) p = WriteContext(p, *context);

  s.builder_open = true;
  b.writer_ = this;
  b.stream_ = &s;
  b.kinds_ = c.kinds.data();
  b.cur_ = p;
  b.ts_ = timestamp;
  b.event_start_ = s.pos;
  b.idx_ = 0;
  b.n_ = static_cast<uint32_t>(c.kinds.size());
  b.class_id_ = event_class_id;
  return b;
}

uint8_t* CtfWriter::WriteContext(uint8_t* p, const UstContext& context) {
  uint8_t name[17] = {};  // at most 16 bytes and a NUL
  size_t n = std::min<size_t>(context.procname.size(), 16);
  if (n) std::memcpy(name, context.procname.data(), n);
  std::memcpy(p, name, 17);
  Store<int32_t>(p + 17, context.vtid);
  return p + wi::kContextSize;
}

void CtfWriter::EventBuilder::Mismatch(FieldKind k) {
  if (!writer_ || poisoned_) return;
  poisoned_ = true;
  const EventClassInfo& c = writer_->classes_[class_id_];
  std::string why =
      idx_ >= n_ ? fmt::format("event class {} has only {} fields; got a {} value", c.name, n_,
                               KindName(k))
                 : fmt::format("field {} of event class {} is a {}; got a {} value",
                               c.fields[idx_].name, c.name, KindName(kinds_[idx_]), KindName(k));
#ifndef NDEBUG
  std::fprintf(stderr, "CtfWriter: programming error: %s\n", why.c_str());
  std::abort();
#endif
  writer_->Fail(InvalidArgument(std::move(why)));
}

CtfWriter::EventBuilder& CtfWriter::EventBuilder::String(std::string_view v) {
  if (!Expect(FieldKind::kString)) return *this;
  if (const void* z = v.empty() ? nullptr : std::memchr(v.data(), 0, v.size()))
    v = v.substr(0, static_cast<const char*>(z) - v.data());
  writer_->GrowForString(*this, v.size() + 1);
  if (!v.empty()) std::memcpy(cur_, v.data(), v.size());
  cur_[v.size()] = 0;
  cur_ += v.size() + 1;
  ++idx_;
  return *this;
}

void CtfWriter::GrowForString(EventBuilder& b, size_t n) {
  Stream& s = *b.stream_;
  size_t used = static_cast<size_t>(b.cur_ - s.buf.get());
  // Room for the string plus the fixed fields that may still follow.
  size_t need = used + n + classes_[b.class_id_].fixed_size;
  if (need <= s.cap) return;
  size_t cap = std::max(s.cap * 2, need + 4096);
  auto nb = std::make_unique<uint8_t[]>(cap);
  std::memcpy(nb.get(), s.buf.get(), used);
  s.buf = std::move(nb);
  s.cap = cap;
  b.cur_ = s.buf.get() + used;
}

void CtfWriter::FinishEvent(EventBuilder& b) {
  Stream& s = *b.stream_;
  b.writer_ = nullptr;
  s.builder_open = false;
  if (b.poisoned_ || b.idx_ != b.n_) [[unlikely]] {
    if (!b.poisoned_)
      Fail(InvalidArgument(
          fmt::format("Cannot write event: stream={}, class={}, ts={}: {} of {} fields written",
                      s.index, classes_[b.class_id_].name, b.ts_, b.idx_, b.n_)));
    return;  // s.pos unchanged: the event is dropped
  }
  size_t end = static_cast<size_t>(b.cur_ - s.buf.get());
  if (end > opts_.packet_size) [[unlikely]] {
    // Long strings overflowed the packet: move the event to a fresh packet. Its header was
    // encoded against s.last_ts, which is also the new packet's timestamp_begin.
    size_t len = end - b.event_start_;
    if (wi::kPacketPreamble + len > opts_.packet_size) {
      Fail(InvalidArgument(
          fmt::format("Cannot write event: stream={}, class={}, ts={}: {} bytes do not fit in "
                      "a packet of {} bytes",
                      s.index, classes_[b.class_id_].name, b.ts_, len, opts_.packet_size)));
      return;
    }
    std::vector<uint8_t> event(s.buf.get() + b.event_start_, s.buf.get() + end);
    s.pos = b.event_start_;
    if (!FlushPacket(s).ok() && io_failed_) return;
    OpenPacket(s, s.last_ts);
    std::memcpy(s.buf.get() + s.pos, event.data(), len);
    end = s.pos + len;
  }
  s.pos = end;
  s.last_ts = b.ts_;
  s.has_ts = true;
  s.packet_events++;
}

Status CtfWriter::Write(uint32_t stream, uint32_t event_class_id, uint64_t timestamp,
                        std::span<const FieldValue> fields, const UstContext* context) {
  auto fail = [&](std::string why) {
    Status st = InvalidArgument(fmt::format("Cannot write event: stream={}, class={}, ts={}: {}",
                                            stream, event_class_id, timestamp, why));
    Fail(st);
    return st;
  };
  if (event_class_id >= classes_.size()) return fail("unknown event class");
  const EventClassInfo& c = classes_[event_class_id];
  if (fields.size() != c.fields.size())
    return fail(fmt::format("{} values for {} fields", fields.size(), c.fields.size()));
  for (size_t i = 0; i < fields.size(); ++i) {
    FieldKind k = c.kinds[i];
    FieldValue::Type t = fields[i].type;
    bool is_int = t == FieldValue::Type::kSigned || t == FieldValue::Type::kUnsigned;
    bool ok =
        k == FieldKind::kDouble ? t == FieldValue::Type::kDouble
        : (k == FieldKind::kString || k == FieldKind::kCharArray16 || k == FieldKind::kBytes16)
            ? t == FieldValue::Type::kString
            : is_int;
    if (!ok)
      return fail(
          fmt::format("value {} does not fit field {} ({})", i, c.fields[i].name, KindName(k)));
  }
  Status before = status_;
  status_ = Status::Ok();
  {
    EventBuilder b = BeginImpl(stream, event_class_id, timestamp, context);
    for (size_t i = 0; b.writer_ && i < fields.size(); ++i) {
      const FieldValue& v = fields[i];
      uint64_t u = v.type == FieldValue::Type::kSigned ? static_cast<uint64_t>(v.i) : v.u;
      switch (c.kinds[i]) {
        case FieldKind::kU8:
          b.U8(static_cast<uint8_t>(u));
          break;
        case FieldKind::kU16:
          b.U16(static_cast<uint16_t>(u));
          break;
        case FieldKind::kU32:
          b.U32(static_cast<uint32_t>(u));
          break;
        case FieldKind::kU64:
          b.U64(u);
          break;
        case FieldKind::kS8:
          b.S8(static_cast<int8_t>(u));
          break;
        case FieldKind::kS16:
          b.S16(static_cast<int16_t>(u));
          break;
        case FieldKind::kS32:
          b.S32(static_cast<int32_t>(u));
          break;
        case FieldKind::kS64:
          b.S64(static_cast<int64_t>(u));
          break;
        case FieldKind::kHex64:
          b.Hex64(u);
          break;
        case FieldKind::kString:
          b.String(v.s);
          break;
        case FieldKind::kCharArray16:
          b.Chars16(v.s);
          break;
        case FieldKind::kBytes16:
          b.Bytes16({reinterpret_cast<const uint8_t*>(v.s.data()), v.s.size()});
          break;
        case FieldKind::kDouble:
          b.Double(v.d);
          break;
      }
    }
  }
  Status mine = status_;
  status_ = before.ok() ? mine : before;
  return mine;
}

Status CtfWriter::SetDiscarded(uint32_t stream, uint64_t cumulative) {
  auto fail = [&](Status st) {
    st = std::move(st).WithContext(
        fmt::format("Cannot set discarded events: stream={}, cumulative={}", stream, cumulative));
    Fail(st);
    return st;
  };
  if (closed_) return fail(InvalidArgument("writer is closed"));
  StatusOr<Stream*> so = GetStream(stream);
  if (!so.ok()) return fail(so.status());
  Stream& s = **so;
  if (s.builder_open) return fail(InvalidArgument("an event is being written on this stream"));
  // The reported total also counts the events of packets a full disk dropped.
  const uint64_t given = s.discarded - s.write_dropped;
  if (cumulative < given)
    return fail(InvalidArgument(fmt::format("the total went down (was {})", given)));
  if (cumulative == given) return Status::Ok();
  if (s.packet_open && s.packet_events > 0) {
    Status st = FlushPacket(s);
    if (!st.ok() && io_failed_) return st;
  }
  if (s.packet_open && s.seq_num == opts_.first_packet_seq_num)
    s.packet_open = false;  // empty first packet: reopened later
  s.discarded = cumulative + s.write_dropped;
  if (!s.packet_open) s.discard_pending = true;
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// Close and metadata.

Status CtfWriter::Close() {
  if (closed_) return status_;
  closed_ = true;
  uint64_t max_ts = 0;
  for (auto& sp : streams_)
    if (sp && sp->has_ts) max_ts = std::max(max_ts, sp->last_ts);
  for (auto& sp : streams_) {
    if (!sp) continue;
    Stream& s = *sp;
    if (s.builder_open) {
      Fail(Internal(fmt::format("Close() while an event is being written on stream {}", s.index)));
      s.builder_open = false;
    }
    // An empty packet: a new total to report, or a stream that has written nothing (in a
    // later chunk of a rotated recording, an idle stream's file stays empty unless the
    // last Rotate wrote empty packets: then the last chunk ends as it did).
    if (idle_ == IdleStreams::kWriteEmptyPacket && !(s.packet_open && s.packet_events > 0))
      EndIdleChunk(s, max_ts);
    if (!s.packet_open && (s.discard_pending || s.seq_num == opts_.first_packet_seq_num))
      OpenPacket(s, s.has_ts ? s.last_ts : max_ts);
    if (s.packet_open) (void)FlushPacket(s);
    CloseStreamFile(s);
    s.buf.reset();
  }

  return WriteMetadata();
}

void CtfWriter::EndIdleChunk(Stream& s, uint64_t cut) {
  if (s.seq_num != s.chunk_first_seq_num) return;  // it wrote a packet in this chunk
  // Stamped from the stream's last event (the chunk's start before its first) to the cut,
  // as LTTng stamps an idle CPU's: its next packet then begins after this one, which keeps
  // the stream's packets in order when a reader (babeltrace2) sorts a stream's chunks by
  // timestamp_begin. The stream's clock moves on to the cut. When no time passed for it
  // (no event of the chunk is later than its last), a packet would begin when its next
  // one does, a tie babeltrace2 may order either way: its file stays empty instead.
  const uint64_t chunk_begin = rotated_ ? chunk_begin_ts_ : std::min(first_ts_, cut);
  const uint64_t begin = s.has_ts ? s.last_ts : chunk_begin;
  if (cut <= begin) return;
  const uint64_t end = cut;
  if (s.packet_open)
    s.packet_begin_ts = begin;  // may be a dropped event's time
  else
    OpenPacket(s, begin);
  (void)FlushPacket(s, end);
  s.last_ts = end;
  s.has_ts = true;
}

Status CtfWriter::Rotate(const std::string& dir, IdleStreams idle) {
  auto fail = [&](Status st) {
    st = std::move(st).WithContext(fmt::format("Cannot rotate the trace to dir={}", dir));
    Fail(st);
    return st;
  };
  if (closed_) return fail(InvalidArgument("writer is closed"));
  if (!status_.ok()) return status_;
  for (auto& sp : streams_)
    if (sp && sp->builder_open)
      return fail(
          InvalidArgument(fmt::format("an event is being written on stream {}", sp->index)));
  if (Status st = MakeEmptyDirectory(dir, opts_.dir_mode); !st.ok()) return fail(st);
  // The time of the cut, as far as the writer knows it: its latest event.
  uint64_t cut = chunk_begin_ts_;
  for (auto& sp : streams_)
    if (sp && sp->has_ts) cut = std::max(cut, sp->last_ts);
  for (auto& sp : streams_) {
    if (!sp) continue;
    Stream& s = *sp;
    // A packet with events ends this chunk. Otherwise an open packet without events goes
    // on into the next chunk, and a discarded total not yet reported is reported by the
    // next chunk's first packet, as LTTng's would be; or a stream idle through the chunk
    // ends it with an empty packet (EndIdleChunk).
    if (s.packet_open && s.packet_events > 0)
      (void)FlushPacket(s);
    else if (idle == IdleStreams::kWriteEmptyPacket)
      EndIdleChunk(s, cut);
    CloseStreamFile(s);
  }
  if (Status st = WriteMetadata(); !st.ok()) return st;
  if (Status st = OpenDirectory(dir); !st.ok()) return fail(st);
  metadata_written_.clear();
  chunk_begin_ts_ = cut;
  rotated_ = true;
  idle_ = idle;
  for (auto& sp : streams_) {
    if (!sp) continue;
    if (Status st = OpenStreamFile(*sp); !st.ok()) {
      Fail(st);
      return status_;
    }
  }
  return status_;
}

Status CtfWriter::WriteMetadata() {
  std::string text = MetadataText();
  if (text == metadata_written_) return status_;
  // Written beside and renamed over, so that `metadata` is whole at every moment: a full
  // disk leaves the previous one in place.
  const char* kTemp = "metadata.tmp";
  std::string tmp_path;
  const std::string path = dir_ + "/metadata";
  (void)::unlinkat(dir_fd_, kTemp, 0);
  int fd = CreateFile(kTemp, &tmp_path);
  if (fd < 0) {
    Fail(IoError(
        fmt::format("Cannot create metadata: file={}, error={}", path, std::strerror(errno))));
    return status_;
  }
  Status st = WriteAll(fd, reinterpret_cast<const uint8_t*>(text.data()), text.size(), path);
  if (::close(fd) != 0 && st.ok())
    st = IoError(fmt::format("Cannot close: file={}, error={}", path, std::strerror(errno)));
  if (st.ok() && ::renameat(dir_fd_, kTemp, dir_fd_, "metadata") != 0)
    st = IoError(fmt::format("Cannot write: file={}, error={}", path, std::strerror(errno)));
  if (!st.ok()) {
    (void)::unlinkat(dir_fd_, kTemp, 0);
    Fail(st);
    return status_;
  }
  metadata_written_ = std::move(text);
  return status_;
}

std::string CtfWriter::MetadataText() const {
  const std::string& clk = opts_.clock_name;
  std::string m;
  m.reserve(4096 + classes_.size() * 512);
  auto out = [&m]<typename... A>(fmt::format_string<A...> f, A&&... a) {
    fmt::format_to(std::back_inserter(m), f, std::forward<A>(a)...);
  };

  out("/* CTF 1.8 */\n\n");
  out("typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;\n");
  out("typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;\n");
  out("typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;\n");
  out("typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;\n");
  out("typealias integer {{ size = 64; align = 8; signed = false; }} := unsigned long;\n");
  out("typealias integer {{ size = 5; align = 1; signed = false; }} := uint5_t;\n");
  out("typealias integer {{ size = 27; align = 1; signed = false; }} := uint27_t;\n\n");

  out("trace {{\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"{}\";\n\tbyte_order = le;\n",
      UuidText(uuid_));
  out("\tpacket.header := struct {{\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n\t\tuint32_t "
      "stream_id;\n"
      "\t\tuint64_t stream_instance_id;\n\t}};\n}};\n\n");

  out("env {{\n\thostname = \"{}\";\n\tdomain = \"{}\";\n", opts_.hostname, opts_.domain);
  if (opts_.domain == "kernel") {
    out("\tsysname = \"{}\";\n\tkernel_release = \"{}\";\n\tkernel_version = \"{}\";\n",
        opts_.sysname, opts_.kernel_release, opts_.kernel_version);
  }
  out("\ttracer_name = \"{}\";\n\ttracer_major = {};\n\ttracer_minor = {};\n\ttracer_patchlevel = "
      "{};\n",
      opts_.tracer_name, opts_.tracer_major, opts_.tracer_minor, opts_.tracer_patchlevel);
  for (const auto& [key, value] : opts_.extra_env) {
    if (const auto* i = std::get_if<int64_t>(&value))
      out("\t{} = {};\n", key, *i);
    else
      out("\t{} = \"{}\";\n", key, std::get<std::string>(value));
  }
  out("}};\n\n");

  out("clock {{\n\tname = \"{}\";\n", clk);
  if (opts_.clock_uuid) out("\tuuid = \"{}\";\n", UuidText(*opts_.clock_uuid));
  out("\tdescription = \"{}\";\n", clk == "monotonic" ? "Monotonic Clock" : clk);
  out("\tfreq = 1000000000; /* Frequency, in Hz */\n");
  out("\t/* clock value offset from Epoch is: offset * (1/freq) */\n\toffset = {};\n}};\n\n",
      opts_.clock_offset_ns);

  out("typealias integer {{\n\tsize = 27; align = 1; signed = false;\n\tmap = clock.{}.value;\n}} "
      ":= "
      "uint27_clock_{}_t;\n\n",
      clk, clk);
  out("typealias integer {{\n\tsize = 32; align = 8; signed = false;\n\tmap = clock.{}.value;\n}} "
      ":= "
      "uint32_clock_{}_t;\n\n",
      clk, clk);
  out("typealias integer {{\n\tsize = 64; align = 8; signed = false;\n\tmap = clock.{}.value;\n}} "
      ":= "
      "uint64_clock_{}_t;\n\n",
      clk, clk);

  out("struct packet_context {{\n\tuint64_clock_{0}_t timestamp_begin;\n\tuint64_clock_{0}_t "
      "timestamp_end;\n"
      "\tuint64_t content_size;\n\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
      "\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n}};\n\n",
      clk);
  out("struct event_header_compact {{\n\tenum : uint5_t {{ compact = 0 ... 30, extended = 31 }} "
      "id;\n"
      "\tvariant <id> {{\n\t\tstruct {{\n\t\t\tuint27_clock_{0}_t timestamp;\n\t\t}} compact;\n"
      "\t\tstruct {{\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_{0}_t timestamp;\n\t\t}} extended;\n"
      "\t}} v;\n}} align(8);\n\n",
      clk);
  out("struct event_header_large {{\n\tenum : uint16_t {{ compact = 0 ... 65534, extended = 65535 "
      "}} id;\n"
      "\tvariant <id> {{\n\t\tstruct {{\n\t\t\tuint32_clock_{0}_t timestamp;\n\t\t}} compact;\n"
      "\t\tstruct {{\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_{0}_t timestamp;\n\t\t}} extended;\n"
      "\t}} v;\n}} align(8);\n\n",
      clk);

  if (opts_.plain_event_header) {
    out("stream {{\n\tid = 0;\n\tevent.header := struct {{\n\t\tuint32_t id;\n"
        "\t\tuint64_clock_{}_t timestamp;\n\t}} align(8);\n"
        "\tpacket.context := struct packet_context;\n",
        clk);
  } else {
    out("stream {{\n\tid = 0;\n\tevent.header := struct event_header_compact;\n"
        "\tpacket.context := struct packet_context;\n");
  }
  if (opts_.event_context_procname_vtid) {
    out("\tevent.context := struct {{\n"
        "\t\tinteger {{ size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; }} "
        "_procname[17];\n"
        "\t\tinteger {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} "
        "_vtid;\n\t}};\n");
  }
  out("}};\n\n");

  for (size_t id = 0; id < classes_.size(); ++id) {
    const EventClassInfo& c = classes_[id];
    out("event {{\n\tname = \"{}\";\n\tid = {};\n\tstream_id = 0;\n", c.name, id);
    if (c.loglevel >= 0) out("\tloglevel = {};\n", c.loglevel);
    out("\tfields := struct {{\n");
    for (const FieldSpec& f : c.fields) {
      if (!f.labels.empty()) {
        // As lttng-modules declares its enumerations: an anonymous enum over the integer.
        out("\t\tenum : {} {{\n", TypeDecl(f.kind));
        for (size_t i = 0; i < f.labels.size(); ++i)
          out("\t\t\t\"{}\" = {}{}\n", f.labels[i].label, f.labels[i].value,
              i + 1 < f.labels.size() ? "," : "");
        out("\t\t}} _{};\n", f.name);
        continue;
      }
      out("\t\t{} _{}{};\n", TypeDecl(f.kind), f.name,
          f.kind == FieldKind::kCharArray16 || f.kind == FieldKind::kBytes16 ? "[16]" : "");
    }
    out("\t}};\n}};\n\n");
  }
  return m;
}

}  // namespace causeway::ctf
