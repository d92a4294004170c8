// CtfWriter: writes CTF 1.8 traces laid out like LTTng's (see README.md in this folder).
//
//   auto w = CtfWriter::Create("/tmp/t", opts);                     // StatusOr
//   uint32_t sw = *(*w)->AddEventClass("sched_switch", {{"prev_comm", FieldKind::kCharArray16},
//   ...});
//   (*w)->Begin(cpu, sw, ts).Chars16("bash").S32(42)...;           // committed at end of statement
//   RETURN_IF_ERROR((*w)->Close());                                  // flushes, writes `metadata`
//
// Errors made while writing events (unknown class, field of the wrong kind, missing field,
// timestamp going backwards on a stream, I/O failure) drop the offending event and are kept
// as a sticky status: status() and Close() return the first one. Everything else that was
// written stays a valid trace. A field of the wrong kind additionally aborts in debug builds.
//
// Not thread-safe: one writer is used by one thread. Several builders may be open at once
// only on different streams.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"

namespace causeway::ctf {

static_assert(std::endian::native == std::endian::little, "the writer emits little-endian traces");

enum class FieldKind : uint8_t {
  kU8,
  kU16,
  kU32,
  kU64,
  kS8,
  kS16,
  kS32,
  kS64,
  kHex64,        // uint64 declared with base = 16 (babeltrace2 prints 0x…)
  kString,       // NUL-terminated UTF-8 string
  kCharArray16,  // uint8_t[16] with encoding = UTF8, zero padded (like LTTng's comm fields)
  kDouble,       // IEEE 754 binary64
  kBytes16,      // uint8_t[16] without encoding: binary, such as an IPv6 or IPv4 address
};

// One mapping of an enumeration field: the metadata names `value` `label`.
struct EnumLabel {
  int64_t value;
  std::string_view label;  // no quotes, backslashes or control characters
};

// Name as the user sees it: the metadata declares "_" + name, as LTTng does, and readers
// strip that one underscore. Must match [A-Za-z_][A-Za-z0-9_]*.
// With `labels` (integer kinds only), the field is declared as an enumeration over its
// integer: readers show the label beside the value, which is written as before. The
// labels are read when the metadata is written, so they must outlive the writer.
struct FieldSpec {
  std::string name;
  FieldKind kind;
  std::span<const EnumLabel> labels = {};
};

struct TraceOptions {
  std::string hostname = "localhost";
  std::string domain = "kernel";  // "kernel" or "ust"
  std::string tracer_name = "lttng-modules";
  int tracer_major = 2;
  int tracer_minor = 8;
  int tracer_patchlevel = 0;
  // Written only when domain == "kernel" (lttng-modules writes them, lttng-ust does not).
  std::string sysname = "Linux";
  std::string kernel_release = "4.4.3-1-ARCH";
  std::string kernel_version = "#1 SMP PREEMPT";
  // Appended to the env block after the entries above, in order.
  std::vector<std::pair<std::string, std::variant<int64_t, std::string>>> extra_env;

  // The clock: frequency 1 GHz, so clock cycles are nanoseconds since the clock origin;
  // the origin is clock_offset_ns after the Epoch.
  std::string clock_name = "monotonic";  // an identifier
  int64_t clock_offset_ns = 0;
  std::optional<std::array<uint8_t, 16>> clock_uuid;  // omitted from the metadata when unset

  std::optional<std::array<uint8_t, 16>> uuid;  // trace UUID; random (v4) when unset

  // Every packet is exactly this many bytes (zero padded); a multiple of 8, >= 256.
  size_t packet_size = 256 * 1024;
  // Each stream's first packet_seq_num. A later chunk of a rotated recording (lttng
  // rotate; give it the same uuid) goes on numbering from its predecessor's last packet,
  // and its first packet reports the running discarded total it is given with
  // SetDiscarded() before the first event.
  uint64_t first_packet_seq_num = 0;
  // Stream files are named "<channel_name>_<stream index>".
  std::string channel_name = "channel0";
  // LTTng-UST-like stream event context: struct { char procname[17]; int32 vtid; }.
  // When set, every event must be started with Begin(…, UstContext).
  bool event_context_procname_vtid = false;
  // Event header `struct { uint32_t id; uint64_t timestamp; } align(8)`, the layout
  // `perf data convert --to-ctf` writes, instead of LTTng's compact header (tests and
  // benchmarks of the reader's plain-header path).
  bool plain_event_header = false;

