#include "record/http_message.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace causeway::record {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);  // ASCII letters, digits and '-' of header names
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void Keep(std::string_view s, std::string* out) { out->assign(s.substr(0, kMaxFieldBytes)); }

// An IPv4 address in IPv6 form (::ffff:a.b.c.d), as a dual-stack server's socket holds it.
bool IsV4Mapped(const uint8_t a[16]) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(a, kPrefix, sizeof(kPrefix)) == 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The kernel side matched the first 8 bytes; this checks the whole (complete) first line.
bool IsRequestOrStatusLine(std::string_view line) {
  if (line.starts_with("HTTP/1.")) {
    return line.size() >= 12 && IsDigit(line[7]) && line[8] == ' ' && IsDigit(line[9]) &&
           IsDigit(line[10]) && IsDigit(line[11]) && (line.size() == 12 || line[12] == ' ');
  }
  const size_t sp = line.find(' ');
  return sp != std::string_view::npos && line.size() >= sp + 11 &&  // a target of 1+ bytes
         line.substr(line.size() - 9, 8) == " HTTP/1." && IsDigit(line.back()) &&
         line.find(' ', sp + 1) == line.size() - 9;
}

}  // namespace

HttpFields ParseHttpPrefix(std::string_view prefix) {
  HttpFields f;
  ParseHttpPrefix(prefix, &f);
  return f;
}

void ParseHttpPrefix(std::string_view prefix, HttpFields* out) {
  HttpFields& f = *out;
  f.first_line.clear();
  f.traceparent.clear();
  f.b3.clear();
  f.uber_trace_id.clear();
  f.valid = true;
  const size_t end = prefix.find("\r\n\r\n");
  f.truncated = end == std::string_view::npos;
  std::string_view rest = f.truncated ? prefix : prefix.substr(0, end + 2);
  size_t eol = rest.find("\r\n");
  Keep(rest.substr(0, eol), &f.first_line);
  if (eol == std::string_view::npos) return;
  f.valid = IsRequestOrStatusLine(rest.substr(0, eol));
  if (!f.valid) return;
  rest.remove_prefix(eol + 2);
  // Header lines; with a truncated block the last, cut line is skipped: its value may be
  // incomplete.
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    if (eol == std::string_view::npos) break;
    const std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoreCase(name, "traceparent")) {
      Keep(value, &f.traceparent);
    } else if (EqualsIgnoreCase(name, "b3")) {
      Keep(value, &f.b3);
    } else if (EqualsIgnoreCase(name, "uber-trace-id")) {
      Keep(value, &f.uber_trace_id);
    }
  }
}

HttpFields& HttpFieldStore::Claim(uint64_t* key) {
  if (ring_.empty()) ring_.resize(kCapacity);
  *key = next_key_++;
  auto& [k, fields] = ring_[*key % kCapacity];
  k = *key;
  return fields;
}

uint64_t HttpFieldStore::Put(HttpFields fields) {
  uint64_t key = 0;
  Claim(&key) = std::move(fields);
  return key;
}

const HttpFields* HttpFieldStore::Find(uint64_t key) const {
  if (ring_.empty()) return nullptr;
  const auto& [k, fields] = ring_[key % kCapacity];
  return k == key ? &fields : nullptr;
}

bool ParseHttpRecord(std::span<const uint8_t> record, HttpFieldStore& store, RecordSlot* slot,
                     bool* not_http) {
  *not_http = false;
  // The fixed part is copied; the message's bytes are parsed where they lie.
  constexpr size_t kFixed = offsetof(cw_http, data);
  if (record.size() < sizeof(cw_http)) return false;
  cw_http r;
  std::memcpy(&r, record.data(), kFixed);
  if (r.h.size < sizeof(cw_http) || r.captured > CW_HTTP_PREFIX) return false;
  const std::string_view data(reinterpret_cast<const char*>(record.data()) + kFixed, r.captured);
  cw_http_parsed p{};
  p.h = r.h;
  p.h.type = CW_HTTP_PARSED;
  p.h.size = sizeof(p);
  p.tid = r.tid;
  p.pid = r.pid;
  p.direction = r.direction;
  p.family = r.family;
  std::memcpy(p.laddr, r.laddr, 16);
  std::memcpy(p.raddr, r.raddr, 16);
  if (p.family == 6 && IsV4Mapped(p.laddr) && IsV4Mapped(p.raddr)) {
    p.family = 4;
    std::memset(p.laddr, 0, 16);
    std::memset(p.raddr, 0, 16);
    std::memcpy(p.laddr, r.laddr + 12, 4);
    std::memcpy(p.raddr, r.raddr + 12, 4);
  }
  p.lport = r.lport;
  p.rport = r.rport;
  p.size = r.size;
  p.captured = r.captured;
  uint64_t key = 0;
  HttpFields& fields = store.Claim(&key);
  ParseHttpPrefix(data, &fields);
  if (!fields.valid) {
    store.Unclaim();
    *not_http = true;
    return false;
  }
  p.detail = key;
  p.truncated = fields.truncated ? 1 : 0;
  return slot->Assign({reinterpret_cast<const uint8_t*>(&p), sizeof(p)});
}

}  // namespace causeway::record
