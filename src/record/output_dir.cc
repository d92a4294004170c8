#include "record/output_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace causeway::record {

namespace fs = std::filesystem;

DirFd& DirFd::operator=(DirFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

DirFd::~DirFd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

bool IsEmpty(int dir_fd) {
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return false;
  }
  bool empty = true;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  ::closedir(d);
  return empty;
}

}  // namespace

StatusOr<DirFd> OpenOutputDirectory(const std::string& path, uint32_t mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT)
      return IoError(
          fmt::format("Cannot create output directory {}: {}", path, std::strerror(errno)));
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec || ::mkdir(path.c_str(), mode & 0700) != 0) {
      const std::string why = ec ? ec.message() : std::strerror(errno);
      return IoError(fmt::format("Cannot create output directory {}: {}", path, why));
    }
  } else if (S_ISLNK(st.st_mode)) {
    return InvalidArgument(
        fmt::format("Output {} is a symbolic link; give the directory itself (a link could be "
                    "changed while root writes through it)",
                    path));
  } else if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument(fmt::format("Output {} exists and is not a directory", path));
  }
  DirFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0)
    return IoError(fmt::format("Cannot open output directory {}: {}", path, std::strerror(errno)));
  if (::fstat(dir.get(), &st) != 0)
    return IoError(fmt::format("Cannot stat output directory {}: {}", path, std::strerror(errno)));
  // Another user's directory: they could plant links in it, and they keep the right to
  // change its mode, so the recording could not be kept private.
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return PermissionDenied(fmt::format(
        "Output directory {} belongs to another user (uid {}); give a new directory, or one "
        "you own",
        path, st.st_uid));
  }
  if (!IsEmpty(dir.get()))
    return InvalidArgument(fmt::format(
        "Output directory {} is not empty; give a new directory (recordings never overwrite)",
        path));
  if (::fchmod(dir.get(), mode) != 0)
    return IoError(
        fmt::format("Cannot set the mode of output directory {}: {}", path, std::strerror(errno)));
  if (::faccessat(dir.get(), ".", W_OK, AT_EACCESS) != 0)
    return IoError(
        fmt::format("Cannot write into output directory {}: {}", path, std::strerror(errno)));
  return dir;
}

StatusOr<DirFd> MakeFolder(const DirFd& parent, const std::string& parent_path,
                           const std::string& name, uint32_t mode, bool* existed) {
  const std::string path = parent_path + "/" + name;
  if (::mkdirat(parent.get(), name.c_str(), mode & 0700) != 0) {
    if (errno == EEXIST && existed) *existed = true;
    return IoError(fmt::format("Cannot create directory {}: {}", path, std::strerror(errno)));
  }
  DirFd dir(::openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0)
    return IoError(fmt::format("Cannot open directory {}: {}", path, std::strerror(errno)));
  if (::fchmod(dir.get(), mode) != 0)
    return IoError(fmt::format("Cannot set the mode of {}: {}", path, std::strerror(errno)));
  return dir;
}

}  // namespace causeway::record
