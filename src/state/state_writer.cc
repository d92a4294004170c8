// StateWriter: per attribute, the open interval (Set) and the entries of the node being
// filled, encoded as they close; a node goes to the file when it is full, so the pass never
// reads back what it wrote and memory holds at most one node per attribute (and all
// buffers are flushed when they pass kBufferedBytesLimit in total, for many short-lived
// attributes). Finish() writes the tail (state_format.h) and renames FILE.partial to FILE.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "fmt/format.h"
#include "state/attribute_tree.h"
#include "state/node_codec.h"
#include "state/state_format.h"
#include "state/state_store.h"

namespace causeway::state {
namespace {

constexpr size_t kOutBufferBytes = size_t{1} << 20;
constexpr size_t kBufferedBytesLimit = size_t{64} << 20;
constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

struct AttributeState {
  std::vector<uint8_t> entries;  // of the node being filled
  int64_t first_start = 0;       // of the node being filled
  int64_t last_start = 0;        // of its last entry
  int64_t last_end = kNoTime;    // of the attribute's last interval, kNoTime before one
  StateValue last_value;         // of the node's last entry
  int64_t open_start = 0;        // Set(): the interval still open
  StateValue open_value;
  uint32_t count = 0;  // entries in the node being filled
  bool open = false;
};

struct PendingNode {
  AttributeId attribute;
  int64_t first_start;
  uint64_t offset;
};

void Align8(std::vector<uint8_t>* v) { v->resize((v->size() + 7) & ~size_t{7}, 0); }

template <typename T>
void Append(std::vector<uint8_t>* v, const T& value) {
  const size_t at = v->size();
  v->resize(at + sizeof(T));
  std::memcpy(v->data() + at, &value, sizeof(T));
}

}  // namespace

struct StateWriter::Impl {
  std::string path;
  std::string partial_path;
  StateWriterOptions options;
  int fd = -1;
  bool finished = false;
  Status error;  // the first write error; Finish() returns it

  AttributeTree tree;
  std::vector<AttributeState> states;
  std::vector<std::string_view> strings;
  std::deque<std::string> string_storage;
  absl::flat_hash_map<std::string_view, StringRef> string_ids;

  std::vector<PendingNode> nodes;
  std::vector<uint8_t> out;   // bytes not yet written to fd
  uint64_t file_offset = 0;   // bytes written to fd
  size_t buffered_bytes = 0;  // sum of the states' entries
  uint64_t intervals = 0;
  int64_t min_start = std::numeric_limits<int64_t>::max();
  int64_t max_end = std::numeric_limits<int64_t>::min();

  ~Impl() {
    if (fd >= 0) close(fd);
    if (!finished) unlink(partial_path.c_str());
  }

  void Write(const void* data, size_t bytes) {
    if (!error.ok()) return;
    const auto* p = static_cast<const uint8_t*>(data);
    while (bytes > 0) {
      const ssize_t n = write(fd, p, bytes);
      if (n < 0) {
        if (errno == EINTR) continue;
        error = IoError(fmt::format("Cannot write state store: file={}, reason={}", partial_path,
                                    std::strerror(errno)));
        return;
      }
      p += n;
      bytes -= static_cast<size_t>(n);
      file_offset += static_cast<uint64_t>(n);
    }
  }

  void FlushOut() {
    Write(out.data(), out.size());
    out.clear();
  }

  uint64_t Offset() const { return file_offset + out.size(); }