  // Permissions of what the writer creates, applied exactly (not narrowed by the umask):
  // the trace directory when Create() makes it, and every file. A recorder asks for 0700 /
  // 0600, since a trace can hold command lines and URLs.
  uint32_t dir_mode = 0755;
  uint32_t file_mode = 0644;
  // What a failed packet write does. kFail: the write error is sticky (status(), Close())
  // and the writer stops writing. kDropPacket (a recorder that must go on when the disk is
  // full): the stream file is cut back to its last whole packet, the packet's events are
  // counted (write_losses()) and added to the stream's discarded total, which the next
  // packet written reports, so readers see the gap as lost events; later packets are
  // written again as soon as they fit.
  enum class OnWriteError : uint8_t { kFail, kDropPacket };
  OnWriteError on_write_error = OnWriteError::kFail;
};

// Packets a kDropPacket writer could not write, and why.
struct WriteLosses {
  uint64_t failures = 0;  // failed writes (packets dropped, or published packets withdrawn)
  uint64_t packets = 0;   // packets dropped
  uint64_t events = 0;    // their events
  uint64_t bytes = 0;     // their content bytes
  std::string last_error;
};

struct UstContext {
  std::string_view procname;  // truncated to 16 bytes
  int32_t vtid = 0;
};

// One field value for the Write() convenience (tests, slow paths). Integers convert to
// any integer kind (truncated to its size), doubles only to kDouble, strings to kString,
// kCharArray16 and kBytes16.
struct FieldValue {
  enum class Type : uint8_t { kSigned, kUnsigned, kDouble, kString };
  template <std::integral T>
  requires(!std::same_as<T, bool>) FieldValue(T v) {  // NOLINT: implicit on purpose
    if constexpr (std::is_signed_v<T>) {
      type = Type::kSigned;
      i = v;
    } else {
      type = Type::kUnsigned;
      u = v;
    }
  }
  FieldValue(double v) : type(Type::kDouble), d(v) {}
  FieldValue(std::string_view v) : type(Type::kString), s(v) {}
  FieldValue(const char* v) : type(Type::kString), s(v) {}
  FieldValue(const std::string& v) : type(Type::kString), s(v) {}

  Type type;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view s;
};

namespace writer_internal {

struct EventClassInfo;

// Per-stream state (one stream file per CPU). Internal; in the header so that the event
// fast path inlines.
struct Stream {
  uint32_t index = 0;
  int fd = -1;
  bool packet_open = false;
  bool builder_open = false;
  bool has_ts = false;
  bool discard_pending = false;    // total changed since the last flushed packet
  std::unique_ptr<uint8_t[]> buf;  // the packet being filled
  size_t cap = 0;                  // of buf (> packet size: an event may overflow, then moves)
  size_t pos = 0;                  // end of the committed content
  uint64_t last_ts = 0;            // last committed event
  uint64_t packet_begin_ts = 0;
  uint64_t packet_events = 0;
  uint64_t seq_num = 0;
  uint64_t chunk_first_seq_num = 0;  // seq_num when this chunk's file was opened
  uint64_t file_end = 0;             // bytes of whole packets in the file
  size_t published_pos = 0;          // content of the open packet on disk (0: none)
  uint64_t discarded = 0;            // reported in the packet context
  uint64_t write_dropped = 0;        // of it, events of packets that could not be written
  std::string path;
};

// What the fast path needs of an event class.
struct ClassHot {
  const FieldKind* kinds = nullptr;
  uint32_t n = 0;
  uint32_t fixed_size = 0;  // bytes of the non-string fields
};

constexpr uint32_t kExtendedId = 31;
constexpr uint64_t kTs27Mask = (uint64_t{1} << 27) - 1;
constexpr size_t kMaxHeader = 13;
constexpr size_t kPlainHeader = 12;  // TraceOptions::plain_event_header
constexpr size_t kContextSize = 17 + 4;

}  // namespace writer_internal

class CtfWriter {
 public:
  // Creates `dir` (and its parents); fails if it exists and is not an empty directory.
  static StatusOr<std::unique_ptr<CtfWriter>> Create(const std::string& dir, TraceOptions opts);
  // Writes into the open directory `dir_fd` (duplicated; must be empty), named `dir` in
  // messages. Files are created relative to it, never through a symbolic link, so a
  // directory another user could write into on the path does not redirect them.
  static StatusOr<std::unique_ptr<CtfWriter>> CreateAt(int dir_fd, const std::string& dir,
                                                       TraceOptions opts);
  ~CtfWriter();  // Close()s if needed; an error is then printed to stderr
  CtfWriter(const CtfWriter&) = delete;
  CtfWriter& operator=(const CtfWriter&) = delete;

