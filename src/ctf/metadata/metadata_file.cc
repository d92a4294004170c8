#include "ctf/metadata/metadata_file.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_bytes.h"

namespace causeway::ctf {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { close(fd_); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

 private:
  int fd_;
};

uint32_t Load32(std::string_view bytes, size_t offset, bool big_endian) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    uint32_t b = static_cast<uint8_t>(bytes[offset + i]);
    v |= big_endian ? b << (8 * (3 - i)) : b << (8 * i);
  }
  return v;
}

}  // namespace

bool IsPacketizedMetadata(std::string_view bytes) {
  if (bytes.size() < 4) return false;
  return Load32(bytes, 0, false) == kMetadataPacketMagic ||
         Load32(bytes, 0, true) == kMetadataPacketMagic;
}

StatusOr<std::string> ReadMetadataText(const std::string& trace_dir) {
  std::string path = trace_dir + "/metadata";
  uint64_t size = 0;
  std::string why;
  const int fd = OpenRegularFile(path, &size, &why);
  if (fd < 0) {
    const int err = errno;
    std::string message = fmt::format("Cannot open metadata: file={}: {}", path, why);
    return err == ENOENT ? NotFound(message) : IoError(message);
  }
  const FileDescriptor closer(fd);
  if (size > kMaxMetadataBytes)
    return DataLoss(
        fmt::format("Cannot read metadata: file={}: {} bytes, more than the {} MiB a metadata "
                    "file may have",
                    path, size, kMaxMetadataBytes >> 20));
  std::string bytes(size, '\0');
  if (Status s = ReadFully(fd, bytes.data(), size, 0, size); !s.ok())
    return std::move(s).WithContext(fmt::format("Cannot read metadata: file={}", path));
  if (!IsPacketizedMetadata(bytes)) return bytes;
  return DecodeMetadataPackets(bytes, path);
}

StatusOr<std::string> DecodeMetadataPackets(std::string_view bytes,
                                            const std::string& file_for_errors) {
  std::string text;
  size_t offset = 0;
  auto fail = [&](StatusCode code, const std::string& what) {
    return Status(code, fmt::format("Cannot read metadata packet: file={}, offset={}: {}",
                                    file_for_errors, offset, what));
  };
  while (offset < bytes.size()) {
    size_t left = bytes.size() - offset;
    if (left < kMetadataPacketHeaderSize)
      return fail(StatusCode::kDataLoss,
                  fmt::format("truncated packet header ({} bytes left, the header has {})", left,
                              kMetadataPacketHeaderSize));
    bool big_endian;
    if (Load32(bytes, offset, false) == kMetadataPacketMagic) {
      big_endian = false;
    } else if (Load32(bytes, offset, true) == kMetadataPacketMagic) {
      big_endian = true;
    } else {
      return fail(StatusCode::kDataLoss,
                  fmt::format("bad magic 0x{:08x} (expected 0x{:08x})",
                              Load32(bytes, offset, false), kMetadataPacketMagic));
    }
    uint32_t content_bits = Load32(bytes, offset + 24, big_endian);
    uint32_t packet_bits = Load32(bytes, offset + 28, big_endian);
    auto compression = static_cast<uint8_t>(bytes[offset + 32]);
    auto encryption = static_cast<uint8_t>(bytes[offset + 33]);
    auto major = static_cast<uint8_t>(bytes[offset + 35]);
    auto minor = static_cast<uint8_t>(bytes[offset + 36]);
    if (compression != 0)
      return fail(StatusCode::kUnimplemented,
                  fmt::format("compressed metadata packets are not supported "
                              "(compression_scheme {})",
                              compression));
    if (encryption != 0)
      return fail(StatusCode::kUnimplemented,
                  fmt::format("encrypted metadata packets are not supported "
                              "(encryption_scheme {})",
                              encryption));
    if (major != 1)
      return fail(
          StatusCode::kUnimplemented,
          fmt::format("metadata packet version {}.{} is not supported (only 1.x)", major, minor));
    if (content_bits > packet_bits)
      return fail(StatusCode::kDataLoss,
                  fmt::format("content_size {} exceeds packet_size {}", content_bits, packet_bits));
    if (content_bits % 8 != 0 || packet_bits % 8 != 0)
      return fail(StatusCode::kDataLoss,
                  fmt::format("content_size {} or packet_size {} is not a whole number of bytes",
                              content_bits, packet_bits));
    size_t content_bytes = content_bits / 8;
    size_t packet_bytes = packet_bits / 8;
    if (content_bytes < kMetadataPacketHeaderSize)
      return fail(StatusCode::kDataLoss,
                  fmt::format("content_size {} is smaller than the {}-bit packet header",
                              content_bits, kMetadataPacketHeaderSize * 8));
    if (content_bytes > left)
      return fail(StatusCode::kDataLoss,
                  fmt::format("content_size {} goes past the end of the file ({} bytes left)",
                              content_bits, left));
    text.append(bytes.substr(offset + kMetadataPacketHeaderSize,
                             content_bytes - kMetadataPacketHeaderSize));
    // A last packet whose padding was cut off still has all of its text.
    if (packet_bytes >= left) break;
    offset += packet_bytes;
  }
  return text;
}

}  // namespace causeway::ctf
