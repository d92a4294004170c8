// StateStore: the file mapped read-only, checked once at open (bounds of every section and
// record, the tail's and every node's checksum), then queried in place: a query binary
// searches an attribute's node index, then a node's checkpoints, and decodes at most
// kCheckpointEvery entries to reach a time.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "base/int128.h"
#include "fmt/format.h"
#include "state/node_codec.h"
#include "state/state_format.h"
#include "state/state_store.h"

namespace causeway::state {
namespace {

using format::Load;

// A node's parts, located and bounds-checked.
struct Node {
  int64_t first_start = 0;
  int64_t end = 0;
  uint32_t count = 0;
  uint32_t num_checkpoints = 0;
  const uint8_t* checkpoints = nullptr;
  const uint8_t* entries = nullptr;
  const uint8_t* entries_end = nullptr;
};

int64_t SaturatingAdd(int64_t a, uint64_t b) {
  const int128 sum = static_cast<int128>(a) + b;
  return sum > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                   : static_cast<int64_t>(sum);
}

}  // namespace

struct StoreFile {
  std::string path;
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  format::Footer f{};
  std::string source_key;
  uint64_t nodes_end = 0;  // the tail's offset

  ~StoreFile() {
    if (data) munmap(const_cast<uint8_t*>(data), size);
  }

  format::AttributeRecord attribute(AttributeId a) const {
    return Load<format::AttributeRecord>(data + f.attributes.offset +
                                         uint64_t{a} * sizeof(format::AttributeRecord));
  }
  format::NodeIndexEntry node_entry(uint64_t i) const {
    return Load<format::NodeIndexEntry>(data + f.node_index.offset +
                                        i * sizeof(format::NodeIndexEntry));
  }
  AttributeId child(uint64_t i) const { return Load<uint32_t>(data + f.children.offset + i * 4); }
  std::string_view path_of(const format::AttributeRecord& r) const {
    return {reinterpret_cast<const char*>(data + f.paths.offset + r.path_offset), r.path_bytes};
  }
  std::string_view name_of(const format::AttributeRecord& r) const {
    const std::string_view p = path_of(r);
    if (r.parent == format::kNoParent) return p;
    return p.substr(attribute(r.parent).path_bytes + 1);
  }

  // The node at `index` of the node index, owned by `a`; false when it does not hold
  // together (only a hostile file that forged the checksums gets here).
  bool LoadNode(uint64_t index, AttributeId a, Node* node) const {
    const uint64_t offset = node_entry(index).offset;
    if (offset < format::kHeaderBytes || offset > nodes_end ||
        nodes_end - offset < sizeof(format::NodeHeader))
      return false;
    const auto h = Load<format::NodeHeader>(data + offset);
    const uint64_t room = nodes_end - offset - sizeof(format::NodeHeader);
    if (h.attribute != a || h.count == 0 || h.body_bytes > room || h.first_start >= h.end)
      return false;
    const uint64_t checkpoint_bytes = uint64_t{(h.count - 1) / format::kCheckpointEvery} * 8;
    if (checkpoint_bytes >= h.body_bytes) return false;
    node->first_start = h.first_start;
    node->end = h.end;
    node->count = h.count;
    node->num_checkpoints = static_cast<uint32_t>(checkpoint_bytes / 8);
    node->checkpoints = data + offset + sizeof(format::NodeHeader);
    node->entries = node->checkpoints + checkpoint_bytes;
    node->entries_end = node->checkpoints + h.body_bytes;
    return true;
  }

  Status Check(bool verify_nodes);
};

struct StateStore::Impl : StoreFile {};

namespace {

// Walks one attribute's intervals (in-node gaps included, as null entries) forward in time.
class Walker {
 public:
  Walker(const StoreFile& s, AttributeId a) : s_(s), a_(a), rec_(s.attribute(a)) {}

  int64_t start = 0;
  int64_t end = 0;
  StateValue value;

  // The entry holding t, else the first one after t; false when there is none.
  bool SeekFrom(int64_t t) { return SeekNodes(0, t); }

