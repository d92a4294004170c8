#include "requests/trace_context.h"

#include <gtest/gtest.h>

namespace causeway::requests {
namespace {

TEST(TraceContext, TraceparentGivesTheTraceAndTheSendersSpan) {
  auto c = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->trace.high, 0x4bf92f3577b34da6ull);
  EXPECT_EQ(c->trace.low, 0xa3ce929d0e0e4736ull);
  EXPECT_EQ(c->span_id, 0x00f067aa0ba902b7ull);
  // Spaces around the value (an HTTP header's optional whitespace) are not part of it.
  EXPECT_TRUE(ParseTraceparent(" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 "));
  // A later version may append fields after the flags.
  EXPECT_TRUE(ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xyz"));
}

TEST(TraceContext, BadTraceparentsAreRefused) {
  for (const char* bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",       // no flags
           "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",     // 31 digits
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // zero trace
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // zero span
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // 00 has 4 fields
           "00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01",    // not hex
       })
    EXPECT_FALSE(ParseTraceparent(bad)) << bad;
}

TEST(TraceContext, B3AndUberTraceId) {
  auto b3 = ParseB3("80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1-05e3ac9a4f6e3b90");
  ASSERT_TRUE(b3);
  EXPECT_EQ(b3->trace.low, 0x64fe8b2a57d3eff7ull);
  EXPECT_EQ(b3->span_id, 0xe457b5a2e4d86bd1ull);
  auto b3_64 = ParseB3("64fe8b2a57d3eff7-e457b5a2e4d86bd1");
  ASSERT_TRUE(b3_64);
  EXPECT_EQ(b3_64->trace.high, 0u);
  EXPECT_FALSE(ParseB3("1"));  // a sampling decision only
  auto uber = ParseUberTraceId("5af7183fb1d4cf5f%3A6f8a7d2b1c0e9f3a%3A0%3A1");
  ASSERT_TRUE(uber);
  EXPECT_EQ(uber->trace.low, 0x5af7183fb1d4cf5full);
  EXPECT_EQ(uber->span_id, 0x6f8a7d2b1c0e9f3aull);
  EXPECT_FALSE(ParseUberTraceId("5af7183fb1d4cf5f:6f8a7d2b1c0e9f3a:0"));
  // The first header that parses wins.
  auto c = ParseTraceContext("garbage", "64fe8b2a57d3eff7-e457b5a2e4d86bd1", "");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->span_id, 0xe457b5a2e4d86bd1ull);
}

}  // namespace
}  // namespace causeway::requests
