#include "ctf/reader/trace.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "base/file_bytes.h"
#include "base/int128.h"
#include "ctf/metadata/metadata_file.h"
#include "ctf/metadata/tsdl_parser.h"

namespace causeway::ctf {

namespace fs = std::filesystem;

StatusOr<std::shared_ptr<const MetadataCache::Compiled>> MetadataCache::Get(
    std::string text, const std::string& dir) {
  if (auto it = by_text_.find(text); it != by_text_.end()) return it->second;
  auto parsed = ParseTsdl(text);
  if (!parsed.ok())
    return parsed.status().WithContext(fmt::format("Cannot parse metadata: file={}/metadata", dir));
  auto c = std::make_shared<Compiled>();
  c->trace_class = std::make_unique<TraceClass>(std::move(parsed).value());
  auto plan = CompileTracePlan(*c->trace_class);
  if (!plan.ok())
    return plan.status().WithContext(fmt::format("Cannot compile metadata: file={}/metadata", dir));
  c->plan = std::move(plan).value();
  for (const auto& stream : c->plan->streams)
    c->fast_path_tables.push_back(std::make_unique<const FastPathTables>(*c->plan, *stream));
  std::shared_ptr<const Compiled> shared = std::move(c);
  by_text_.emplace(std::move(text), shared);
  return shared;
}

StatusOr<std::unique_ptr<Trace>> Trace::Open(const std::string& dir, MetadataCache* cache) {
  auto t = std::unique_ptr<Trace>(new Trace());
  t->dir_ = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return NotFound(fmt::format("Cannot open trace: {} is not a directory", dir));
  auto text = ReadMetadataText(dir);
  if (!text.ok()) return text.status().WithContext(fmt::format("Cannot open trace: path={}", dir));
  MetadataCache own;
  auto compiled = (cache ? cache : &own)->Get(std::move(text).value(), dir);
  if (!compiled.ok()) return compiled.status();
  t->compiled_ = std::move(compiled).value();

  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "metadata" || name.empty() || name[0] == '.') continue;
    if (entry.is_directory(ec)) continue;  // LTTng's index/
    // Anything else beside the metadata is a stream file: a FIFO, a device or a socket
    // there would block the reader or never end.
    if (!entry.is_regular_file(ec)) {
      struct stat st;
      const std::string path = entry.path().string();
      return IoError(fmt::format(
          "Cannot open trace: {}: not a regular file (it is {})", path,
          stat(path.c_str(), &st) == 0 ? FileKind(st.st_mode) : std::string_view("a broken link")));
    }
    if (entry.file_size(ec) == 0) continue;
    t->stream_paths_.push_back(entry.path().string());
  }
  if (ec) return IoError(fmt::format("Cannot list trace directory {}: {}", dir, ec.message()));
  std::sort(t->stream_paths_.begin(), t->stream_paths_.end());

  t->hostname_ = t->trace_class().EnvString("hostname");
  if (t->hostname_.empty()) t->hostname_ = t->trace_class().EnvString("host");
  if (t->hostname_.empty()) t->hostname_ = fs::path(dir).lexically_normal().filename().string();
  return t;
}

const FastPathTables& Trace::fast_path_tables(const StreamPlan& stream) const {
  const auto& streams = compiled_->plan->streams;
  size_t i = 0;
  while (streams[i].get() != &stream) ++i;
  return *compiled_->fast_path_tables[i];
}

namespace {

// The clock's time of `cycles` in ns from its origin, exactly (offset_s, offset and cycles
// are each within 2^64, so the sum is within 2^128).
int128 ExactNs(const ClockClass& clock, uint64_t cycles) {
  const int128 offset_ns = static_cast<int128>(clock.offset_s) * 1'000'000'000;
  if (clock.freq == 1'000'000'000) return offset_ns + clock.offset + static_cast<int128>(cycles);
  const int128 total = static_cast<int128>(clock.offset) + cycles;
  return offset_ns + total * 1'000'000'000 / static_cast<int128>(clock.freq);
}

constexpr int128 kMaxNs = static_cast<int128>(UINT64_MAX);

}  // namespace

uint64_t Trace::CyclesToNs(const ClockClass* clock, uint64_t cycles) const {
  if (!clock) return cycles;
  const int128 ns = ExactNs(*clock, cycles);
  return ns < 0 ? 0 : ns > kMaxNs ? UINT64_MAX : static_cast<uint64_t>(ns);
}

Status Trace::CheckClockRange(const ClockClass* clock, uint64_t cycles,
                              std::string_view what) const {
  if (!clock) return Status::Ok();
  const int128 ns = ExactNs(*clock, cycles);
  if (ns >= 0 && ns <= kMaxNs) return Status::Ok();
  return DataLoss(fmt::format(
      "clock {}: {} ({} cycles) at freq = {} Hz, offset_s = {}, offset = {} is {} the range of "
      "timestamps (0 to 2^64 ns from the clock's origin, the Epoch to the year 2554): the "
      "clock's freq, offset_s or offset is wrong",
      clock->name, what, cycles, clock->freq, clock->offset_s, clock->offset,
      ns < 0 ? "before" : "beyond"));
}

}  // namespace causeway::ctf