  // Forward only: the entry holding t, else the first one after t.
  bool SkipTo(int64_t t) {
    if (t < end) return true;
    if (t < node_.end) {
      SeekInNode(t);
      return true;
    }
    return SeekNodes(node_i_ + 1, t);
  }

  bool Next() {
    if (index_ + 1 < node_.count) {
      ++index_;
      start = end;
      ReadEntry();
      return true;
    }
    return EnterNode(node_i_ + 1);
  }

  // Positions on node i's entry holding t (which the node must hold).
  bool SeekInNodeAt(uint64_t i, int64_t t) {
    if (!EnterNode(i) || node_i_ != i) return false;
    SeekInNode(t);
    return true;
  }

 private:
  // Nodes [from, num_nodes): the entry holding t or the first after it.
  bool SeekNodes(uint64_t from, int64_t t) {
    uint64_t lo = from, hi = rec_.num_nodes;  // first node starting after t, in [lo, hi]
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (s_.node_entry(rec_.first_node + mid).first_start <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == from) return EnterNode(from);
    if (!EnterNode(lo - 1)) return false;
    if (node_i_ != lo - 1) return true;  // that node was damaged: the next one
    if (t >= node_.end) return EnterNode(lo);
    SeekInNode(t);
    return true;
  }

  bool EnterNode(uint64_t i) {
    for (; i < rec_.num_nodes; ++i) {
      if (!s_.LoadNode(rec_.first_node + i, a_, &node_)) continue;
      node_i_ = i;
      index_ = 0;
      p_ = node_.entries;
      start = node_.first_start;
      ReadEntry();
      return true;
    }
    node_i_ = rec_.num_nodes;
    node_ = Node{};
    index_ = 0;
    return false;
  }

  // Reads the value at p_ and the next entry's start, which is this one's end.
  void ReadEntry() {
    const uint8_t* p = GetValue(p_, node_.entries_end, &value);
    if (!p) return Truncate();
    if (index_ + 1 < node_.count) {
      uint64_t delta;
      p = format::GetVarint(p, node_.entries_end, &delta);
      if (!p) return Truncate();
      end = std::min(SaturatingAdd(start, delta), node_.end);
    } else {
      end = node_.end;
    }
    p_ = p;
  }

  // A node whose entries do not decode ends at the entry before.
  void Truncate() {
    value = StateValue::Null();
    end = node_.end;
    node_.count = index_ + 1;
  }

  // Moves forward inside the node to the entry holding t (first_start <= t < end).
  void SeekInNode(int64_t t) {
    // Checkpoint k marks entry (k + 1) * kCheckpointEvery.
    uint32_t lo = index_ / format::kCheckpointEvery, hi = node_.num_checkpoints;
    const uint64_t offset_t = static_cast<uint64_t>(t - node_.first_start);
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if ((Load<uint64_t>(node_.checkpoints + mid * 8) >> 16) <= offset_t)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > index_ / format::kCheckpointEvery) JumpTo(lo - 1);
    while (end <= t && index_ + 1 < node_.count) {
      ++index_;
      start = end;
      ReadEntry();
    }
  }

  void JumpTo(uint32_t k) {
    const uint64_t cp = Load<uint64_t>(node_.checkpoints + uint64_t{k} * 8);
    const uint64_t byte = cp & 0xffff, time = cp >> 16;
    const uint32_t entry = (k + 1) * format::kCheckpointEvery;
    const uint64_t span = static_cast<uint64_t>(node_.end - node_.first_start);
    if (entry >= node_.count || byte >= static_cast<uint64_t>(node_.entries_end - node_.entries) ||
        time >= span)
      return;  // a damaged checkpoint: walk instead
    uint64_t delta;
    const uint8_t* p = format::GetVarint(node_.entries + byte, node_.entries_end, &delta);
    if (!p) return;
    index_ = entry;
    start = node_.first_start + static_cast<int64_t>(time);
    p_ = p;
    ReadEntry();
  }

