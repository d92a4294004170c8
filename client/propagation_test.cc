#include <map>
#include <string>

#include <gtest/gtest.h>

#include "causeway/client.h"

namespace causeway::client {
namespace {

TEST(Traceparent, FormatsAndParsesTheW3CExample) {
  const std::string v = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  auto c = ParseTraceparent(v);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->trace_id_high, 0x4bf92f3577b34da6u);
  EXPECT_EQ(c->trace_id_low, 0xa3ce929d0e0e4736u);
  EXPECT_EQ(c->span_id, 0x00f067aa0ba902b7u);
  EXPECT_EQ(c->flags, 1);
  EXPECT_EQ(FormatTraceparent(*c), v);
}

TEST(Traceparent, RejectsWhatTheSpecificationRejects) {
  const char* bad[] = {
      "",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",       // no flags
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",    // upper case
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version ff
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // 00 with more
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // zero trace id
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // zero span id
      "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // separator
      "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",    // not hex
      "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version not hex
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01zz",  // junk after a later version
  };
  for (const char* v : bad) EXPECT_FALSE(ParseTraceparent(v).has_value()) << v;
}

TEST(Traceparent, AcceptsALaterVersionWithMoreFields) {
  auto c = ParseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-ever");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->span_id, 0x00f067aa0ba902b7u);
}

TEST(Traceparent, InjectReplacesAndExtractReads) {
  SpanContext c{1, 2, 3, 1};
  std::multimap<std::string, std::string> headers{{"traceparent", "stale"}, {"other", "x"}};
  InjectInto(c, headers);
  EXPECT_EQ(headers.count("traceparent"), 1u);
  auto back = ExtractFrom(headers);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->trace_id_high, 1u);
  EXPECT_EQ(back->trace_id_low, 2u);
  EXPECT_EQ(back->span_id, 3u);

  Headers map;
  EXPECT_FALSE(Extract(map).has_value());
  Inject(c, map);
  EXPECT_EQ(map.at("traceparent"), "00-00000000000000010000000000000002-0000000000000003-01");
}

}  // namespace
}  // namespace causeway::client