  // Declares an event class; ids are 0, 1, 2, … in call order. Allowed until Close().
  // loglevel < 0: no loglevel attribute.
  StatusOr<uint32_t> AddEventClass(std::string name, std::vector<FieldSpec> fields,
                                   int loglevel = -1);
  size_t event_class_count() const;

  // Writes one event field by field, in declared order; the event is committed by
  // Finish() or by the builder's destructor (so a one-statement chain commits at the `;`).
  // Writes go straight into the stream's packet buffer: no allocation per event.
  class EventBuilder {
   public:
    EventBuilder(EventBuilder&& other) noexcept { *this = std::move(other); }
    EventBuilder& operator=(EventBuilder&& other) noexcept {
      if (this != &other) {
        Finish();
        writer_ = std::exchange(other.writer_, nullptr);
        stream_ = other.stream_;
        kinds_ = other.kinds_;
        cur_ = other.cur_;
        ts_ = other.ts_;
        event_start_ = other.event_start_;
        idx_ = other.idx_;
        n_ = other.n_;
        class_id_ = other.class_id_;
        poisoned_ = other.poisoned_;
      }
      return *this;
    }
    EventBuilder(const EventBuilder&) = delete;
    EventBuilder& operator=(const EventBuilder&) = delete;
    ~EventBuilder() { Finish(); }

    EventBuilder& U8(uint8_t v) { return Put<FieldKind::kU8>(v); }
    EventBuilder& U16(uint16_t v) { return Put<FieldKind::kU16>(v); }
    EventBuilder& U32(uint32_t v) { return Put<FieldKind::kU32>(v); }
    EventBuilder& U64(uint64_t v) { return Put<FieldKind::kU64>(v); }
    EventBuilder& S8(int8_t v) { return Put<FieldKind::kS8>(v); }
    EventBuilder& S16(int16_t v) { return Put<FieldKind::kS16>(v); }
    EventBuilder& S32(int32_t v) { return Put<FieldKind::kS32>(v); }
    EventBuilder& S64(int64_t v) { return Put<FieldKind::kS64>(v); }
    EventBuilder& Hex64(uint64_t v) { return Put<FieldKind::kHex64>(v); }
    EventBuilder& Double(double v) { return Put<FieldKind::kDouble>(v); }
    // Stops at the first NUL byte of `v`.
    EventBuilder& String(std::string_view v);
    // Copies at most 16 bytes, pads with NULs.
    EventBuilder& Chars16(std::string_view v) {
      if (!Expect(FieldKind::kCharArray16)) return *this;
      return Put16(v.data(), v.size());
    }

    // Copies at most 16 bytes, NULs included, and pads with NULs.
    EventBuilder& Bytes16(std::span<const uint8_t> v) {
      if (!Expect(FieldKind::kBytes16)) return *this;
      return Put16(v.data(), v.size());
    }

    // Commits the event (no-op when already finished or when Begin failed).
    void Finish() {
      if (!writer_) return;
      writer_internal::Stream& s = *stream_;
      size_t end = static_cast<size_t>(cur_ - s.buf.get());
      if (!poisoned_ && idx_ == n_ && end <= writer_->packet_size_) [[likely]] {
        writer_ = nullptr;
        s.builder_open = false;
        s.pos = end;
        s.last_ts = ts_;
        s.has_ts = true;
        s.packet_events++;
        return;
      }
      writer_->FinishEvent(*this);
    }

   private:
    friend class CtfWriter;
    EventBuilder() = default;

    [[gnu::always_inline]] bool Expect(FieldKind k) {
      if (idx_ < n_ && kinds_[idx_] == k) [[likely]]
        return true;
      Mismatch(k);
      return false;
    }
    // 16 bytes: at most `size` of `data`, then NULs.
    EventBuilder& Put16(const void* data, size_t size) {
      uint8_t tmp[16] = {};
      if (size) std::memcpy(tmp, data, size < 16 ? size : 16);
      std::memcpy(cur_, tmp, 16);
      cur_ += 16;
      ++idx_;
      return *this;
    }
    template <FieldKind K, typename T>
    [[gnu::always_inline]] EventBuilder& Put(T v) {
      if (!Expect(K)) return *this;
      std::memcpy(cur_, &v, sizeof(v));
      cur_ += sizeof(v);
      ++idx_;
      return *this;
    }
    void Mismatch(FieldKind k);

    CtfWriter* writer_ = nullptr;  // null: finished, moved from, or Begin failed
    writer_internal::Stream* stream_ = nullptr;
    const FieldKind* kinds_ = nullptr;
    uint8_t* cur_ = nullptr;
    uint64_t ts_ = 0;
    size_t event_start_ = 0;  // offset of the event header in the packet buffer
    uint32_t idx_ = 0;        // next field
    uint32_t n_ = 0;          // field count
    uint32_t class_id_ = 0;
    bool poisoned_ = false;  // a field call did not match the declaration
  };

