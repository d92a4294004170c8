// HTTP/1.x messages the kernel side copied (cw_http records): the parse of their first bytes
// into the few fields the trace keeps, and the store that holds those fields beside the
// fixed-size records until they are written.
//
// Privacy: only the request or status line and the trace context headers (traceparent, b3,
// uber-trace-id) leave this file; the body and every other header are dropped here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "record/record_buffer.h"

namespace causeway::record {

struct HttpFields {
  std::string first_line;  // request or status line, without CRLF
  std::string traceparent;
  std::string b3;
  std::string uber_trace_id;
  bool truncated = false;  // the header block did not end (CRLF CRLF) within the prefix
  // False when the first line is complete but is neither "METHOD target HTTP/1.x" nor
  // "HTTP/1.x NNN ...": bytes that only began like HTTP (the middle of a body).
  bool valid = true;
};

// Parses the first bytes of a message. Header names match case-insensitively; values lose
// their surrounding blanks. Each kept text is cut at kMaxFieldBytes. The second form fills
// `out` in place, reusing its strings' memory (no allocation per message once warm).
HttpFields ParseHttpPrefix(std::string_view prefix);
void ParseHttpPrefix(std::string_view prefix, HttpFields* out);
inline constexpr size_t kMaxFieldBytes = 512;

// The parsed fields of the last kCapacity messages, by the key that their CW_HTTP_PARSED
// record carries (records wait in the reorder window, or in the snapshot ring, before they
// are written; the fields are too large for a RecordSlot).
class HttpFieldStore {
 public:
  static constexpr size_t kCapacity = 1 << 16;
  uint64_t Put(HttpFields fields);
  // The entry of the next key, to be filled in place (it held the fields of the key
  // kCapacity older). Unclaim() gives the key back when the entry turned out unneeded.
  HttpFields& Claim(uint64_t* key);
  void Unclaim() { --next_key_; }
  // nullptr when the key's fields were overwritten by kCapacity newer messages.
  const HttpFields* Find(uint64_t key) const;

 private:
  std::vector<std::pair<uint64_t, HttpFields>> ring_;
  uint64_t next_key_ = 1;
};

// Turns a CW_HTTP record from the ring buffer into a CW_HTTP_PARSED slot, its fields into
// `store`. An IPv4 peer on an IPv6 socket (::ffff:a.b.c.d) is written as IPv4, so both ends
// of a connection show the same addresses. False when the record is malformed or is not an
// HTTP message after all (HttpFields::valid); `*not_http` tells which.
bool ParseHttpRecord(std::span<const uint8_t> record, HttpFieldStore& store, RecordSlot* slot,
                     bool* not_http);

}  // namespace causeway::record