  const StoreFile& s_;
  AttributeId a_;
  format::AttributeRecord rec_;
  uint64_t node_i_ = 0;
  Node node_;
  uint32_t index_ = 0;
  const uint8_t* p_ = nullptr;
};

std::string Reason(const std::string& path, const std::string& why) {
  return fmt::format("Cannot open state store: file={}, reason={}", path, why);
}

bool SectionInside(const format::Section& s, uint64_t begin, uint64_t end) {
  return s.offset % 8 == 0 && s.offset >= begin && s.offset <= end && s.bytes <= end - s.offset;
}

}  // namespace

Status StoreFile::Check(bool verify_nodes) {
  auto fail = [&](const std::string& why) { return DataLoss(Reason(path, why)); };
  if (size < 8 || std::memcmp(data, format::kMagic, 8) != 0)
    return fail("not a state store (no magic CWSTATE at its start)");
  if (size < format::kHeaderBytes) return fail("cut short in its header");
  const auto version = Load<uint32_t>(data + 8);
  if (version != format::kVersion)
    return fail(
        fmt::format("format version {}, this program reads version {}", version, format::kVersion));
  if (size < format::kHeaderBytes + sizeof(format::Footer))
    return fail(fmt::format("cut short: {} bytes, no room for the footer", size));
  const uint64_t footer_offset = size - sizeof(format::Footer);
  f = Load<format::Footer>(data + footer_offset);
  if (std::memcmp(f.magic, format::kFooterMagic, 8) != 0)
    return fail("cut short or not finished: no footer at its end");
  if (f.footer_crc != format::Crc32(0, &f, offsetof(format::Footer, footer_crc)))
    return fail("checksum mismatch in the footer");
  if (f.version != format::kVersion || f.footer_bytes != sizeof(format::Footer))
    return fail(fmt::format("footer of format version {}, this program reads version {}", f.version,
                            format::kVersion));
  if (f.tail_offset < format::kHeaderBytes || f.tail_offset > footer_offset)
    return fail("index offset outside the file");
  nodes_end = f.tail_offset;
  if (f.tail_crc != format::Crc32(0, data + f.tail_offset, footer_offset - f.tail_offset))
    return fail(fmt::format("checksum mismatch in the index (offset {})", f.tail_offset));
  for (const format::Section* s : {&f.attributes, &f.children, &f.paths, &f.string_offsets,
                                   &f.strings, &f.node_index, &f.source_key})
    if (!SectionInside(*s, f.tail_offset, footer_offset))
      return fail("an index section lies outside the index");
  const uint64_t n = f.num_attributes;
  if (n >= format::kNoParent || f.attributes.bytes / sizeof(format::AttributeRecord) != n ||
      f.attributes.bytes % sizeof(format::AttributeRecord) != 0 || f.children.bytes != n * 4 ||
      f.num_strings >= 0xffffffffu || f.string_offsets.bytes != (f.num_strings + 1) * 4 ||
      f.node_index.bytes / sizeof(format::NodeIndexEntry) != f.num_nodes ||
      f.node_index.bytes % sizeof(format::NodeIndexEntry) != 0 || f.root_first_child > n ||
      f.num_roots != n - f.root_first_child || f.start > f.end)
    return fail("index sections and counts disagree");
  source_key.assign(reinterpret_cast<const char*>(data + f.source_key.offset), f.source_key.bytes);

  uint32_t previous = 0;
  for (uint64_t i = 0; i <= f.num_strings; ++i) {
    const auto o = Load<uint32_t>(data + f.string_offsets.offset + i * 4);
    if (o < previous || o > f.strings.bytes) return fail("string table out of order or bounds");
    previous = o;
  }
  for (uint64_t i = 0; i < n; ++i)
    if (child(i) >= n) return fail("children table names a missing attribute");

  for (AttributeId a = 0; a < n; ++a) {
    const format::AttributeRecord r = attribute(a);
    if (uint64_t{r.path_offset} + r.path_bytes > f.paths.bytes ||
        uint64_t{r.first_child} + r.num_children > n ||
        (r.parent != format::kNoParent &&
         (r.parent >= n || attribute(r.parent).path_bytes >= r.path_bytes)) ||
        r.first_node > f.num_nodes || r.num_nodes > f.num_nodes - r.first_node)
      return fail(fmt::format("attribute {} out of bounds", a));
    int64_t previous_end = std::numeric_limits<int64_t>::min();
    for (uint64_t i = r.first_node; i < r.first_node + r.num_nodes; ++i) {
      const format::NodeIndexEntry e = node_entry(i);
      Node node;
      if (!LoadNode(i, a, &node) || node.first_start != e.first_start ||
          node.first_start < previous_end)
        return fail(
            fmt::format("node at offset {} of {} does not hold together", e.offset, path_of(r)));
      previous_end = node.end;
      if (verify_nodes) {
        auto h = Load<format::NodeHeader>(data + e.offset);
        const uint32_t stored = h.crc;
        h.crc = 0;
        uint32_t crc = format::Crc32(0, &h, sizeof h);
        crc = format::Crc32(crc, data + e.offset + sizeof h, h.body_bytes);
        if (crc != stored)
          return fail(
              fmt::format("checksum mismatch in node at offset {} of {}", e.offset, path_of(r)));
      }
    }
  }
  return Status::Ok();
}

