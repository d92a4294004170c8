// Reading a CTF 1.8 trace's `metadata` file into TSDL text.
//
// The file is either plain TSDL text, or "packetized": a sequence of packets, each a
// 37-byte header (magic 0x75D11D57 in the writer's byte order, trace UUID, checksum,
// content_size and packet_size in bits, compression/encryption/checksum schemes, major,
// minor) followed by text up to content_size and padding up to packet_size. LTTng writes
// the packetized form; perf and babeltrace2 write plain text.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace causeway::ctf {

inline constexpr uint32_t kMetadataPacketMagic = 0x75D11D57;
inline constexpr size_t kMetadataPacketHeaderSize = 37;

// The largest metadata file read: a kernel trace's metadata takes a few hundred KiB, so a
// larger file is damaged or not a metadata file (it is refused before anything is read).
inline constexpr uint64_t kMaxMetadataBytes = uint64_t{64} << 20;

// True when `bytes` starts with the packet magic (in either byte order).
bool IsPacketizedMetadata(std::string_view bytes);

// Reads `trace_dir`/metadata and returns its TSDL text, decoding packets when the file
// is packetized. Errors: kNotFound (no such file), kIoError (also: not a regular file, such
// as a FIFO or a link to /dev/zero), kDataLoss (larger than kMaxMetadataBytes), and
// those of DecodeMetadataPackets.
StatusOr<std::string> ReadMetadataText(const std::string& trace_dir);

// Concatenates the text of the metadata packets in `bytes`. Errors name the file and the
// byte offset of the bad packet:
//   "Cannot read metadata packet: file=/x/metadata, offset=4096: content_size 99999 exceeds
//    packet_size 32768"
// kDataLoss for corrupt or truncated packets, kUnimplemented for compressed or encrypted
// ones. The checksum is not verified.
StatusOr<std::string> DecodeMetadataPackets(std::string_view bytes,
                                            const std::string& file_for_errors);

}  // namespace causeway::ctf