  // Writes the node being filled of `s` (its last entry ends at s.last_end).
  void FlushNode(AttributeState& s, AttributeId attribute) {
    if (s.count == 0) return;
    const uint32_t checkpoints = (s.count - 1) / format::kCheckpointEvery;
    const uint64_t offset = Offset();
    const size_t at = out.size();
    format::NodeHeader h{attribute,
                         s.count,
                         s.first_start,
                         s.last_end,
                         static_cast<uint32_t>(checkpoints * 8 + s.entries.size()),
                         0};
    Append(&out, h);
    // The checkpoints: one decoding pass over the entries, which are in cache.
    const uint8_t* p = s.entries.data();
    const uint8_t* end = p + s.entries.size();
    int64_t start = s.first_start;
    for (uint32_t i = 0; i < s.count; ++i) {
      if (i > 0) {
        uint64_t delta;
        const uint8_t* entry = p;
        p = format::GetVarint(p, end, &delta);
        start += static_cast<int64_t>(delta);
        if (i % format::kCheckpointEvery == 0) {
          const uint64_t cp = static_cast<uint64_t>(start - s.first_start) << 16 |
                              static_cast<uint64_t>(entry - s.entries.data());
          Append(&out, cp);
        }
      }
      StateValue v;
      p = GetValue(p, end, &v);
    }
    out.insert(out.end(), s.entries.begin(), s.entries.end());
    const uint32_t crc = format::Crc32(0, out.data() + at, out.size() - at);
    std::memcpy(out.data() + at + offsetof(format::NodeHeader, crc), &crc, sizeof crc);
    nodes.push_back({attribute, s.first_start, offset});
    buffered_bytes -= s.entries.size();
    s.entries.clear();
    s.count = 0;
    if (out.size() >= kOutBufferBytes) FlushOut();
  }

  void FlushAllNodes(bool release_memory) {
    for (AttributeId a = 0; a < states.size(); ++a) {
      FlushNode(states[a], a);
      if (release_memory) std::vector<uint8_t>().swap(states[a].entries);
    }
  }

  // Appends an entry starting at `start` (after the node's last entry's start).
  void AppendEntry(AttributeState& s, AttributeId attribute, int64_t start, const StateValue& v) {
    if (s.count > 0 && (s.entries.size() + format::kMaxEntryBytes > format::kNodeTargetBytes ||
                        start - s.first_start >= format::kMaxNodeSpan))
      FlushNode(s, attribute);
    uint8_t tmp[format::kMaxEntryBytes + 10];
    uint8_t* p = tmp;
    if (s.count == 0) {
      s.first_start = start;
      if (s.entries.capacity() == 0) s.entries.reserve(64);
    } else {
      p = format::PutVarint(p, static_cast<uint64_t>(start - s.last_start));
    }
    p = PutValue(p, v);
    s.entries.insert(s.entries.end(), tmp, p);
    buffered_bytes += static_cast<size_t>(p - tmp);
    s.last_start = start;
    s.last_value = v;
    ++s.count;
  }

