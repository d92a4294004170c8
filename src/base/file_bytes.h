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
