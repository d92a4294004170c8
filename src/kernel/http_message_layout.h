// Reads the recorder's `http_message` events (kernel/http_message.h) out of CTF kernel
// traces: per event class, whether it is one and where its fields lie, built once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "kernel/http_message.h"

namespace causeway::kernel {

class HttpMessageLayout {
 public:
  // `host_of_trace[i]` is the model's host id of the reader's trace i.
  static HttpMessageLayout Build(const ctf::EventReader& reader,
                                 std::vector<uint32_t> host_of_trace);
  // The name of the event class, for the readers that filter classes by name.
  static constexpr const char* kEventName = "http_message";

  bool empty() const { return !any_; }
  // Fills `out` when `e` is an http_message; false otherwise (one byte looked up).
  bool Read(const ctf::Event& e, HttpMessage* out) const {
    if (e.kind == ctf::Event::Kind::kDiscarded || e.class_index >= is_http_.size() ||
        !is_http_[e.class_index])
      return false;
    return ReadSlow(classes_[e.class_index], e, out);
  }

 private:
  struct ClassLayout {
    uint32_t trace = 0;
    std::optional<ctf::ScalarRef> tid, pid, direction, family, lport, rport, size, truncated;
    std::optional<ctf::TextRef> laddr, raddr, first_line, traceparent, b3, uber_trace_id;
  };
  bool ReadSlow(const ClassLayout& c, const ctf::Event& e, HttpMessage* out) const;

  std::vector<ClassLayout> classes_;
  std::vector<uint8_t> is_http_;
  std::vector<uint32_t> host_of_trace_;
  bool any_ = false;
};

}  // namespace causeway::kernel
