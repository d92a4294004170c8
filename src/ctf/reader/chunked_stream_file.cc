#include "ctf/reader/chunked_stream_file.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace causeway::ctf {

Status ChunkedStreamFile::Open() {
  ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path_));
  size_ = file.size();
  file_.emplace(std::move(file));
  return Status::Ok();
}

void ChunkedStreamFile::ReleaseBehind(uint64_t offset) {
  const uint64_t behind = release_limited_ ? std::min(offset, release_limit_) : offset;
  // Chunks start at increasing offsets and each ends past its predecessor (a chunk is read
  // only for bytes the last one does not hold), so the ones to release come first.
  size_t n = 0;
  while (n < chunks_.size() && chunks_[n].end <= behind) ++n;
  for (size_t i = 0; i < n; ++i)
    if (spare_.size() < kMaxSpareChunks) spare_.push_back(std::move(chunks_[i]));
  chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(n));
}

Status ChunkedStreamFile::ReadChunk(uint64_t offset, uint64_t size) {
  const uint64_t want = std::min(size_ - offset, exact_reads_ ? size : std::max(size, kChunkBytes));
  Chunk c;
  for (auto it = spare_.begin(); it != spare_.end(); ++it) {
    if (it->capacity >= want) {
      c = std::move(*it);
      spare_.erase(it);
      break;
    }
  }
  if (!c.bytes) {
    c.capacity = std::max(want, kChunkBytes);
    c.bytes.reset(new uint8_t[c.capacity + kSlack]);  // not zeroed: read over at once
  }
  RETURN_IF_ERROR(file_->Read(c.bytes.get(), want, offset));
  std::memset(c.bytes.get() + want, 0, kSlack);
  c.begin = offset;
  c.end = offset + want;
  chunks_.push_back(std::move(c));
  return Status::Ok();
}

}  // namespace causeway::ctf
