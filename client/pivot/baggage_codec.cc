#include "pivot/baggage_codec.h"

#include <cstring>

#include <fmt/format.h>

namespace causeway::pivot {
namespace {

constexpr size_t kMaxBags = 256;
constexpr size_t kMaxValuesPerTuple = 64;

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutValue(std::string* out, const Value& v) {
  out->push_back(static_cast<char>(v.type));
  switch (v.type) {
    case Value::Type::kNull:
      break;
    case Value::Type::kInt:
      PutVarint(out, (static_cast<uint64_t>(v.i) << 1) ^ static_cast<uint64_t>(v.i >> 63));
      break;
    case Value::Type::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.d, 8);
      for (int k = 0; k < 8; ++k) out->push_back(static_cast<char>(bits >> (8 * k)));
      break;
    }
    case Value::Type::kBool:
      out->push_back(v.i ? 1 : 0);
      break;
    case Value::Type::kString:
      PutVarint(out, v.s.size());
      out->append(v.s);
      break;
  }
}

void PutTuple(std::string* out, const Tuple& t) {
  PutVarint(out, t.size());
  for (const Value& v : t) PutValue(out, v);
}

std::string EncodeRaw(const Baggage& b) {
  std::string out;
  out.push_back(static_cast<char>(kBaggageVersion));
  PutVarint(&out, b.bags().size());
  for (const auto& [key, bag] : b.bags()) {
    PutVarint(&out, key.size());
    out.append(key);
    out.push_back(bag.overflow ? 1 : 0);
    PutVarint(&out, bag.tuples.size());
    for (const Tuple& t : bag.tuples) PutTuple(&out, t);
  }
  return out;
}

