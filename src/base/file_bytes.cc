#include "base/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace causeway {
namespace {

// Closes the descriptor on every return path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

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

StatusOr<FileBytes> FileBytes::Read(const std::string& path) {
  const Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return IoError(fmt::format("Cannot open {}: {}", path, strerror(errno)));
  struct stat st;
  if (fstat(f.fd, &st) != 0)
    return IoError(fmt::format("Cannot stat {}: {}", path, strerror(errno)));
  if (!S_ISREG(st.st_mode)) return IoError(fmt::format("Cannot read {}: not a regular file", path));
  FileBytes out;
  out.size_ = static_cast<uint64_t>(st.st_size);
  if (out.size_ == 0) return out;
  posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  out.data_.reset(new char[out.size_]);  // not zeroed: read over at once
  if (Status s = ReadFully(f.fd, out.data_.get(), out.size_, 0, out.size_); !s.ok())
    return std::move(s).WithContext(fmt::format("Cannot read {}", path));
  return out;
}

}  // namespace causeway
