// State store files (src/state): any bytes are refused with an error naming the file, or
// opened and queried without crashing, hanging or reading outside the file; what a query
// returns keeps the API's promises (At holds its time, Range is in time order). The first
// byte chooses whether the checksums are recomputed before opening, so that mutations also
// reach the checks behind them and the queries.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "state/state_format.h"
#include "state/state_store.h"

namespace fmt = causeway::state::format;
using causeway::state::AttributeId;
using causeway::state::StateInterval;
using causeway::state::StateStore;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

// Recomputes every checksum the file's own layout locates.
void RepairChecksums(std::vector<uint8_t>& b) {
  if (b.size() < fmt::kHeaderBytes + sizeof(fmt::Footer)) return;
  const uint64_t footer_at = b.size() - sizeof(fmt::Footer);
  fmt::Footer f;
  std::memcpy(&f, b.data() + footer_at, sizeof f);
  const uint64_t nodes_end = std::min<uint64_t>(f.tail_offset, footer_at);
  for (uint64_t at = fmt::kHeaderBytes;
       nodes_end - at >= sizeof(fmt::NodeHeader) && at < nodes_end;) {
    fmt::NodeHeader h;
    std::memcpy(&h, b.data() + at, sizeof h);
    if (h.body_bytes > nodes_end - at - sizeof h) break;
    h.crc = 0;
    uint32_t crc = fmt::Crc32(0, &h, sizeof h);
    crc = fmt::Crc32(crc, b.data() + at + sizeof h, h.body_bytes);
    std::memcpy(b.data() + at + offsetof(fmt::NodeHeader, crc), &crc, sizeof crc);
    at += sizeof h + h.body_bytes;
  }
  if (f.tail_offset <= footer_at)
    f.tail_crc = fmt::Crc32(0, b.data() + f.tail_offset, footer_at - f.tail_offset);
  f.footer_crc = fmt::Crc32(0, &f, offsetof(fmt::Footer, footer_crc));
  std::memcpy(b.data() + footer_at, &f, sizeof f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if (data[0] & 1) RepairChecksums(bytes);
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/state_store_fuzz.XXXXXX";
  const int fd = mkstemp(path.data());
  Check(fd >= 0);
  Check(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  close(fd);
  auto opened = StateStore::Open(path);
  unlink(path.c_str());
  if (!opened.ok()) {
    Check(opened.status().ToString().find(path) != std::string::npos);
    return 0;
  }
  const StateStore& s = **opened;
  // A hostile footer may claim any start and end: no arithmetic on them may overflow.
  const int64_t t0 = s.start(), t1 = s.end();
  const uint64_t span = static_cast<uint64_t>(t1) - static_cast<uint64_t>(t0);
  const int64_t mid = static_cast<int64_t>(static_cast<uint64_t>(t0) + span / 2);
  const int64_t before = t0 == INT64_MIN ? t0 : t0 - 1;
  const int64_t after = t1 == INT64_MAX ? t1 : t1 + 1;
  std::vector<AttributeId> ids;
  for (AttributeId a = 0; a < s.num_attributes() && a < 64; ++a) {
    ids.push_back(a);
    (void)s.Find(s.path(a));
    (void)s.Children(s.path(a));
    for (int64_t t : {before, t0, mid, t1}) {
      const StateInterval i = s.At(a, t);
      Check(i.attribute == a);
      if (!i.value.is_null()) Check(i.start <= t && t < i.end);
      (void)s.Format(i.value);
    }
  }
  (void)s.Children("");
  (void)s.AtAll(mid);
  for (int64_t step : {int64_t{0}, static_cast<int64_t>(span / 7 + 1)}) {
    AttributeId last = 0;
    int64_t last_start = INT64_MIN;
    s.Range(ids, t0, after, step, [&](const StateInterval& i) {
      if (i.attribute != last) last_start = INT64_MIN;
      Check(i.start >= last_start && !i.value.is_null());
      last = i.attribute;
      last_start = i.start;
    });
  }
  return 0;
}