  // Starts an event of class `event_class_id` at `timestamp` (ns since the clock origin) on
  // stream `stream` (= CPU; file <channel>_<stream>, cpu_id = stream). Timestamps must not
  // decrease within a stream.
  EventBuilder Begin(uint32_t stream, uint32_t event_class_id, uint64_t timestamp) {
    return BeginFast(stream, event_class_id, timestamp, nullptr);
  }
  EventBuilder Begin(uint32_t stream, uint32_t event_class_id, uint64_t timestamp,
                     const UstContext& context) {
    return BeginFast(stream, event_class_id, timestamp, &context);
  }

  // Convenience: one whole event; returns this event's error (also kept as sticky status).
  Status Write(uint32_t stream, uint32_t event_class_id, uint64_t timestamp,
               std::span<const FieldValue> fields, const UstContext* context = nullptr);

  // LTTng semantics: `cumulative` is the number of events discarded on this stream since
  // the start (non-decreasing). The discarded events lie between the last event written on
  // the stream and the next one: the current packet is closed with the old total and the
  // next packet carries the new one (an empty packet is written at Close if no event
  // follows).
  Status SetDiscarded(uint32_t stream, uint64_t cumulative);

  // Flushes all packets, closes the stream files, writes `metadata`. Returns the sticky
  // status. Idempotent.
  Status Close();

  // Ends this chunk of a rotated recording, as `lttng rotate` does, and goes on in `dir`:
  // every stream's packet with events is flushed, the chunk's metadata is written, and the
  // stream files are reopened under `dir` (which must not exist or be empty) with the same
  // names. The chunks share the trace UUID; packet sequence numbers and discarded totals
  // go on across them, so a reader given every chunk reads one recording. Fails (sticky,
  // as every error) while an event is being written.
  //
  // A stream with no packet in the chunk ends it as `idle` says: kLeaveFileEmpty leaves
  // its file there empty (readers skip empty stream files); kWriteEmptyPacket writes a
  // packet of no event (after the empty packet reporting 0 that leads a stream's first
  // total), as LTTng does for a CPU idle through a chunk, stamped from the stream's last
  // event (the chunk's start before its first) to the time of the cut (the writer's latest
  // event on any stream), with a discarded total not yet reported. The stream's clock then
  // moves on to the cut: its later events may not be earlier. A stream for which no time
  // passed (no event of the chunk later than its last) leaves its file empty: a packet
  // would begin when its next one does. Close() ends the last chunk as the last Rotate
  // ended its own.
  enum class IdleStreams : uint8_t { kLeaveFileEmpty, kWriteEmptyPacket };
  Status Rotate(const std::string& dir, IdleStreams idle = IdleStreams::kLeaveFileEmpty);

  // Writes `metadata` now, for the event classes declared so far (Close() rewrites it).
  // A recorder calls it before the first event, so that a trace cut short by a crash is
  // still readable up to its last flushed packet.
  Status WriteMetadata();

  // Writes every stream's open packet in place, as it is now (content_size short of
  // packet_size, which CTF allows), so that the files on disk end with whole packets
  // holding every event written so far: a recorder killed after this leaves them readable.
  // The packet goes on filling and is rewritten in place. With kDropPacket a failed write
  // withdraws the published packet (the file is cut back) and keeps it in memory.
  Status PublishOpenPackets();

  const Status& status() const { return status_; }
  const WriteLosses& write_losses() const { return losses_; }
  uint64_t events_written() const;
  // Stream bytes: packets flushed plus the content of the open packets.
  uint64_t bytes_written() const;
  const std::string& dir() const { return dir_; }

