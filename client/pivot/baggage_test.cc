#include "pivot/baggage.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pivot/baggage_codec.h"

namespace causeway::pivot {
namespace {

Baggage Sample() {
  Baggage b;
  b.Get("q1.c").tuples = {{Value::String("alice")}, {Value::String("bob")}};
  b.Get("q2.o").tuples = {{Value::Int(-7), Value::Double(1.5), Value::Bool(true), Value()}};
  b.Get("q2.o").overflow = true;
  return b;
}

TEST(PivotBaggage, EmptyCostsNothing) {
  Baggage b;
  EXPECT_EQ(EncodeBaggage(b), "");
  EXPECT_EQ(EncodeBaggageHeader(b), "");
  auto d = DecodeBaggageHeader("");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
  EXPECT_EQ(Baggage::Current(), nullptr);
  EXPECT_EQ(Baggage::Capture(), nullptr);
}

TEST(PivotBaggage, RoundTrip) {
  const Baggage b = Sample();
  const std::string bin = EncodeBaggage(b);
  EXPECT_EQ(static_cast<uint8_t>(bin[0]), kBaggageVersion);
  auto d = DecodeBaggage(bin);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(*d, b);
  const std::string header = EncodeBaggageHeader(b);
  EXPECT_EQ(
      header.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
      std::string::npos);
  auto h = DecodeBaggageHeader(header);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(*h, b);
  for (int64_t v : {INT64_MIN, int64_t{-1}, int64_t{0}, INT64_MAX}) {
    Baggage one;
    one.Get("k").tuples = {{Value::Int(v)}};
    auto r = DecodeBaggage(EncodeBaggage(one));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->Find("k")->tuples[0][0].i, v);
  }
}

TEST(PivotBaggage, Base64) {
  for (std::string s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar",
                                                std::string("\0\xff", 2)}) {
    auto d = Base64UrlDecode(Base64UrlEncode(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlDecode("Zm9v=").status().ToString(), "base64 length leaves a lone character");
  EXPECT_EQ(Base64UrlDecode("Zm+v").status().ToString(), "not base64url at offset 2");
}

TEST(PivotBaggage, MalformedInputGivesClearErrors) {
  const std::string good = EncodeBaggage(Sample());
  auto error = [](std::string_view bytes) {
    auto d = DecodeBaggage(bytes);
    EXPECT_FALSE(d.ok());
    return d.ok() ? "" : d.status().ToString();
  };
  EXPECT_EQ(error(std::string("\x02\x00", 2)), "unsupported baggage version 2");
  EXPECT_EQ(error("\x01"), "truncated at offset 1");
  EXPECT_EQ(error("\x01\x05"), "bag count 5 too large before offset 2");
  EXPECT_EQ(error(good + "x"), "trailing bytes at offset " + std::to_string(good.size()));
  // Every truncation fails cleanly.
  for (size_t n = 1; n < good.size(); ++n) EXPECT_FALSE(DecodeBaggage(good.substr(0, n)).ok());
  // Every single-byte change either decodes or fails cleanly (never reads out of bounds).
  for (size_t i = 0; i < good.size(); ++i) {
    for (int v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(v);
      (void)DecodeBaggage(bad);
    }
  }
  EXPECT_EQ(error(std::string("\x01\x01\x01k\x00\x01\x01\x09", 8)),
            "unknown value type 9 at offset 8");
  EXPECT_EQ(error(std::string("\x01\x01\x01k\x02", 5)), "unknown bag flags 2 at offset 5");
  EXPECT_EQ(error(std::string("\x01\x01\x01k\x00\x01\x01\x04\x7f", 9)),
            "string of 127 bytes truncated at offset 9");
  EXPECT_EQ(error(std::string(
                "\x01\x01\x01k\x00\x01\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 18)),
            "varint overflows 64 bits at offset 18");
  EXPECT_EQ(DecodeBaggageHeader("!!").status().ToString(),
            "Cannot decode causeway-baggage header: CAUSED BY not base64url at offset 0");
}

TEST(PivotBaggage, TrimmingDropsOldestAndMarksOverflow) {
  Baggage b;
  for (int i = 0; i < 200; ++i) b.Get("q.big").tuples.push_back({Value::Int(i)});
  b.Get("q.small").tuples = {{Value::String("keep")}};
  const std::string bin = EncodeBaggage(b, 100);
  EXPECT_LE(bin.size(), 100u);
  auto d = DecodeBaggage(bin);
  ASSERT_TRUE(d.ok());
  const Bag* big = d->Find("q.big");
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(big->overflow);
  ASSERT_FALSE(big->tuples.empty());
  EXPECT_EQ(big->tuples.back()[0].i, 199);  // the most recent kept
  EXPECT_GT(big->tuples.front()[0].i, 0);
  EXPECT_EQ(d->Find("q.small")->tuples.size(), 1u);
  EXPECT_FALSE(d->Find("q.small")->overflow);
  // The original is untouched.
  EXPECT_EQ(b.Find("q.big")->tuples.size(), 200u);
  // A budget too small for anything gives nothing rather than a broken header.
  EXPECT_EQ(EncodeBaggage(b, 3), "");
}

TEST(PivotBaggage, BranchCopiesJoinMergesWithoutDuplicates) {
  BaggageScope request(std::make_shared<Baggage>(Sample()));
  std::shared_ptr<Baggage> branch = Baggage::Capture();
  ASSERT_NE(branch, nullptr);
  EXPECT_NE(branch.get(), Baggage::Current());
  std::thread t([branch] {
    BaggageScope scope(branch);
    Baggage::Current()->Get("q1.c").tuples.push_back({Value::String("carol")});
    Baggage::Current()->Get("q3.n").tuples.push_back({Value::Int(1)});
  });
  t.join();
  EXPECT_EQ(Baggage::Current()->Find("q1.c")->tuples.size(), 2u);  // the branch is a copy
  Baggage::Current()->Merge(*branch);
  const Bag* c = Baggage::Current()->Find("q1.c");
  ASSERT_EQ(c->tuples.size(), 3u);  // alice, bob (not repeated), carol
  EXPECT_EQ(c->tuples[2][0].s, "carol");
  EXPECT_NE(Baggage::Current()->Find("q3.n"), nullptr);
  EXPECT_TRUE(Baggage::Current()->Find("q2.o")->overflow);
}

TEST(PivotBaggage, AcrossProcessesThroughTheHeader) {
  EXPECT_EQ(CurrentBaggageHeader(), "");  // no baggage: no header
  std::string header;
  {
    BaggageScope caller(std::make_shared<Baggage>(Sample()));
    header = CurrentBaggageHeader();
  }
  ASSERT_FALSE(header.empty());
  Status error;
  BaggageScope callee(BaggageFromHeader(header, &error));
  EXPECT_TRUE(error.ok());
  EXPECT_EQ(*Baggage::Current(), Sample());

  auto bad = BaggageFromHeader("AQ", &error);  // version byte, then nothing
  EXPECT_TRUE(bad->empty());
  EXPECT_EQ(error.ToString(),
            "Cannot decode causeway-baggage header: CAUSED BY truncated at offset 1");
}

TEST(PivotBaggage, ScopesRestoreAndWithBaggageCarries) {
  EXPECT_EQ(Baggage::Current(), nullptr);
  {
    BaggageScope outer(std::make_shared<Baggage>(Sample()));
    Baggage* mine = Baggage::Current();
    {
      BaggageScope inner(nullptr);
      EXPECT_EQ(Baggage::Current(), nullptr);
    }
    EXPECT_EQ(Baggage::Current(), mine);
    size_t seen = 0;
    std::thread t(WithBaggage([&seen] { seen = Baggage::Current()->bags().size(); }));
    t.join();
    EXPECT_EQ(seen, 2u);
  }
  EXPECT_EQ(Baggage::Current(), nullptr);
}

}  // namespace
}  // namespace causeway::pivot