  // Records [start, end) = v for `attribute`: gaps become null entries inside a node,
  // adjacent equal values merge, overlaps with what came before are cut off.
  void Close(AttributeState& s, AttributeId attribute, int64_t start, int64_t end,
             const StateValue& v) {
    if (v.is_null()) return;  // time without an interval reads as null
    if (s.last_end != kNoTime && start < s.last_end) start = s.last_end;
    if (end <= start) return;
    if (s.count > 0) {
      if (start == s.last_end && v == s.last_value) {
        s.last_end = end;
        max_end = std::max(max_end, end);
        return;
      }
      if (start > s.last_end) {
        // A gap at the end of a full node becomes the time between two nodes; the null
        // entry must not itself start a node (which would hold nothing).
        if (s.entries.size() + 2 * format::kMaxEntryBytes > format::kNodeTargetBytes ||
            start - s.first_start >= format::kMaxNodeSpan)
          FlushNode(s, attribute);
        else
          AppendEntry(s, attribute, s.last_end, StateValue::Null());
      }
    }
    AppendEntry(s, attribute, start, v);
    s.last_end = end;
    ++intervals;
    min_start = std::min(min_start, start);
    max_end = std::max(max_end, end);
    if (buffered_bytes > kBufferedBytesLimit) FlushAllNodes(/*release_memory=*/true);
  }
};

StateWriter::StateWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateWriter::~StateWriter() = default;

StatusOr<std::unique_ptr<StateWriter>> StateWriter::Create(const std::string& path,
                                                           const StateWriterOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->partial_path = path + ".partial";
  impl->options = options;
  impl->fd = open(impl->partial_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (impl->fd < 0) {
    impl->finished = true;  // nothing of ours to remove
    return IoError(fmt::format("Cannot create state store: file={}, reason={}", impl->partial_path,
                               std::strerror(errno)));
  }
  impl->out.reserve(kOutBufferBytes + 2 * format::kMaxNodeBody);
  impl->out.insert(impl->out.end(), format::kMagic, format::kMagic + 8);
  Append(&impl->out, format::kVersion);
  Append(&impl->out, format::kHeaderBytes);
  return std::unique_ptr<StateWriter>(new StateWriter(std::move(impl)));
}

AttributeId StateWriter::Attribute(std::string_view path) {
  const AttributeId id = impl_->tree.Intern(path);
  if (impl_->states.size() < impl_->tree.size()) impl_->states.resize(impl_->tree.size());
  return id;
}

StringRef StateWriter::Intern(std::string_view s) {
  auto& ids = impl_->string_ids;
  if (auto it = ids.find(s); it != ids.end()) return it->second;
  const StringRef ref = static_cast<StringRef>(impl_->strings.size());
  const std::string& stored = impl_->string_storage.emplace_back(s);
  impl_->strings.push_back(stored);
  ids.emplace(std::string_view(stored), ref);
  return ref;
}

void StateWriter::Set(AttributeId attribute, int64_t ts, StateValue value) {
  if (attribute >= impl_->states.size()) return;
  AttributeState& s = impl_->states[attribute];
  if (!s.open) {
    s.open = true;
    s.open_start = ts;
    s.open_value = value;
    return;
  }
  if (value == s.open_value) return;
  ts = std::max(ts, s.open_start);
  impl_->Close(s, attribute, s.open_start, ts, s.open_value);
  s.open_start = ts;
  s.open_value = value;
}

void StateWriter::Add(AttributeId attribute, int64_t start, int64_t end, StateValue value) {
  if (attribute >= impl_->states.size()) return;
  impl_->Close(impl_->states[attribute], attribute, start, end, value);
}

uint64_t StateWriter::intervals_written() const { return impl_->intervals; }
uint64_t StateWriter::bytes_written() const { return impl_->Offset(); }

Status StateWriter::Finish(int64_t end_ts) {
  Impl& w = *impl_;
  if (w.finished || w.fd < 0)
    return FailedPrecondition(fmt::format("State store already finished: file={}", w.path));
  for (AttributeId a = 0; a < w.states.size(); ++a) {
    AttributeState& s = w.states[a];
    if (s.open) w.Close(s, a, s.open_start, std::max(end_ts, s.open_start), s.open_value);
    s.open = false;
  }
  w.FlushAllNodes(/*release_memory=*/true);
  Align8(&w.out);
  const uint64_t tail_offset = w.Offset();

  // The tail is built in memory (indexes only, no intervals), then checksummed.
  std::vector<uint8_t> tail;
  format::Footer f{};
  std::memcpy(f.magic, format::kFooterMagic, 8);
  f.version = format::kVersion;
  f.footer_bytes = sizeof(format::Footer);
  f.tail_offset = tail_offset;
  auto section_start = [&]() {
    Align8(&tail);
    return tail.size();
  };
  auto section_end = [&](size_t begin) {
    return format::Section{tail_offset + begin, tail.size() - begin};
  };

  const size_t n = w.tree.size();
  // Nodes grouped by attribute, each attribute's in the order written (= time order).
  std::vector<uint64_t> node_begin(n + 1, 0);
  for (const PendingNode& node : w.nodes) ++node_begin[node.attribute + 1];
  for (size_t i = 1; i <= n; ++i) node_begin[i] += node_begin[i - 1];
  std::vector<format::NodeIndexEntry> index(w.nodes.size());
  {
    std::vector<uint64_t> fill(node_begin.begin(), node_begin.end() - 1);
    for (const PendingNode& node : w.nodes)
      index[fill[node.attribute]++] = {node.first_start, node.offset};
  }
  std::vector<uint32_t> first_child, num_children;
  uint32_t roots_first = 0;
  const std::vector<AttributeId> children =
      w.tree.ChildrenInOrder(&first_child, &num_children, &roots_first);

  size_t begin = section_start();
  uint64_t path_offset = 0;
  for (AttributeId a = 0; a < n; ++a) {
    const std::string_view p = w.tree.path(a);
    format::AttributeRecord r{node_begin[a],
                              static_cast<uint32_t>(node_begin[a + 1] - node_begin[a]),
                              w.tree.parent(a),
                              static_cast<uint32_t>(path_offset),
                              static_cast<uint32_t>(p.size()),
                              first_child[a],
                              num_children[a]};
    Append(&tail, r);
    path_offset += p.size();
  }
  if (path_offset > std::numeric_limits<uint32_t>::max())
    return Internal(
        fmt::format("Cannot write state store: file={}, reason=attribute paths "
                    "take {} bytes, over the format's 4 GiB",
                    w.path, path_offset));
  f.attributes = section_end(begin);
  begin = section_start();
  for (AttributeId c : children) Append(&tail, c);
  f.children = section_end(begin);
  begin = section_start();
  for (AttributeId a = 0; a < n; ++a) {
    const std::string_view p = w.tree.path(a);
    tail.insert(tail.end(), p.begin(), p.end());
  }
  f.paths = section_end(begin);
  begin = section_start();
  uint64_t string_offset = 0;
  for (std::string_view s : w.strings) {
    Append(&tail, static_cast<uint32_t>(string_offset));
    string_offset += s.size();
  }
  if (string_offset > std::numeric_limits<uint32_t>::max())
    return Internal(
        fmt::format("Cannot write state store: file={}, reason=strings take {} "
                    "bytes, over the format's 4 GiB",
                    w.path, string_offset));
  Append(&tail, static_cast<uint32_t>(string_offset));
  f.string_offsets = section_end(begin);
  begin = section_start();
  for (std::string_view s : w.strings) tail.insert(tail.end(), s.begin(), s.end());
  f.strings = section_end(begin);
  begin = section_start();
  for (const auto& e : index) Append(&tail, e);
  f.node_index = section_end(begin);
  begin = section_start();
  tail.insert(tail.end(), w.options.source_key.begin(), w.options.source_key.end());
  f.source_key = section_end(begin);
  Align8(&tail);

  f.num_attributes = n;
  f.num_strings = w.strings.size();
  f.num_nodes = w.nodes.size();
  f.num_intervals = w.intervals;
  f.root_first_child = roots_first;
  f.num_roots = n - roots_first;
  f.end = std::max(end_ts, w.max_end);
  f.start = w.intervals > 0 ? std::min(w.min_start, f.end) : f.end;
  f.tail_crc = format::Crc32(0, tail.data(), tail.size());
  f.footer_crc = format::Crc32(0, &f, offsetof(format::Footer, footer_crc));

  w.FlushOut();
  w.Write(tail.data(), tail.size());
  w.Write(&f, sizeof f);
  if (!w.error.ok()) return w.error;
  if (close(w.fd) != 0) {
    w.fd = -1;
    return IoError(fmt::format("Cannot write state store: file={}, reason={}", w.partial_path,
                               std::strerror(errno)));
  }
  w.fd = -1;
  if (rename(w.partial_path.c_str(), w.path.c_str()) != 0)
    return IoError(fmt::format("Cannot rename state store: file={}, to={}, reason={}",
                               w.partial_path, w.path, std::strerror(errno)));
  w.finished = true;
  return Status::Ok();
}

}  // namespace causeway::state