 private:
  CtfWriter(std::string dir, TraceOptions opts);
  // The common case inline: known stream with an open packet that has room, known class,
  // timestamp in order. Everything else goes to BeginImpl.
  [[gnu::always_inline]] EventBuilder BeginFast(uint32_t stream, uint32_t event_class_id,
                                                uint64_t timestamp, const UstContext* context) {
    namespace wi = writer_internal;
    if (stream < fast_streams_.size() && event_class_id < hot_.size() &&
        (context != nullptr) == opts_.event_context_procname_vtid) [[likely]] {
      wi::Stream* s = fast_streams_[stream];
      const wi::ClassHot& c = hot_[event_class_id];
      if (s && s->packet_open && s->has_ts && !s->builder_open && timestamp >= s->last_ts)
          [[likely]] {
        bool compact = event_class_id < wi::kExtendedId && timestamp - s->last_ts <= wi::kTs27Mask;
        const size_t header = plain_header_ ? wi::kPlainHeader : compact ? 4 : 13;
        if (s->pos + header + ctx_size_ + c.fixed_size <= packet_size_) [[likely]] {
          EventBuilder b;
          uint8_t* p = s->buf.get() + s->pos;
          if (plain_header_) {
            std::memcpy(p, &event_class_id, 4);
            std::memcpy(p + 4, &timestamp, 8);
            p += wi::kPlainHeader;
          } else if (compact) {
            uint32_t word =
                event_class_id | static_cast<uint32_t>((timestamp & wi::kTs27Mask) << 5);
            std::memcpy(p, &word, 4);
            p += 4;
          } else {
            p[0] = wi::kExtendedId;
            std::memcpy(p + 1, &event_class_id, 4);
            std::memcpy(p + 5, &timestamp, 8);
            p += 13;
          }
          if (context) p = WriteContext(p, *context);
          s->builder_open = true;
          b.writer_ = this;
          b.stream_ = s;
          b.kinds_ = c.kinds;
          b.cur_ = p;
          b.ts_ = timestamp;
          b.event_start_ = s->pos;
          b.n_ = c.n;
          b.class_id_ = event_class_id;
          return b;
        }
      }
    }
    return BeginImpl(stream, event_class_id, timestamp, context);
  }
  static uint8_t* WriteContext(uint8_t* p, const UstContext& context);
  EventBuilder BeginImpl(uint32_t stream, uint32_t event_class_id, uint64_t timestamp,
                         const UstContext* context);
  void FinishEvent(EventBuilder& b);
  void GrowForString(EventBuilder& b, size_t n);
  StatusOr<writer_internal::Stream*> GetStream(uint32_t index);
  // The stream's file "<dir>/<channel>_<index>", created (truncated) in the current
  // directory; and closed, a failure kept as the sticky status.
  Status OpenStreamFile(writer_internal::Stream& s);
  void CloseStreamFile(writer_internal::Stream& s);
  void OpenPacket(writer_internal::Stream& s, uint64_t begin_ts);
  // A packet of no event ends at `empty_end_ts` when that is later than its start.
  Status FlushPacket(writer_internal::Stream& s, uint64_t empty_end_ts = 0);
  // Ends the chunk of a stream that wrote no packet in it with an empty packet up to `cut`
  // (Rotate's IdleStreams::kWriteEmptyPacket).
  void EndIdleChunk(writer_internal::Stream& s, uint64_t cut);
  void Fail(Status st);  // records the first error
  // Writes `n` bytes of the open packet from offset `from` at their place in the file.
  Status WritePacketBytes(writer_internal::Stream& s, size_t from, size_t n);
  // A failed packet write: cuts the file back to its whole packets (kDropPacket) or fails.
  void OnPacketWriteError(writer_internal::Stream& s, const Status& st, bool drop_packet);
  // Fills the packet context of the open packet for its content so far.
  void StampContext(writer_internal::Stream& s, uint64_t end_ts);
  Status OpenDirectory(const std::string& dir);
  int CreateFile(const std::string& name, std::string* path);
  std::string MetadataText() const;

  std::string dir_;
  int dir_fd_ = -1;
  std::string metadata_written_;  // what `metadata` holds (not rewritten when unchanged)
  WriteLosses losses_;
  TraceOptions opts_;
  std::array<uint8_t, 16> uuid_{};
  size_t packet_size_ = 0;
  std::vector<writer_internal::EventClassInfo> classes_;
  std::vector<writer_internal::ClassHot> hot_;  // parallel to classes_
  std::vector<std::unique_ptr<writer_internal::Stream>> streams_;
  std::vector<writer_internal::Stream*> fast_streams_;  // streams_[i].get()
  Status status_;
  bool io_failed_ = false;
  bool closed_ = false;
  // Rotate: how the last one ended idle streams (Close ends the last chunk alike), and the
  // time of its cut (the writer's latest event then); before the first, the earliest first
  // event of a stream.
  IdleStreams idle_ = IdleStreams::kLeaveFileEmpty;
  bool rotated_ = false;
  uint64_t chunk_begin_ts_ = 0;
  uint64_t first_ts_ = UINT64_MAX;
  uint64_t events_flushed_ = 0;  // in flushed packets
  uint64_t bytes_flushed_ = 0;
  uint32_t ctx_size_ = 0;      // bytes of the stream event context
  bool plain_header_ = false;  // opts_.plain_event_header
};

}  // namespace causeway::ctf
