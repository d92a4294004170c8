// A whole file mapped read-only into memory: its bytes without copying them into the heap.
// The file must not shrink while mapped (reading a page beyond its new end raises SIGBUS);
// files that only grow, as appended logs do, are safe: the mapping keeps the size it had.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace causeway {

class MappedFile {
 public:
  // Maps `path`; an empty file gives an empty text. Errors name the file and the reason.
  static StatusOr<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { Unmap(); }

  // Never a null pointer, even for an empty file (libraries copying it call memcpy).
  std::string_view text() const {
    if (!data_) return std::string_view("", 0);
    return {static_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

 private:
  void Unmap();
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace causeway
