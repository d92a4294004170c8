// The bytes of one stream file, brought into memory a packet at a time for StreamCursor.
//
// The file is read with pread into a few buffers (chunks) of at least kChunkBytes, each
// holding whole packets, rather than memory-mapped: decoding from a small buffer that the
// copy has just brought into the cache beats touching a page-cache mapping page by page
// (TLB misses and cold lines on every 4 KiB page; docs/performance.md). A chunk is reused
// once its reader, or the thread still reading events decoded from it (LimitReleaseTo),
// is past it, so the resident set stays bounded whatever the file size. The fuzzers hand
// the bytes in memory instead (OpenMemory): then nothing is read or copied.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/file_bytes.h"
#include "base/status.h"

namespace causeway::ctf {

class ChunkedStreamFile {
 public:
  // `path` names the file to Open, or the bytes OpenMemory is given, in messages.
  explicit ChunkedStreamFile(std::string path) : path_(std::move(path)) {}
  ChunkedStreamFile(const ChunkedStreamFile&) = delete;
  ChunkedStreamFile& operator=(const ChunkedStreamFile&) = delete;

  // Errors name the path and the reason.
  Status Open();
  // Serves `size` bytes at `data` instead of a file; the bytes must outlive this object.
  void OpenMemory(const uint8_t* data, uint64_t size) {
    memory_ = data;
    size_ = size;
  }

  const std::string& path() const { return path_; }
  // The file's size when opened (or the memory's).
  uint64_t size() const { return size_; }
  // Whether the bytes Map gives are followed by kSlack readable bytes past the file's
  // end, so that an 8-byte load at any byte of them stays in the buffer: a chunk is, a
  // caller's memory (OpenMemory) is not.
  bool padded() const { return memory_ == nullptr; }

  // Bytes of the file in memory: `data` is the first byte asked for, `end` the end of what
  // is held from there (at least the bytes asked for; the file's end for memory).
  struct Span {
    const uint8_t* data = nullptr;
    const uint8_t* end = nullptr;
  };
  // Brings the file's bytes [offset, offset + size) into memory, within the file, reading
  // a chunk when the last one read does not hold them all. They stay where they are until
  // the chunk is released (ReleaseBehind) or another Map reads a chunk over it. A read
  // error (the file cut short since Open) names the byte where it ended.
  Status Map(uint64_t offset, uint64_t size, Span* out) {
    if (memory_) {
      *out = {memory_ + offset, memory_ + size_};
      return Status::Ok();
    }
    if (chunks_.empty() || offset < chunks_.back().begin || offset + size > chunks_.back().end)
      RETURN_IF_ERROR(ReadChunk(offset, size));
    const Chunk& c = chunks_.back();
    *out = {c.bytes.get() + (offset - c.begin), c.bytes.get() + (c.end - c.begin)};
    return Status::Ok();
  }
  // From now on a chunk read holds only the bytes asked for rather than kChunkBytes: for a
  // walk over packet headers and contexts that skips the packets' events.
  void ReadOnlyWhatIsAsked() { exact_reads_ = true; }

  // Releases the chunks that end at or before `offset`, which the reader is past, for the
  // next reads to reuse; or, after LimitReleaseTo, before the smaller of the two.
  void ReleaseBehind(uint64_t offset);
  // Another thread still reads bytes below `offset` (the decoding pipeline): chunks are
  // reused only when they end at or below it.
  void LimitReleaseTo(uint64_t offset) {
    release_limited_ = true;
    release_limit_ = offset;
  }
  bool release_limited() const { return release_limited_; }
  // Frees every chunk, for a reader done with the file; a later Map reads afresh.
  void ReleaseAll() {
    chunks_.clear();
    spare_.clear();
  }

  static constexpr uint64_t kChunkBytes = 256 << 10;
  // Readable bytes past a chunk's end (zeros): reads that take 8 bytes at once may pass the
  // valid end by up to 7.
  static constexpr uint64_t kSlack = 8;

 private:
  // Reads a chunk holding [offset, offset + size), into a spare one when one is large enough.
  Status ReadChunk(uint64_t offset, uint64_t size);

  // File bytes [begin, end) at `bytes` (allocated with kSlack readable bytes more).
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    uint64_t capacity = 0;
    uint64_t begin = 0, end = 0;
  };
  static constexpr size_t kMaxSpareChunks = 2;

  std::string path_;
  std::optional<ReadOnlyFile> file_;  // none for OpenMemory
  const uint8_t* memory_ = nullptr;   // OpenMemory's bytes: no chunks
  uint64_t size_ = 0;
  std::vector<Chunk> chunks_;  // held, in file order: the last one holds the latest Map
  std::vector<Chunk> spare_;   // released, reused by the next read
  bool release_limited_ = false;
  bool exact_reads_ = false;
  uint64_t release_limit_ = 0;
};

}  // namespace causeway::ctf
