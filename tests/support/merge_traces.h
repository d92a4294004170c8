// Traces for tests of the merge: streams that tie in time all the time, their stream
// files, and garbage over a stream from some point on.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {

// Writes `streams` CPU streams of `per_stream` events each into `dir` (packets of 4 KiB);
// event k of a stream carries k in its field "k". Each stream's time steps by 0 to 3 ns,
// so that heads (and the horizons the merge of decoded runs cuts at) tie across streams
// all the time. With `end_at_max`, every stream's last 20 events are at UINT64_MAX, where
// they tie with the decoding pipeline's end-of-batch markers too. Time starts at `start`,
// and jumps `jump` ns ahead in each stream after half of its events.
inline void WriteTiedTrace(const std::string& dir, uint32_t streams, uint32_t per_stream,
                           uint32_t seed, bool end_at_max = false, uint64_t start = 1000,
                           uint64_t jump = 0) {
  ctf::TraceOptions o;
  o.packet_size = 4096;
  auto w = ctf::CtfWriter::Create(dir, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint32_t tick = *(*w)->AddEventClass("tick", {{"k", ctf::FieldKind::kU32}});
  std::mt19937 rng(seed);
  std::vector<uint64_t> ts(streams, start);
  std::vector<uint32_t> written(streams, 0);
  for (uint64_t left = uint64_t{streams} * per_stream; left > 0; --left) {
    uint32_t cpu = static_cast<uint32_t>(rng() % streams);
    while (written[cpu] == per_stream) cpu = (cpu + 1) % streams;
    ts[cpu] += rng() % 4 + (written[cpu] == per_stream / 2 ? jump : 0);
    const uint64_t t = end_at_max && written[cpu] + 20 >= per_stream ? UINT64_MAX : ts[cpu];
    (*w)->Begin(cpu, tick, t).U32(written[cpu]++);
  }
  ASSERT_TRUE((*w)->Close().ok());
}

// The stream files of the trace in `dir` (every file but `metadata`), sorted by name.
inline std::vector<std::string> StreamFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().filename() != "metadata") files.push_back(f.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Overwrites the file at `path` with 0xff bytes from `fraction` of its size to its end.
inline void SmashFrom(const std::string& path, double fraction) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(f.tellg());
  const auto at = static_cast<std::streamoff>(static_cast<double>(size) * fraction);
  f.seekp(at);
  const std::string junk(static_cast<size_t>(size - at), '\xff');
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

// Overwrites the bytes of the file at `path` from `offset` on with `bytes`.
inline void Overwrite(const std::string& path, std::streamoff offset, const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(offset);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

}  // namespace causeway::testing
