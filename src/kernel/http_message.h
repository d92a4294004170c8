// An HTTP/1.x message a thread sent or received on a TCP socket, as the recorder's
// `http_message` event gives it (src/record/README.md): the kernel's view of a request or a
// response, with the trace-context headers it carried. What ties spans of an unmodified
// OpenTelemetry service to the threads that ran them (requests/span_placement.h).
#pragma once

#include <cstdint>
#include <string>

namespace causeway::kernel {

struct HttpMessage {
  uint32_t host = 0;  // the model's host id
  int32_t tid = -1;
  int32_t pid = -1;
  int64_t ts = 0;  // a received message at the read's return, a sent one at the write's call
  bool sent = false;
  bool truncated = false;  // the header block did not end within what the recorder copied
  uint8_t family = 0;      // 4 or 6
  uint16_t lport = 0, rport = 0;
  std::string laddr, raddr;                    // as text: "127.0.0.1", "::1"
  uint64_t size = 0;                           // bytes the syscall moved
  std::string first_line;                      // "GET /api/x HTTP/1.1", "HTTP/1.1 200 OK"
  std::string traceparent, b3, uber_trace_id;  // "" when absent

  // A request (a method first), else a response (a status line first).
  bool is_request() const { return first_line.compare(0, 5, "HTTP/") != 0; }
};

}  // namespace causeway::kernel
