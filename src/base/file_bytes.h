// A whole file read into memory (pread into one uninitialized buffer, no copy through a
// stream). Read rather than memory-mapped: a file cut short while it is read is an error
// naming the file and the byte where it ended, not a SIGBUS; a file that grows meanwhile
// is read as it was when opened.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace causeway {

// Reads `size` bytes at `offset` of `fd` into `out`, retrying short reads and EINTR. A file
// that ends before (cut short while being read; `file_size` is the size it had when opened)
// is a DataLoss naming the byte where it ended; a refused read an IoError.
Status ReadFully(int fd, void* out, uint64_t size, uint64_t offset, uint64_t file_size);

// Opens `path` for reading if it is a regular file (never waiting on a FIFO) and sets
// `*size`; else returns -1 with errno set and the reason in `*why` ("No such file or
// directory", "not a regular file (it is a FIFO)"). Devices, FIFOs and sockets are refused:
// /dev/zero never ends and a FIFO blocks its reader.
int OpenRegularFile(const std::string& path, uint64_t* size, std::string* why);
// "a FIFO", "a character device"... for a st_mode.
std::string_view FileKind(unsigned mode);

// A regular file open for reading (closed with this object) and its size when opened.
class ReadOnlyFile {
 public:
  // Refuses what is not a regular file; errors name the path and the reason. Hints the
  // kernel that the file will be read in order (larger read-ahead).
  static StatusOr<ReadOnlyFile> Open(const std::string& path);
  ReadOnlyFile(ReadOnlyFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  ReadOnlyFile& operator=(ReadOnlyFile&& o) noexcept;
  ~ReadOnlyFile();

  uint64_t size() const { return size_; }
  // ReadFully at `offset`: a file that ends before is measured against size().
  Status Read(void* out, uint64_t bytes, uint64_t offset) const {
    return ReadFully(fd_, out, bytes, offset, size_);
  }

 private:
  ReadOnlyFile() = default;
  int fd_ = -1;
  uint64_t size_ = 0;
};

class FileBytes {
 public:
  // Reads `path`; an empty file gives an empty text. Errors name the file and the reason.
  static StatusOr<FileBytes> Read(const std::string& path);

  // Never a null pointer, even for an empty file (libraries copying it call memcpy).
  std::string_view text() const {
    if (!data_) return std::string_view("", 0);
    return {data_.get(), static_cast<size_t>(size_)};
  }

 private:
  std::unique_ptr<char[]> data_;
  uint64_t size_ = 0;
};

}  // namespace causeway
