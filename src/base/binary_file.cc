#include "base/binary_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

namespace causeway {

namespace {
constexpr size_t kBufferSize = 1 << 20;

Status WriteAll(int fd, const void* data, size_t n, uint64_t offset) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n) {
    const ssize_t w = pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return IoError(strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}
}  // namespace

StatusOr<std::unique_ptr<BinaryFileWriter>> BinaryFileWriter::Create(const std::string& path,
                                                                     size_t header_size) {
  const std::string partial = path + ".partial";
  const int fd = open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("Cannot create {}: {}", partial, strerror(errno)));
  return std::unique_ptr<BinaryFileWriter>(new BinaryFileWriter(path, fd, header_size));
}

BinaryFileWriter::BinaryFileWriter(std::string path, int fd, size_t header_size)
    : path_(std::move(path)), fd_(fd), offset_(header_size) {
  buffer_.reserve(kBufferSize);
}

BinaryFileWriter::~BinaryFileWriter() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink((path_ + ".partial").c_str());
}

void BinaryFileWriter::Flush() {
  if (buffer_.empty()) return;
  if (error_.ok()) error_ = WriteAll(fd_, buffer_.data(), buffer_.size(), offset_);
  offset_ += buffer_.size();
  buffer_.clear();
}

void BinaryFileWriter::Bytes(const void* data, size_t n) {
  checksum_.Update(data, n);
  body_bytes_ += n;
  if (buffer_.size() + n <= kBufferSize) {
    const auto* p = static_cast<const uint8_t*>(data);
    buffer_.insert(buffer_.end(), p, p + n);
    return;
  }
  Flush();
  if (n < kBufferSize) {
    const auto* p = static_cast<const uint8_t*>(data);
    buffer_.insert(buffer_.end(), p, p + n);
    return;
  }
  if (error_.ok()) error_ = WriteAll(fd_, data, n, offset_);
  offset_ += n;
}

Status BinaryFileWriter::Commit(const void* header, size_t header_size) {
  const std::string partial = path_ + ".partial";
  Flush();
  if (error_.ok()) error_ = WriteAll(fd_, header, header_size, 0);
  if (!error_.ok()) return IoError(fmt::format("Cannot write {}: {}", partial, error_.message()));
  if (close(fd_) != 0) {
    fd_ = -1;
    return IoError(fmt::format("Cannot write {}: {}", partial, strerror(errno)));
  }
  fd_ = -1;
  if (rename(partial.c_str(), path_.c_str()) != 0)
    return IoError(fmt::format("Cannot rename {} to {}: {}", partial, path_, strerror(errno)));
  committed_ = true;
  return Status::Ok();
}

bool BinaryReader::Fail(std::string what) {
  if (error_.empty()) error_ = fmt::format("at byte {}: {}", base_offset_ + pos_, what);
  return false;
}

bool BinaryReader::Bytes(void* out, size_t n, const char* what) {
  if (!ok()) return false;
  if (n > remaining())
    return Fail(fmt::format("{} needs {} bytes, {} left (cut short?)", what, n, remaining()));
  if (n) std::memcpy(out, data_.data() + pos_, n);
  pos_ += n;
  return true;
}

bool BinaryReader::Count(uint64_t* n, size_t element_size, const char* what) {
  if (!Pod(n, what)) return false;
  if (element_size && *n > remaining() / element_size)
    return Fail(fmt::format("{}: a count of {} elements of {} bytes, but {} bytes left", what, *n,
                            element_size, remaining()));
  return true;
}

bool BinaryReader::String(std::string* out, const char* what) {
  uint64_t n;
  if (!Count(&n, 1, what)) return false;
  out->assign(data_.data() + pos_, n);
  pos_ += n;
  return true;
}

}  // namespace causeway