size_t TupleSize(const Tuple& t) {
  std::string s;
  PutTuple(&s, t);
  return s.size();
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  size_t offset() const { return pos_; }
  bool done() const { return pos_ == in_.size(); }
  Status Error(std::string_view what) const {
    return DataLoss(fmt::format("{} at offset {}", what, pos_));
  }
  Status U8(uint8_t* v) {
    if (pos_ >= in_.size()) return Error("truncated");
    *v = static_cast<uint8_t>(in_[pos_++]);
    return Status::Ok();
  }
  Status Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      RETURN_IF_ERROR(U8(&b));
      if (shift == 63 && b > 1) return Error("varint overflows 64 bits");
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return Status::Ok();
    }
    return Error("varint longer than 10 bytes");
  }
  // A count that is at most `max` and at most the bytes left (each item takes >= 1 byte).
  Status Count(size_t max, size_t* n, std::string_view what) {
    uint64_t v;
    RETURN_IF_ERROR(Varint(&v));
    if (v > max || v > in_.size() - pos_) {
      return DataLoss(fmt::format("{} count {} too large before offset {}", what, v, pos_));
    }
    *n = static_cast<size_t>(v);
    return Status::Ok();
  }
  Status Bytes(std::string* out) {
    uint64_t n;
    RETURN_IF_ERROR(Varint(&n));
    if (n > in_.size() - pos_) return Error(fmt::format("string of {} bytes truncated", n));
    out->assign(in_.substr(pos_, static_cast<size_t>(n)));
    pos_ += static_cast<size_t>(n);
    return Status::Ok();
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

Status ReadValue(Reader& r, Value* v) {
  uint8_t type;
  RETURN_IF_ERROR(r.U8(&type));
  if (type > static_cast<uint8_t>(Value::Type::kString)) {
    return r.Error(fmt::format("unknown value type {}", type));
  }
  v->type = static_cast<Value::Type>(type);
  switch (v->type) {
    case Value::Type::kNull:
      return Status::Ok();
    case Value::Type::kInt: {
      uint64_t z;
      RETURN_IF_ERROR(r.Varint(&z));
      v->i = static_cast<int64_t>((z >> 1) ^ (0 - (z & 1)));
      return Status::Ok();
    }
    case Value::Type::kDouble: {
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) {
        uint8_t b;
        RETURN_IF_ERROR(r.U8(&b));
        bits |= static_cast<uint64_t>(b) << (8 * k);
      }
      std::memcpy(&v->d, &bits, 8);
      return Status::Ok();
    }
    case Value::Type::kBool: {
      uint8_t b;
      RETURN_IF_ERROR(r.U8(&b));
      if (b > 1) return r.Error("bool neither 0 nor 1");
      v->i = b;
      return Status::Ok();
    }
    case Value::Type::kString:
      return r.Bytes(&v->s);
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeBaggage(const Baggage& baggage, size_t max_bytes) {
  if (baggage.empty()) return "";
  std::string out = EncodeRaw(baggage);
  if (out.size() <= max_bytes) return out;
  Baggage trimmed = baggage;
  // Each round drops enough of the oldest tuples of the fullest bag to cover the excess (or a
  // whole bag once none has tuples); the number of rounds is bounded by the tuples and bags.
  while (out.size() > max_bytes && !trimmed.empty()) {
    size_t excess = out.size() - max_bytes;
    Bag* fullest = nullptr;
    std::string fullest_key;
    for (auto& [key, bag] : trimmed.mutable_bags()) {
      if (!fullest || bag.tuples.size() > fullest->tuples.size()) {
        fullest = &bag;
        fullest_key = key;
      }
    }
    if (fullest->tuples.empty()) {
      trimmed.Erase(fullest_key);
    } else {
      fullest->overflow = true;
      size_t drop = 0, freed = 0;
      while (drop < fullest->tuples.size() && freed < excess) {
        freed += TupleSize(fullest->tuples[drop++]);
      }
      fullest->tuples.erase(fullest->tuples.begin(),
                            fullest->tuples.begin() + static_cast<long>(drop));
    }
    out = trimmed.empty() ? std::string() : EncodeRaw(trimmed);
  }
  return out;
}

StatusOr<Baggage> DecodeBaggage(std::string_view bytes) {
  Baggage b;
  if (bytes.empty()) return b;
  if (bytes.size() > kMaxDecodedBaggageBytes) {
    return DataLoss(
        fmt::format("baggage of {} bytes exceeds {}", bytes.size(), kMaxDecodedBaggageBytes));
  }
  Reader r(bytes);
  uint8_t version;
  RETURN_IF_ERROR(r.U8(&version));
  if (version != kBaggageVersion) {
    return DataLoss(fmt::format("unsupported baggage version {}", version));
  }
  size_t nbags;
  RETURN_IF_ERROR(r.Count(kMaxBags, &nbags, "bag"));
  for (size_t i = 0; i < nbags; ++i) {
    std::string key;
    RETURN_IF_ERROR(r.Bytes(&key));
    if (b.Find(key)) return r.Error(fmt::format("bag '{}' repeated", key));
    Bag& bag = b.Get(key);
    uint8_t flags;
    RETURN_IF_ERROR(r.U8(&flags));
    if (flags > 1) return r.Error(fmt::format("unknown bag flags {}", flags));
    bag.overflow = flags & 1;
    size_t ntuples;
    RETURN_IF_ERROR(r.Count(kMaxTuplesPerBag, &ntuples, "tuple"));
    bag.tuples.resize(ntuples);
    for (Tuple& t : bag.tuples) {
      size_t nvalues;
      RETURN_IF_ERROR(r.Count(kMaxValuesPerTuple, &nvalues, "value"));
      t.resize(nvalues);
      for (Value& v : t) RETURN_IF_ERROR(ReadValue(r, &v));
    }
  }
  if (!r.done()) return r.Error("trailing bytes");
  return b;
}

std::string EncodeBaggageHeader(const Baggage& baggage, size_t max_bytes) {
  return Base64UrlEncode(EncodeBaggage(baggage, max_bytes));
}

StatusOr<Baggage> DecodeBaggageHeader(std::string_view value) {
  auto bytes = Base64UrlDecode(value);
  if (!bytes.ok()) return bytes.status().WithContext("Cannot decode causeway-baggage header");
  auto b = DecodeBaggage(*bytes);
  if (!b.ok()) return b.status().WithContext("Cannot decode causeway-baggage header");
  return b;
}

std::string CurrentBaggageHeader(size_t max_bytes) {
  const Baggage* b = Baggage::Current();
  return b ? EncodeBaggageHeader(*b, max_bytes) : std::string();
}

std::shared_ptr<Baggage> BaggageFromHeader(std::string_view value, Status* error) {
  auto b = DecodeBaggageHeader(value);
  if (!b.ok()) {
    if (error) *error = b.status();
    return std::make_shared<Baggage>();
  }
  if (error) *error = Status::Ok();
  return std::make_shared<Baggage>(std::move(b).value());
}

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}  // namespace

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(in[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(in[i + 1])} << 8) |
                       static_cast<uint8_t>(in[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  const size_t rest = in.size() - i;
  if (rest) {
    uint32_t v = uint32_t{static_cast<uint8_t>(in[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<uint8_t>(in[i + 1])} << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

StatusOr<std::string> Base64UrlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return DataLoss("base64 length leaves a lone character");
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '-') {
      v = 62;
    } else if (c == '_') {
      v = 63;
    } else {
      return DataLoss(fmt::format("not base64url at offset {}", i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace causeway::pivot
