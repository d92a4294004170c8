#include "base/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace causeway {

Status ReadFully(int fd, void* out, uint64_t size, uint64_t offset, uint64_t file_size) {
  auto* bytes = static_cast<uint8_t*>(out);
  for (uint64_t done = 0; done < size;) {
    const ssize_t n = pread(fd, bytes + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return IoError(fmt::format("Cannot read {} bytes at offset {}: {}", size - done,
                                 offset + done, strerror(errno)));
    if (n == 0)
      return DataLoss(fmt::format(
          "the file ends at byte {}, before the {} bytes it had when opened (truncated while "
          "being read?)",
          offset + done, file_size));
    done += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

std::string_view FileKind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "of an unknown kind";
  }
}

int OpenRegularFile(const std::string& path, uint64_t* size, std::string* why) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer, forever. It changes
  // nothing for the regular file read afterwards.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *why = strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *why = fmt::format("cannot stat it: {}", strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = fmt::format("not a regular file (it is {})", FileKind(st.st_mode));
    close(fd);
    errno = EINVAL;
    return -1;
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

StatusOr<ReadOnlyFile> ReadOnlyFile::Open(const std::string& path) {
  ReadOnlyFile f;
  std::string why;
  f.fd_ = OpenRegularFile(path, &f.size_, &why);
  if (f.fd_ < 0) return IoError(fmt::format("Cannot open {}: {}", path, why));
  posix_fadvise(f.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return f;
}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) close(fd_);
}

StatusOr<FileBytes> FileBytes::Read(const std::string& path) {
  ASSIGN_OR_RETURN(const ReadOnlyFile f, ReadOnlyFile::Open(path));
  FileBytes out;
  out.size_ = f.size();
  if (out.size_ == 0) return out;
  out.data_.reset(new char[out.size_]);  // not zeroed: read over at once
  if (Status s = f.Read(out.data_.get(), out.size_, 0); !s.ok())
    return std::move(s).WithContext(fmt::format("Cannot read {}", path));
  return out;
}

}  // namespace causeway
