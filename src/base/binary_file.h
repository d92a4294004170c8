// What the cache files (graph/graph_file.h, analysis/kernel_analysis_file.h) are written
// and read with: a writer that streams a body into FILE.partial behind a fixed-size header
// it fills in last, checksumming the body as it goes, then renames to FILE (a reader never
// sees half a file under the final name); and a reader over bytes in memory that checks
// every count against what is left before allocating, so that a damaged or forged file
// ends in an error naming the byte and the field, never in a crash or an allocation larger
// than the file. Values are in the machine's byte order (the files are caches of this
// machine; the header's byte-order mark refuses another's).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/checksum.h"
#include "base/status.h"

namespace causeway {

class BinaryFileWriter {
 public:
  // Creates `path`.partial with `header_size` bytes reserved at its start.
  static StatusOr<std::unique_ptr<BinaryFileWriter>> Create(const std::string& path,
                                                            size_t header_size);
  ~BinaryFileWriter();  // removes FILE.partial unless Commit() succeeded

  void Bytes(const void* data, size_t n);
  template <typename T>
  void Pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Bytes(&v, sizeof(T));
  }
  template <typename T>
  void Array(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Pod<uint64_t>(v.size());
    Bytes(v.data(), v.size() * sizeof(T));
  }
  void String(std::string_view s) {
    Pod<uint64_t>(s.size());
    Bytes(s.data(), s.size());
  }

  uint64_t body_bytes() const { return body_bytes_; }
  uint64_t body_checksum() const { return checksum_.Digest(); }
  // Writes the header at the start, then renames FILE.partial to FILE. The first write
  // error (a full disk) is returned here, naming the file.
  Status Commit(const void* header, size_t header_size);

 private:
  BinaryFileWriter(std::string path, int fd, size_t header_size);
  void Flush();

  std::string path_;
  int fd_ = -1;
  uint64_t offset_;  // where the buffer goes in the file
  std::vector<uint8_t> buffer_;
  Checksum64 checksum_;
  uint64_t body_bytes_ = 0;
  Status error_;
  bool committed_ = false;
};

class BinaryReader {
 public:
  // `data` stays owned by the caller; `base_offset` is the data's offset in the file, for
  // messages.
  BinaryReader(std::string_view data, uint64_t base_offset)
      : data_(data), base_offset_(base_offset) {}

  bool ok() const { return error_.empty(); }
  // "at byte N: <what> (needs B bytes, A left)" for the first failure.
  const std::string& error() const { return error_; }
  uint64_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

  bool Bytes(void* out, size_t n, const char* what);
  template <typename T>
  bool Pod(T* out, const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Bytes(out, sizeof(T), what);
  }
  // A count of elements of `element_size` bytes each that must all fit in what is left.
  bool Count(uint64_t* n, size_t element_size, const char* what);
  template <typename T>
  bool Array(std::vector<T>* out, const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t n;
    if (!Count(&n, sizeof(T), what)) return false;
    out->resize(n);
    return Bytes(out->data(), n * sizeof(T), what);
  }
  bool String(std::string* out, const char* what);
  // Records a failure of a check the caller made ("tid's vertex 7 out of range").
  bool Fail(std::string what);

 private:
  std::string_view data_;
  uint64_t base_offset_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace causeway
