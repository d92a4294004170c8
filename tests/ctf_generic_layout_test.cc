// The generic decoding path (ops interpreter and plan walker) on a hand-made trace whose
// payload uses what the real test traces do not: a sequence of structs holding strings (a
// loop), an enum-tagged variant in the payload, big- and little-endian bit fields, a
// two-dimensional array, and a nested struct. babeltrace2 is the reference.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "support/read_as_text.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

constexpr char kMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
  major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
env { hostname = "layout-host"; domain = "ust"; tracer_name = "handmade"; };
clock { name = "c"; freq = 1000000000; offset_s = 1600000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clock_t;
stream {
  id = 0;
  packet.context := struct { uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };
  event.header := struct { uint32_t id; clock_t timestamp; };
};
event {
  name = "layout"; id = 7; stream_id = 0;
  fields := struct {
    uint8_t _n;
    struct { uint16_t a; string s; } _items[_n];
    enum : uint8_t { NUM = 0, TEXT = 1, PAIR = 2 ... 3 } _tag;
    variant <_tag> { uint32_t NUM; string TEXT; struct { uint8_t x; uint8_t y; } PAIR; } _v;
    integer { size = 3; align = 8; signed = false; byte_order = be; } _be3;
    integer { size = 13; align = 1; signed = true; byte_order = be; base = 16; } _be13;
    integer { size = 5; align = 8; signed = false; } _le5;
    integer { size = 11; align = 1; signed = true; } _le11;
    integer { size = 32; align = 8; signed = true; byte_order = be; } _be32;
    floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _d;
    uint8_t _grid[2][3];
    struct { uint16_t lo; integer { size = 8; align = 8; signed = false; base = 8; } oct; } _inner;
  };
};
)";

