// The CTF 1.8 trace model: what TSDL metadata declares, after parsing.
//
// The parser (tsdl_parser.h) produces a TraceClass; the plan compiler (ctf/plan/) turns
// its types into decoding plans. Types are immutable trees shared by pointer: a typealias
// used by 1,000 events is one node. Names are kept exactly as written in the metadata
// (LTTng's leading underscores included); readers strip them for display.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace causeway::ctf {

enum class ByteOrder : uint8_t { kLittle, kBig };
enum class Encoding : uint8_t { kNone, kUtf8, kAscii };
enum class TypeKind : uint8_t {
  kInteger,
  kFloat,
  kString,
  kEnum,
  kStruct,
  kVariant,
  kArray,
  kSequence,
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Field {
  std::string name;
  TypePtr type;
};

struct EnumMapping {
  std::string label;
  int64_t lo = 0;  // inclusive range; for unsigned containers the bits are reinterpreted
  int64_t hi = 0;
};

// One node of a type tree. Only the members of `kind` are meaningful.
struct Type {
  TypeKind kind = TypeKind::kInteger;
  uint32_t align_bits = 1;  // effective alignment in bits (struct: max of members and align())

  // kInteger, kEnum (the container), kFloat.
  uint32_t size_bits = 0;  // integer size; float: exp_dig + mant_dig
  bool is_signed = false;
  ByteOrder byte_order = ByteOrder::kLittle;  // "native" resolved to the trace byte order
  uint8_t base = 10;                          // 2, 8, 10, 16
  Encoding encoding = Encoding::kNone;        // integer (chars), string
  std::string mapped_clock;                   // integer with `map = clock.NAME.value`

  // kFloat.
  uint32_t exp_dig = 0;
  uint32_t mant_dig = 0;

  // kEnum.
  std::vector<EnumMapping> mappings;

  // kStruct (members), kVariant (options).
  std::vector<Field> fields;

  // kVariant: the tag as written (`id`, `stream.event.header.id`, …); resolved by the plan.
  // kSequence: the length field reference, likewise.
  std::string ref;

  // kArray, kSequence.
  TypePtr element;
  uint64_t length = 0;  // kArray only
};

struct ClockClass {
  std::string name;
  std::string description;
  std::optional<std::array<uint8_t, 16>> uuid;
  uint64_t freq = 1'000'000'000;
  int64_t offset_s = 0;  // seconds from the origin (Epoch when absolute)
  int64_t offset = 0;    // cycles from offset_s
  uint64_t precision = 0;
  bool absolute = false;
};

struct EventClass {
  uint64_t id = 0;
  std::string name;
  uint64_t stream_id = 0;
  std::optional<int64_t> loglevel;
  std::string model_emf_uri;
  TypePtr context;  // per-event context, may be null
  TypePtr fields;   // payload struct, may be null
};

struct StreamClass {
  uint64_t id = 0;
  TypePtr packet_context;  // may be null
  TypePtr event_header;    // may be null
  TypePtr event_context;   // may be null
  std::vector<EventClass> events;
};

using EnvValue = std::variant<int64_t, std::string>;

struct TraceClass {
  uint32_t major = 1;
  uint32_t minor = 8;
  std::optional<std::array<uint8_t, 16>> uuid;
  ByteOrder byte_order = ByteOrder::kLittle;
  TypePtr packet_header;                              // may be null
  std::vector<std::pair<std::string, EnvValue>> env;  // in declaration order
  std::vector<ClockClass> clocks;
  std::vector<StreamClass> streams;  // sorted by id

  const StreamClass* FindStream(uint64_t id) const {
    for (const auto& s : streams)
      if (s.id == id) return &s;
    return nullptr;
  }
  const ClockClass* FindClock(const std::string& name) const {
    for (const auto& c : clocks)
      if (c.name == name) return &c;
    return nullptr;
  }
  // env value as text ("" when absent).
  std::string EnvString(const std::string& key) const;
};

}  // namespace causeway::ctf
