// Events whose body holds strings between fixed runs (LTTng's net_dev_queue, openat, …) are
// decoded by the cursor's step list instead of the plan's ops. A hand-made trace with LTTng
// compact headers checks what that path must get right: padding after a string before a
// 64-bit aligned field (every padding from 0 to 7 bytes), consecutive and empty strings, a
// stream event context, and errors that still name the problem, the file and the offsets.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "support/read_all.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

constexpr char kMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 64; signed = false; } := uint64_aligned_t;
trace {
  major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
env { hostname = "steps-host"; domain = "ust"; tracer_name = "handmade"; };
clock { name = "c"; freq = 1000000000; offset_s = 1600000000; };
typealias integer { size = 27; align = 1; signed = false; map = clock.c.value; } := uint27_clock_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := uint64_clock_t;
stream {
  id = 0;
  packet.context := struct { uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };
  event.header := struct {
    enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
    variant <id> {
      struct { uint27_clock_t timestamp; } compact;
      struct { uint32_t id; uint64_clock_t timestamp; } extended;
    } v;
  } align(8);
  event.context := struct { uint32_t _vtid; };
};
event {
  name = "strings"; id = 1; stream_id = 0;
  fields := struct {
    uint8_t _a; string _s; string _t; uint64_aligned_t _b; string _u; uint8_t _c;
  };
};
)";

struct Written {
  uint32_t vtid;
  uint8_t a;
  std::string s, t;
  uint64_t b;
  std::string u;
  uint8_t c;
};

class Packet {
 public:
  Packet() {
    U32(0xC1FC1FC1);
    U32(0);
    content_at_ = bytes_.size();
    U64(0);  // content_size, patched
    U64(0);  // packet_size, patched
    U32(0);  // cpu_id
  }
  // Compact header (id 1, 27-bit timestamp) and stream event context; the payload struct
  // is aligned as its most aligned field, _b.
  void Header(uint32_t ts, uint32_t vtid) {
    U32(1u | (ts << 5));
    U32(vtid);
    Pad8();
  }
  void Add(uint32_t ts, const Written& w) {
    Header(ts, w.vtid);
    bytes_.push_back(w.a);
    Str(w.s);
    Str(w.t);
    Pad8();
    U64(w.b);
    Str(w.u);
    bytes_.push_back(w.c);
  }
  // Raw bytes at the end of the content (a damaged event).
  void Raw(const std::vector<uint8_t>& b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }
  std::vector<uint8_t> Finish() {
    const uint64_t content = bytes_.size() * 8;
    while (bytes_.size() % 64) bytes_.push_back(0);
    const uint64_t size = bytes_.size() * 8;
    std::memcpy(&bytes_[content_at_], &content, 8);
    std::memcpy(&bytes_[content_at_ + 8], &size, 8);
    return bytes_;
  }

 private:
  void Pad8() {
    while (bytes_.size() % 8) bytes_.push_back(0xEE);
  }
  void U32(uint32_t v) { Put(&v, 4); }
  void U64(uint64_t v) { Put(&v, 8); }
  void Str(const std::string& s) { Put(s.c_str(), s.size() + 1); }
  void Put(const void* p, size_t n) {
    const size_t at = bytes_.size();
    bytes_.resize(at + n);
    std::memcpy(bytes_.data() + at, p, n);
  }
  std::vector<uint8_t> bytes_;
  size_t content_at_ = 0;
};

void WriteTrace(const std::string& dir, const std::vector<std::vector<uint8_t>>& packets) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/metadata") << kMetadata;
  std::ofstream out(dir + "/stream_0", std::ios::binary);
  for (const auto& p : packets)
    out.write(reinterpret_cast<const char*>(p.data()), static_cast<std::streamsize>(p.size()));
}

std::vector<Written> Sample() {
  std::vector<Written> w;
  const std::string texts[] = {"", "x", "eth0", "lo", "veth-abcdef", "/usr/lib/libc.so.6"};
  for (int i = 0; i < 48; ++i) {
    // The lengths walk every padding before _b (0 to 7 bytes).
    w.push_back({static_cast<uint32_t>(1000 + i), static_cast<uint8_t>(i),
                 std::string(static_cast<size_t>(i % 8), 'a' + static_cast<char>(i % 26)),
                 texts[i % 6], 0x0123456789ABCDEFull ^ static_cast<uint64_t>(i), texts[(i + 3) % 6],
                 static_cast<uint8_t>(255 - i)});
  }
  return w;
}

TEST(StringSteps, EveryFieldAfterStringsAndPaddingReadsAsWritten) {
  testing::TempDir tmp;
  const std::vector<Written> sample = Sample();
  Packet p1, p2;
  for (size_t i = 0; i < sample.size(); ++i)
    (i < 30 ? p1 : p2).Add(static_cast<uint32_t>(100 + 10 * i), sample[i]);
  WriteTrace(tmp.path(), {p1.Finish(), p2.Finish()});

  auto reader = EventReader::Open({tmp.path()});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  size_t n = 0;
  while (const Event* e = (*reader)->Next()) {
    ASSERT_LT(n, sample.size());
    const Written& w = sample[n];
    SCOPED_TRACE(n);
    const EventPlan& p = *e->plan;
    EXPECT_EQ(e->name(), "strings");
    EXPECT_EQ(e->timestamp, 1'600'000'000'000'000'000ull + 100 + 10 * n);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("vtid")), w.vtid);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("a")), w.a);
    EXPECT_EQ(e->GetString(p.FieldIndex("s")), w.s);
    EXPECT_EQ(e->GetString(p.FieldIndex("t")), w.t);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("b")), w.b);
    EXPECT_EQ(e->GetString(p.FieldIndex("u")), w.u);
    EXPECT_EQ(e->GetUnsigned(p.FieldIndex("c")), w.c);
    ++n;
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_EQ(n, sample.size());
}

TEST(StringSteps, AStringWithoutItsNulIsNamedWithFileAndOffsets) {
  testing::TempDir tmp;
  const std::vector<Written> sample = Sample();
  Packet p;
  p.Add(100, sample[0]);
  p.Add(110, sample[1]);
  // A third event cut inside its first string: _a, then "abc" and no NUL.
  p.Header(120, 7);
  p.Raw({9, 'a', 'b', 'c'});
  WriteTrace(tmp.path(), {p.Finish()});
  const testing::ReadAllResult read = testing::ReadAll({tmp.path()});
  const std::string status = read.status.ToString();
  EXPECT_EQ(read.events.size(), 2u);  // the whole events before the damage
  EXPECT_NE(status.find("unterminated string"), std::string::npos) << status;
  EXPECT_NE(status.find("file=" + tmp.path() + "/stream_0"), std::string::npos) << status;
  EXPECT_NE(status.find("event offset="), std::string::npos) << status;
}

TEST(StringSteps, AnAlignedFieldPastTheContentIsAnOverrunNotARead) {
  testing::TempDir tmp;
  const std::vector<Written> sample = Sample();
  Packet p;
  p.Add(100, sample[0]);
  // _a, two empty strings, then the content ends before the aligned _b.
  p.Header(110, 7);
  p.Raw({9, 0, 0});
  WriteTrace(tmp.path(), {p.Finish()});
  const testing::ReadAllResult read = testing::ReadAll({tmp.path()});
  const std::string status = read.status.ToString();
  EXPECT_EQ(read.events.size(), 1u);
  EXPECT_NE(status.find("extends past the packet content"), std::string::npos) << status;
  EXPECT_NE(status.find("Cannot decode event"), std::string::npos) << status;
}

}  // namespace
}  // namespace causeway::ctf
