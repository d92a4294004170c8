// A node's entries, encoded and decoded (the layout is in state_format.h).
#pragma once

#include <cstdint>

#include "state/state_format.h"
#include "state/state_store.h"

namespace causeway::state {

// Appends a value tag at p (room for kMaxEntryBytes); returns the end.
inline uint8_t* PutValue(uint8_t* p, const StateValue& v) {
  switch (v.kind) {
    case StateValue::Kind::kNull:
      *p++ = 0;
      return p;
    case StateValue::Kind::kInt: {
      const uint64_t z = format::ZigZag(v.i);
      if (z < (uint64_t{1} << 62)) return format::PutVarint(p, z << 2 | 1);
      *p++ = 3;
      return format::PutVarint(p, z);
    }
    case StateValue::Kind::kString:
      return format::PutVarint(p, static_cast<uint64_t>(static_cast<uint32_t>(v.i)) << 2 | 2);
  }
  return p;
}

// Reads a value tag in [p, end); nullptr when it is cut or invalid.
inline const uint8_t* GetValue(const uint8_t* p, const uint8_t* end, StateValue* v) {
  uint64_t tag;
  if (p < end && *p < 0x80) {
    tag = *p++;
  } else {
    p = format::GetVarint(p, end, &tag);
    if (!p) return nullptr;
  }
  switch (tag & 3) {
    case 0:
      if (tag != 0) return nullptr;
      *v = StateValue::Null();
      return p;
    case 1:
      *v = StateValue::Int(format::UnZigZag(tag >> 2));
      return p;
    case 2:
      if ((tag >> 2) > 0xffffffffu) return nullptr;
      *v = StateValue::String(static_cast<StringRef>(tag >> 2));
      return p;
    default: {
      if (tag != 3) return nullptr;
      uint64_t z;
      p = format::GetVarint(p, end, &z);
      if (!p) return nullptr;
      *v = StateValue::Int(format::UnZigZag(z));
      return p;
    }
  }
}

}  // namespace causeway::state
