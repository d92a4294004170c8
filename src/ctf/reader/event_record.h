// EventRecord: one decoded event in 16 bytes, what the decoding pipeline hands from the
// thread that decoded it to the one that merges (DecodedBatch), and what
// StreamCursor::NextStaticRun writes. The merging thread rebuilds the Event view from it
// (BufferedStream): from the class's StaticLayout and the event's header start when its
// layout is static, else from the clock value and slots the pipeline copied beside it.
#pragma once

#include <cstdint>

namespace causeway::ctf {

struct EventRecord {
  // How the event is rebuilt: the top 2 bits of `where`.
  enum Kind : uint32_t {
    // Static layout under the header's compact or extended option (kStaticCompact +
    // StreamCursor::static_option()); below the kind, the header start in bits.
    kStaticCompact = 0,
    kStaticExtended = 1,
    // Clock value and slots copied into DecodedBatch::extras; below the kind, the index
    // there. kLost: a discarded-events record, whose plan_index is 0.
    kCopied = 2,
    kLost = 3,
  };
  static constexpr uint32_t kKindShift = 30;
  // The largest header start (in bits) or extras index a record can hold.
  static constexpr uint32_t kMaxAt = (uint32_t{1} << kKindShift) - 1;

  uint64_t timestamp;
  // The event's class within its trace (EventPlan::index): the stream's class base, added
  // to it, makes Event::class_index. The decoding loops then take it from tables shared by
  // every trace of the same metadata (FastPathTables).
  uint32_t plan_index;
  uint32_t where;  // Where(kind, at)

  static constexpr uint32_t Where(uint32_t kind, uint32_t at) { return kind << kKindShift | at; }
  Kind kind() const { return static_cast<Kind>(where >> kKindShift); }
  bool is_static() const { return kind() <= kStaticExtended; }
  // For a static kind: the header option, 0 (compact) or 1 (extended).
  uint32_t static_option() const { return where >> kKindShift; }
  // For a static kind: where the event header starts, in bits from the packet's start.
  uint32_t header_start_bits() const { return where & kMaxAt; }
  // For kCopied and kLost: the event's index in DecodedBatch::extras.
  uint32_t extra_index() const { return where & kMaxAt; }
};

}  // namespace causeway::ctf
