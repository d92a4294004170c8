// The recording directory and the folders the recorder makes in it, created so that no
// other local user can read the recording or redirect what root writes: the directory is
// new, or empty and owned by the recorder's user (or root); it gets the recording's mode
// (0700 by default); folders and files under it are created relative to open directory
// descriptors, never through a symbolic link.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace causeway::record {

// An open directory, closed with the object.
class DirFd {
 public:
  DirFd() = default;
  explicit DirFd(int fd) : fd_(fd) {}
  DirFd(DirFd&& o) noexcept : fd_(o.release()) {}
  DirFd& operator=(DirFd&& o) noexcept;
  DirFd(const DirFd&) = delete;
  DirFd& operator=(const DirFd&) = delete;
  ~DirFd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Files of a recording with directory mode `dir_mode`: the same bits without execute.
inline uint32_t FileModeOf(uint32_t dir_mode) { return dir_mode & 0666u; }

// `path` as the recording directory: created with `mode` (parents as usual) when missing;
// when it exists it must be an empty directory, not a symbolic link, owned by this user or
// root, and it is given `mode`.
StatusOr<DirFd> OpenOutputDirectory(const std::string& path, uint32_t mode);

// Creates the folder `name` in `parent` (named `parent_path` in messages) with `mode` and
// opens it, refusing a symbolic link. When `name` exists already it fails and sets
// `*existed`.
StatusOr<DirFd> MakeFolder(const DirFd& parent, const std::string& parent_path,
                           const std::string& name, uint32_t mode, bool* existed = nullptr);

}  // namespace causeway::record
