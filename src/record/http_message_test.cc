#include "record/http_message.h"

#include <cstring>

#include <gtest/gtest.h>

namespace causeway::record {
namespace {

TEST(HttpMessageTest, KeepsTheFirstLineAndTheTraceContextHeadersOnly) {
  const HttpFields f = ParseHttpPrefix(
      "POST /api/orders HTTP/1.1\r\nHost: shop\r\nCookie: secret=1\r\n"
      "TraceParent:  00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 \r\n"
      "B3: 80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1\r\n"
      "UBER-TRACE-ID:\tabc:def:0:1\r\n\r\n{\"card\": \"4111\"}");
  EXPECT_EQ(f.first_line, "POST /api/orders HTTP/1.1");
  EXPECT_EQ(f.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  EXPECT_EQ(f.b3, "80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1");
  EXPECT_EQ(f.uber_trace_id, "abc:def:0:1");
  EXPECT_FALSE(f.truncated);
}

TEST(HttpMessageTest, OnlyRequestAndStatusLinesAreMessages) {
  for (const char* line : {"GET / HTTP/1.1", "OPTIONS * HTTP/1.0", "HTTP/1.1 200 OK",
                           "HTTP/1.0 404", "CONNECT example.com:443 HTTP/1.1"})
    EXPECT_TRUE(ParseHttpPrefix(std::string(line) + "\r\n\r\n").valid) << line;
  for (const char* line : {"HTTP/1.1", "HTTP/1.1 2000 OK", "GET /a b HTTP/1.1", "GET / HTTP/2",
                           "POST the form", "GET  HTTP/1.1"})
    EXPECT_FALSE(ParseHttpPrefix(std::string(line) + "\r\n\r\n").valid) << line;
  // A first line cut by the prefix cannot be checked: kept, truncated.
  EXPECT_TRUE(ParseHttpPrefix("GET /a-very-long-pa").valid);
}

TEST(HttpMessageTest, AHeaderBlockCutByThePrefixIsTruncated) {
  // The cut header line is not trusted: its value may be incomplete.
  HttpFields f = ParseHttpPrefix("HTTP/1.1 200 OK\r\nContent-Length: 5\r\ntraceparent: 00-4bf9");
  EXPECT_EQ(f.first_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(f.traceparent, "");
  EXPECT_TRUE(f.truncated);
  f = ParseHttpPrefix("GET /a-very-long-path");
  EXPECT_EQ(f.first_line, "GET /a-very-long-path");
  EXPECT_TRUE(f.truncated);
  // A header after the blank line is body, not a header.
  f = ParseHttpPrefix("GET / HTTP/1.1\r\n\r\ntraceparent: 00-x\r\n");
  EXPECT_EQ(f.traceparent, "");
  EXPECT_FALSE(f.truncated);
}

TEST(HttpMessageTest, RecordBecomesAParsedSlotWithIpv4MappedAddressesAsIpv4) {
  cw_http r{};
  r.h.type = CW_HTTP;
  r.h.size = sizeof(r);
  r.h.ts = 42;
  r.tid = 7;
  r.pid = 6;
  r.family = 6;
  const uint8_t mapped_local[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
  const uint8_t mapped_remote[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 2};
  std::memcpy(r.laddr, mapped_local, 16);
  std::memcpy(r.raddr, mapped_remote, 16);
  r.lport = 8080;
  r.rport = 40000;
  const char msg[] = "GET / HTTP/1.1\r\ntraceparent: 00-ab-cd-01\r\n\r\n";
  std::memcpy(r.data, msg, sizeof(msg) - 1);
  r.captured = sizeof(msg) - 1;
  r.size = 4096;
  HttpFieldStore store;
  RecordSlot slot;
  bool not_http = true;
  ASSERT_TRUE(
      ParseHttpRecord({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}, store, &slot, &not_http));
  EXPECT_FALSE(not_http);
  EXPECT_EQ(slot.type, CW_HTTP_PARSED);
  EXPECT_EQ(slot.ts, 42u);
  const auto& p = slot.As<cw_http_parsed>();
  EXPECT_EQ(p.family, 4);
  EXPECT_EQ(p.laddr[0], 127);
  EXPECT_EQ(p.laddr[3], 1);
  EXPECT_EQ(p.raddr[3], 2);
  EXPECT_EQ(p.laddr[4], 0);
  EXPECT_EQ(p.size, 4096u);
  EXPECT_EQ(p.truncated, 0);
  const HttpFields* f = store.Find(p.detail);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->traceparent, "00-ab-cd-01");
  // A record claiming more captured bytes than it can hold is malformed.
  r.captured = CW_HTTP_PREFIX + 1;
  EXPECT_FALSE(
      ParseHttpRecord({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}, store, &slot, &not_http));
  EXPECT_FALSE(not_http);
  // Bytes that only began like HTTP (the middle of a body) are not a message.
  const char body[] = "HTTP/1.1\r\nGET /x HTTP/1.1\r\n";
  std::memcpy(r.data, body, sizeof(body) - 1);
  r.captured = sizeof(body) - 1;
  EXPECT_FALSE(
      ParseHttpRecord({reinterpret_cast<const uint8_t*>(&r), sizeof(r)}, store, &slot, &not_http));
  EXPECT_TRUE(not_http);
}

TEST(HttpMessageTest, StoreForgetsFieldsOverwrittenByNewerMessages) {
  HttpFieldStore store;
  const uint64_t first = store.Put({.first_line = "GET /first HTTP/1.1"});
  for (size_t i = 0; i < HttpFieldStore::kCapacity - 1; ++i) store.Put({});
  ASSERT_NE(store.Find(first), nullptr);
  store.Put({});
  EXPECT_EQ(store.Find(first), nullptr);
}

}  // namespace
}  // namespace causeway::record