StateStore::StateStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateStore::~StateStore() = default;

StatusOr<std::unique_ptr<StateStore>> StateStore::Open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    const std::string why = std::strerror(e);
    if (e == ENOENT) return NotFound(Reason(path, why));
    return IoError(Reason(path, why));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument(Reason(path, "not a regular file"));
  }
  impl->size = static_cast<uint64_t>(st.st_size);
  if (impl->size == 0) {
    close(fd);
    return DataLoss(Reason(path, "empty file"));
  }
  void* m = mmap(nullptr, impl->size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  close(fd);
  if (m == MAP_FAILED) return IoError(Reason(path, std::string("mmap: ") + std::strerror(e)));
  impl->data = static_cast<const uint8_t*>(m);
  RETURN_IF_ERROR(impl->Check(/*verify_nodes=*/true));
  return std::unique_ptr<StateStore>(new StateStore(std::move(impl)));
}

int64_t StateStore::start() const { return impl_->f.start; }
int64_t StateStore::end() const { return impl_->f.end; }
const std::string& StateStore::source_key() const { return impl_->source_key; }
uint64_t StateStore::num_intervals() const { return impl_->f.num_intervals; }
uint64_t StateStore::file_bytes() const { return impl_->size; }
size_t StateStore::num_attributes() const { return impl_->f.num_attributes; }

std::string_view StateStore::path(AttributeId attribute) const {
  if (attribute >= impl_->f.num_attributes) return {};
  return impl_->path_of(impl_->attribute(attribute));
}

std::optional<AttributeId> StateStore::Find(std::string_view path) const {
  const Impl& s = *impl_;
  uint64_t first = s.f.root_first_child, count = s.f.num_roots;
  std::optional<AttributeId> found;
  while (true) {
    const size_t slash = path.find('/');
    const std::string_view name = path.substr(0, slash);
    // Binary search of the children, which are in name order.
    uint64_t lo = first, hi = first + count;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (format::NameLess(s.name_of(s.attribute(s.child(mid))), name))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == first + count) return std::nullopt;
    const AttributeId id = s.child(lo);
    const format::AttributeRecord r = s.attribute(id);
    if (s.name_of(r) != name) return std::nullopt;
    if (slash == std::string_view::npos) return id;
    path.remove_prefix(slash + 1);
    first = r.first_child;
    count = r.num_children;
  }
}

std::vector<std::string_view> StateStore::Children(std::string_view path) const {
  const Impl& s = *impl_;
  uint64_t first = s.f.root_first_child, count = s.f.num_roots;
  if (!path.empty()) {
    const std::optional<AttributeId> id = Find(path);
    if (!id) return {};
    const format::AttributeRecord r = s.attribute(*id);
    first = r.first_child;
    count = r.num_children;
  }
  std::vector<std::string_view> names;
  names.reserve(count);
  for (uint64_t i = first; i < first + count; ++i)
    names.push_back(s.name_of(s.attribute(s.child(i))));
  return names;
}

