// The state store's file format, shared by the writer (state_writer.cc) and the reader
// (state_store.cc). All integers are little-endian.
//
//   header   16 bytes: magic "CWSTATE\0", u32 format version, u32 header size (16).
//   nodes    one after another, in the order they filled (roughly end-time order; nodes
//            of different attributes interleave). A node holds consecutive intervals of
//            ONE attribute:
//              NodeHeader (32 bytes): attribute, count (intervals, >= 1), first_start,
//                end, body_bytes, crc32 (zlib) of the header with crc = 0 and the body;
//              body: checkpoints, then the entries.
//              checkpoints: (count - 1) / kCheckpointEvery u64 values, one per entry
//                k * kCheckpointEvery (k >= 1): (entry start - first_start) << 16 | the
//                entry's byte offset in the entries. They let a query jump inside a node.
//              entries: per interval its start (the first one: none, it is first_start;
//                the others: varint of start minus the previous entry's start, > 0), then
//                its value tag (varint): 0 null, zigzag(i) << 2 | 1 an integer whose
//                zigzag is below 2^62, 3 then varint zigzag(i) for any other integer,
//                ref << 2 | 2 a string.
//              An entry ends where the next one starts; the last ends at `end`. A gap
//              between intervals inside a node is an explicit null entry; time between
//              two nodes of an attribute, before its first or after its last, is null.
//   tail     sections, each 8-byte aligned, described by the footer:
//              attributes  AttributeRecord per attribute id (the tree: parent, path,
//                          children, node range);
//              children    u32 attribute ids: each attribute's children, contiguous and
//                          sorted by name (NameLess), then the roots (parent = kNoParent);
//              paths       the full paths, bytes;
//              string offsets u32 per string + 1, into `strings`; strings, bytes;
//              node index  NodeIndexEntry per node, grouped by attribute, in time order;
//              source key  bytes.
//   footer   Footer (fixed size, last bytes of the file): section offsets and sizes,
//            counts, start and end times, crc32 of the tail (from its offset to the
//            footer), then the footer's own crc32.
//
// Invariants the writer keeps and the reader checks (bounds always; order where a query's
// binary search depends on it; node crcs at open):
// - A node's intervals are in time order, non-overlapping, inside [first_start, end),
//   first_start < end, body_bytes <= kMaxNodeBody, every entry's start - first_start
//   < 2^47 (kMaxNodeSpan), the last entry is not null.
// - An attribute's nodes are in time order without overlap: node i's end <= node i+1's
//   first_start.
// - Adjacent intervals of an attribute inside a node never hold equal values (the writer
//   merges them); intervals never have zero length.
// - Every offset and count read from the file is checked against the file's size and
//   the other sections before use: a damaged or hostile file is refused or reads as null,
//   never a crash nor an unbounded allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace causeway::state::format {

inline constexpr char kMagic[8] = {'C', 'W', 'S', 'T', 'A', 'T', 'E', '\0'};
inline constexpr char kFooterMagic[8] = {'C', 'W', 'S', 'T', 'E', 'N', 'D', '\0'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kHeaderBytes = 16;
inline constexpr uint32_t kNoParent = 0xffffffffu;

// Target size of a node's entries: a node is written when the next entry would pass it.
inline constexpr uint32_t kNodeTargetBytes = 4096;
// Largest body a valid node may have (checkpoint offsets are 16 bits).
inline constexpr uint32_t kMaxNodeBody = 60000;
inline constexpr uint32_t kCheckpointEvery = 16;
// Entries start less than this after their node's first_start, so that checkpoint times
// fit in 48 bits.
inline constexpr int64_t kMaxNodeSpan = int64_t{1} << 47;
// A value tag or a delta takes at most 10 bytes; a big integer 11.
inline constexpr uint32_t kMaxEntryBytes = 21;

struct NodeHeader {
  uint32_t attribute;
  uint32_t count;
  int64_t first_start;
  int64_t end;
  uint32_t body_bytes;
  uint32_t crc;
};
static_assert(sizeof(NodeHeader) == 32);

struct NodeIndexEntry {
  int64_t first_start;
  uint64_t offset;  // of the NodeHeader in the file
};
static_assert(sizeof(NodeIndexEntry) == 16);

struct AttributeRecord {
  uint64_t first_node;  // in the node index
  uint32_t num_nodes;
  uint32_t parent;  // kNoParent for a root
  uint32_t path_offset;
  uint32_t path_bytes;
  uint32_t first_child;  // in the children section
  uint32_t num_children;
};
static_assert(sizeof(AttributeRecord) == 32);

struct Section {
  uint64_t offset;
  uint64_t bytes;
};

struct Footer {
  char magic[8];
  uint32_t version;
  uint32_t footer_bytes;
  uint64_t tail_offset;  // where the tail starts (= where the nodes end)
  Section attributes;
  Section children;
  Section paths;
  Section string_offsets;
  Section strings;
  Section node_index;
  Section source_key;
  uint64_t num_attributes;
  uint64_t num_strings;
  uint64_t num_nodes;
  uint64_t num_intervals;
  uint64_t root_first_child;  // the roots in the children section
  uint64_t num_roots;
  int64_t start;
  int64_t end;
  uint32_t tail_crc;
  uint32_t footer_crc;  // of the footer's bytes before this field
};
static_assert(sizeof(Footer) == 8 + 8 + 8 + 7 * 16 + 6 * 8 + 16 + 8);

uint32_t Crc32(uint32_t crc, const void* data, size_t bytes);

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t z) {
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

// Writes v as a varint at p (room for 10 bytes); returns the end.
inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Reads a varint in [p, end); returns nullptr when it runs past end or is longer than
// 10 bytes.
inline const uint8_t* GetVarint(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  if (p < end && *p < 0x80) {
    *v = *p;
    return p + 1;
  }
  uint64_t result = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t b = *p++;
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

template <typename T>
inline T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The order of an attribute's children: names that are numbers (tids, CPUs) by value,
// before the other names, which go in byte order.
inline bool IsNumber(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
inline bool NameLess(std::string_view a, std::string_view b) {
  const bool a_number = IsNumber(a), b_number = IsNumber(b);
  if (a_number != b_number) return a_number;
  if (a_number && a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

}  // namespace causeway::state::format