class Bytes {
 public:
  void U8(uint8_t v) { b_.push_back(v); }
  void U16(uint16_t v) { Put(&v, 2); }
  void U32(uint32_t v) { Put(&v, 4); }
  void U64(uint64_t v) { Put(&v, 8); }
  void Be32(uint32_t v) {
    for (int i = 3; i >= 0; --i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Str(const char* s) { Put(s, std::strlen(s) + 1); }
  void Put(const void* p, size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    b_.insert(b_.end(), c, c + n);
  }
  std::vector<uint8_t>& bytes() { return b_; }

 private:
  std::vector<uint8_t> b_;
};

struct Payload {
  std::vector<std::pair<uint16_t, const char*>> items;
  uint8_t tag;
  uint32_t num;
  const char* text;
  uint8_t x, y;
  uint8_t be3;
  int16_t be13;
  uint8_t le5;
  int16_t le11;
  int32_t be32;
  double d;
};

void WriteEvent(Bytes* out, uint64_t ts, const Payload& p) {
  out->U32(7);
  out->U64(ts);
  out->U8(static_cast<uint8_t>(p.items.size()));
  for (const auto& [a, s] : p.items) {
    out->U16(a);
    out->Str(s);
  }
  out->U8(p.tag);
  if (p.tag == 0) out->U32(p.num);
  if (p.tag == 1) out->Str(p.text);
  if (p.tag >= 2) {
    out->U8(p.x);
    out->U8(p.y);
  }
  // Big-endian bit fields: 3 bits then 13 bits, most significant bit first.
  const uint16_t be =
      static_cast<uint16_t>((p.be3 & 7) << 13 | (static_cast<uint16_t>(p.be13) & 0x1FFF));
  out->U8(static_cast<uint8_t>(be >> 8));
  out->U8(static_cast<uint8_t>(be));
  // Little-endian bit fields: 5 bits then 11 bits, least significant bit first.
  const uint16_t le =
      static_cast<uint16_t>((p.le5 & 31) | (static_cast<uint16_t>(p.le11) & 0x7FF) << 5);
  out->U16(le);
  out->Be32(static_cast<uint32_t>(p.be32));
  out->Put(&p.d, 8);
  for (int i = 0; i < 6; ++i) out->U8(static_cast<uint8_t>(10 + i));
  out->U16(0xBEEF);
  out->U8(8);  // 010 in octal
}

TEST(CtfGenericLayoutTest, HandMadePayloadMatchesBabeltrace) {
  ASSERT_TRUE(HaveProgram("babeltrace2")) << "babeltrace2 is missing: run scripts/setup.sh";
  TempDir tmp;
  std::ofstream(tmp.path() + "/metadata") << kMetadata;
  Bytes events;
  const Payload payloads[] = {
      {{{1, "one"}, {2, ""}, {3, "three"}},
       0,
       4000000000u,
       nullptr,
       0,
       0,
       5,
       -1,
       17,
       -1000,
       -123456,
       3.5},
      {{}, 1, 0, "variant text", 0, 0, 7, 4095, 31, 1023, 2147483647, -0.25},
      {{{65535, "x"}}, 3, 0, nullptr, 200, 201, 0, -4096, 0, -1024, -1, 1e300},
  };
  uint64_t ts = 1000;
  for (const auto& p : payloads) WriteEvent(&events, ts += 250, p);
  Bytes packet;
  packet.U32(0xC1FC1FC1);
  packet.U32(0);
  const size_t header = 4 + 4 + 8 + 8 + 4;
  const uint64_t content = (header + events.bytes().size()) * 8;
  const uint64_t size = (content / 8 + 64) * 8;
  packet.U64(content);
  packet.U64(size);
  packet.U32(1);
  packet.Put(events.bytes().data(), events.bytes().size());
  packet.bytes().resize(size / 8, 0);
  std::ofstream(tmp.path() + "/stream_0", std::ios::binary)
      .write(reinterpret_cast<const char*>(packet.bytes().data()),
             static_cast<std::streamsize>(packet.bytes().size()));

  CommandResult bt = RunCommand("babeltrace2 --clock-seconds --no-delta '" + tmp.path() + "'");
  ASSERT_EQ(bt.exit_code, 0);
  const auto bt_lines = SplitLines(bt.out);
  const ReadResult ours = ReadAsText({tmp.path()});
  ASSERT_TRUE(ours.status.ok()) << ours.status.ToString();
  ASSERT_EQ(bt_lines.size(), 3u);
  ASSERT_EQ(ours.lines.size(), 3u);
  CountStaleEmptyStrings(bt_lines, ours.lines);  // any other difference fails

  // Typed access agrees with what was written.
  auto reader = ctf::EventReader::Open({tmp.path()});
  ASSERT_TRUE(reader.ok());
  for (const auto& p : payloads) {
    const ctf::Event* e = (*reader)->Next();
    ASSERT_NE(e, nullptr);
    const auto& plan = *e->plan;
    EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("n")), p.items.size());
    EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("be3")), p.be3);
    EXPECT_EQ(e->GetSigned(plan.FieldIndex("be13")), p.be13);
    EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("le5")), p.le5);
    EXPECT_EQ(e->GetSigned(plan.FieldIndex("le11")), p.le11);
    EXPECT_EQ(e->GetSigned(plan.FieldIndex("be32")), p.be32);
    EXPECT_EQ(e->GetDouble(plan.FieldIndex("d")), p.d);
    EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("inner.lo")), 0xBEEFu);
    EXPECT_EQ(e->Has(plan.FieldIndex("v.NUM")), p.tag == 0);
    EXPECT_EQ(e->Has(plan.FieldIndex("v.TEXT")), p.tag == 1);
    EXPECT_EQ(e->Has(plan.FieldIndex("v.PAIR")), p.tag >= 2);
    if (p.tag == 0) {
      EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("v.NUM")), p.num);
    }
    if (p.tag == 1) {
      EXPECT_EQ(e->GetString(plan.FieldIndex("v.TEXT")), p.text);
    }
    if (p.tag >= 2) {
      EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("v.PAIR.y")), p.y);
    }
    // The compact refs (field_ref.h) read the same, bit fields of either byte order and
    // absent variant options (0 and "") included.
    auto scalar = [&](const char* name) {
      const auto r = ctf::ScalarRefOf(e->Node(plan.FieldIndex(name)));
      EXPECT_TRUE(r.has_value()) << name;
      return r.value_or(ctf::ScalarRef{});
    };
    EXPECT_EQ(e->GetSigned(scalar("be13")), p.be13);
    EXPECT_EQ(e->GetSigned(scalar("le11")), p.le11);
    EXPECT_EQ(e->GetUnsigned(scalar("v.NUM")), p.tag == 0 ? p.num : 0);
    const auto text = ctf::TextRefOf(e->Node(plan.FieldIndex("v.TEXT")));
    ASSERT_TRUE(text.has_value());
    EXPECT_EQ(e->GetString(*text), p.tag == 1 ? std::string_view(p.text) : std::string_view());
    for (const auto& f : plan.fields) {
      if (auto r = ctf::ScalarRefOf(*f.node)) {
        EXPECT_EQ(e->GetSigned(*r), e->GetSigned(*f.node)) << f.name;
      } else if (auto t = ctf::TextRefOf(*f.node)) {
        EXPECT_EQ(e->GetString(*t), e->GetString(*f.node)) << f.name;
      }
    }
    EXPECT_EQ(e->timestamp, 1'600'000'000'000'000'000ull + e->cycles);
  }
  EXPECT_EQ((*reader)->Next(), nullptr);
  EXPECT_TRUE((*reader)->status().ok());
}

}  // namespace
}  // namespace causeway::testing