std::string_view StateStore::str(StringRef ref) const {
  const Impl& s = *impl_;
  if (ref >= s.f.num_strings) return {};
  const auto begin = Load<uint32_t>(s.data + s.f.string_offsets.offset + uint64_t{ref} * 4);
  const auto end = Load<uint32_t>(s.data + s.f.string_offsets.offset + uint64_t{ref} * 4 + 4);
  return {reinterpret_cast<const char*>(s.data + s.f.strings.offset + begin), end - begin};
}

std::string StateStore::Format(const StateValue& v) const {
  switch (v.kind) {
    case StateValue::Kind::kNull:
      return "null";
    case StateValue::Kind::kInt:
      return std::to_string(v.i);
    case StateValue::Kind::kString:
      return std::string(str(static_cast<StringRef>(v.i)));
  }
  return "null";
}

StateInterval StateStore::At(AttributeId attribute, int64_t t) const {
  const Impl& s = *impl_;
  const int64_t after_t = t == std::numeric_limits<int64_t>::max() ? t : t + 1;
  StateInterval none{std::min(t, s.f.start), std::max(after_t, s.f.end), attribute, {}};
  if (attribute >= s.f.num_attributes) return {t, after_t, attribute, {}};
  const format::AttributeRecord r = s.attribute(attribute);
  // The first node starting after t.
  uint64_t lo = 0, hi = r.num_nodes;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (s.node_entry(r.first_node + mid).first_start <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < r.num_nodes) none.end = s.node_entry(r.first_node + lo).first_start;
  if (lo == 0) return none;
  Node node;
  if (!s.LoadNode(r.first_node + lo - 1, attribute, &node)) return none;
  if (t >= node.end) {
    none.start = node.end;
    return none;
  }
  Walker w(s, attribute);
  if (!w.SeekInNodeAt(lo - 1, t)) return none;
  return {w.start, w.end, attribute, w.value};
}

std::vector<StateInterval> StateStore::AtAll(int64_t t) const {
  std::vector<StateInterval> out;
  for (AttributeId a = 0; a < impl_->f.num_attributes; ++a) {
    if (impl_->attribute(a).num_nodes == 0) continue;
    StateInterval i = At(a, t);
    if (!i.value.is_null()) out.push_back(i);
  }
  return out;
}

void StateStore::Range(std::span<const AttributeId> attributes, int64_t t1, int64_t t2,
                       int64_t step, const std::function<void(const StateInterval&)>& out) const {
  const Impl& s = *impl_;
  if (t2 <= t1) return;
  // The first step boundary t1 + k * step (k >= 0) at or after x.
  auto boundary_from = [&](int64_t x) -> int64_t {
    if (x <= t1) return t1;
    const int128 k = (static_cast<int128>(x) - t1 + step - 1) / step;
    const int128 b = t1 + k * step;
    return b > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                   : static_cast<int64_t>(b);
  };
  for (AttributeId a : attributes) {
    if (a >= s.f.num_attributes) continue;
    Walker w(s, a);
    if (!w.SeekFrom(t1)) continue;
    if (step <= 0) {
      do {
        if (w.start >= t2) break;
        if (!w.value.is_null()) out({w.start, w.end, a, w.value});
      } while (w.Next());
      continue;
    }
    while (w.start < t2) {
      if (!w.value.is_null()) {
        const int64_t b = boundary_from(w.start);
        if (w.end - w.start >= step || (b < w.end && b < t2)) out({w.start, w.end, a, w.value});
      }
      // An interval between here and the next boundary is shorter than a step (else it
      // would hold that boundary): skip to the one holding the boundary.
      const int64_t next = boundary_from(w.end);
      if (!(next >= t2 ? w.Next() : w.SkipTo(next))) break;
    }
  }
}

}  // namespace causeway::state
