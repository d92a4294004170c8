// Application tracepoints of causeway-client (client/README.md).
//
//   // Once, at namespace scope: provider, name, field names; the field types are the
//   // template arguments (integers, double, bool, strings).
//   causeway::client::Tracepoint<std::string_view, int64_t> tp_request(
//       "demo", "request_entry", {"client", "bytes"});
//   ...
//   CAUSEWAY_TRACEPOINT(tp_request, client_name, bytes);
//
// A tracepoint with nothing attached costs one relaxed atomic load and a branch predicted
// not taken: the arguments are not even evaluated. When enabled, a firing goes to the
// user-space trace (Tracer option record_tracepoints) and/or to the probes attached at run
// time through TracepointRegistry (the Pivot Tracing advice), with typed values.
#pragma once

#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "causeway/detail/thread_ring.h"

namespace causeway::client {

enum class FieldType : uint8_t { kInt64, kUint64, kDouble, kBool, kString };

struct TracepointField {
  std::string_view name;
  FieldType type;
};

// One value of a firing; `s` is valid only during the probe call.
struct TracepointValue {
  FieldType type = FieldType::kInt64;
  int64_t i = 0;  // kInt64, kBool (0/1)
  uint64_t u = 0;
  double d = 0;
  std::string_view s;
};

class TracepointBase;

// Receives the firings of the tracepoints it is attached to, on the firing thread.
class TracepointProbe {
 public:
  virtual ~TracepointProbe() = default;
  virtual void OnFire(const TracepointBase& tracepoint,
                      std::span<const TracepointValue> values) = 0;
};

namespace detail {
struct ProbeList {
  std::vector<std::shared_ptr<TracepointProbe>> probes;
};
template <class T>
constexpr FieldType FieldTypeOf() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::same_as<U, bool>) {
    return FieldType::kBool;
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    return FieldType::kInt64;
  } else if constexpr (std::is_integral_v<U>) {
    return FieldType::kUint64;
  } else if constexpr (std::is_floating_point_v<U>) {
    return FieldType::kDouble;
  } else {
    static_assert(std::is_convertible_v<U, std::string_view>,
                  "tracepoint fields are integers, floating point, bool or strings");
    return FieldType::kString;
  }
}
// Strings longer than this are truncated in the user-space trace (not for probes).
inline constexpr size_t kMaxRecordedString = 1024;
}  // namespace detail

class TracepointBase {
 public:
  TracepointBase(const TracepointBase&) = delete;
  TracepointBase& operator=(const TracepointBase&) = delete;

  std::string_view provider() const { return provider_; }
  std::string_view name() const { return name_; }
  const std::string& full_name() const { return full_name_; }  // "provider:name"
  std::span<const TracepointField> fields() const { return fields_; }
  uint32_t id() const { return id_; }  // its index in the registry

  [[gnu::always_inline]] bool enabled() const {
    return state_.load(std::memory_order_relaxed) != 0;
  }

 protected:
  static constexpr uint32_t kRecord = 1;  // written to the user-space trace
  static constexpr uint32_t kProbes = 2;  // probes attached

  // Registers the tracepoint (TracepointRegistry); it must outlive every firing.
  TracepointBase(std::string_view provider, std::string_view name,
                 std::vector<TracepointField> fields);
  ~TracepointBase();

  void Dispatch(std::span<const TracepointValue> values) const;

  std::atomic<uint32_t> state_{0};

 private:
  friend class TracepointRegistry;
  std::string provider_;
  std::string name_;
  std::string full_name_;
  std::vector<TracepointField> fields_;
  uint32_t id_ = 0;
  std::atomic<const detail::ProbeList*> probes_{nullptr};
};

template <class... Ts>
class Tracepoint : public TracepointBase {
 public:
  Tracepoint(std::string_view provider, std::string_view name,
             const std::array<std::string_view, sizeof...(Ts)>& field_names)
      : TracepointBase(provider, name, MakeFields(field_names)) {}

  // Call through CAUSEWAY_TRACEPOINT, which checks enabled() first.
  void Fire(const Ts&... values) const {
    const uint32_t state = state_.load(std::memory_order_relaxed);
    if (state & kRecord) Record(values...);
    if (state & kProbes) {
      const std::array<TracepointValue, sizeof...(Ts)> v = {ToValue(values)...};
      Dispatch(v);
    }
  }

 private:
  static std::vector<TracepointField> MakeFields(
      const std::array<std::string_view, sizeof...(Ts)>& names) {
    constexpr std::array<FieldType, sizeof...(Ts)> types = {detail::FieldTypeOf<Ts>()...};
    std::vector<TracepointField> f;
    for (size_t i = 0; i < sizeof...(Ts); ++i) f.push_back({names[i], types[i]});
    return f;
  }

  template <class T>
  static TracepointValue ToValue(const T& v) {
    TracepointValue out;
    out.type = detail::FieldTypeOf<T>();
    if constexpr (detail::FieldTypeOf<T>() == FieldType::kBool) {
      out.i = v ? 1 : 0;
    } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kInt64) {
      out.i = static_cast<int64_t>(v);
    } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kUint64) {
      out.u = static_cast<uint64_t>(v);
    } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kDouble) {
      out.d = static_cast<double>(v);
    } else {
      out.s = std::string_view(v);
    }
    return out;
  }

  // Payload in the ring: 8 bytes per number, 1 per bool, uint16 length + bytes per string.
  template <class T>
  static size_t EncodedSize(const T& v) {
    if constexpr (detail::FieldTypeOf<T>() == FieldType::kBool) {
      return 1;
    } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kString) {
      const size_t n = std::string_view(v).size();
      return 2 + (n < detail::kMaxRecordedString ? n : detail::kMaxRecordedString);
    } else {
      return 8;
    }
  }
  template <class T>
  static uint8_t* Encode(uint8_t* p, const T& v) {
    if constexpr (detail::FieldTypeOf<T>() == FieldType::kBool) {
      *p = v ? 1 : 0;
      return p + 1;
    } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kString) {
      const std::string_view s(v);
      const uint16_t n = static_cast<uint16_t>(
          s.size() < detail::kMaxRecordedString ? s.size() : detail::kMaxRecordedString);
      std::memcpy(p, &n, 2);
      if (n) std::memcpy(p + 2, s.data(), n);
      return p + 2 + n;
    } else {
      const TracepointValue tv = ToValue(v);
      if constexpr (detail::FieldTypeOf<T>() == FieldType::kDouble) {
        std::memcpy(p, &tv.d, 8);
      } else if constexpr (detail::FieldTypeOf<T>() == FieldType::kInt64) {
        std::memcpy(p, &tv.i, 8);
      } else {
        std::memcpy(p, &tv.u, 8);
      }
      return p + 8;
    }
  }

  void Record(const Ts&... values) const {
    detail::ThreadRing* ring = detail::CurrentRing();
    const size_t payload = (size_t{0} + ... + EncodedSize(values));
    uint64_t end;
    uint8_t* p = detail::Reserve(ring, static_cast<uint32_t>(payload),
                                 detail::kFirstTracepointKey + id(), &end);
    if (!p) return;
    ((p = Encode(p, values)), ...);
    detail::Commit(ring, end);
  }
};

// Every tracepoint of the process, by id and by name; probes attached and removed at run
// time (no restart, no lock on the firing path: a firing sees the old or the new probe list).
class TracepointRegistry {
 public:
  static TracepointRegistry& Get();

  std::vector<TracepointBase*> List() const;
  TracepointBase* Find(std::string_view full_name) const;
  TracepointBase* ById(uint32_t id) const;

  // Attaches `probe` to every tracepoint whose "provider:name" matches `glob` (* and ?);
  // returns how many. Tracepoints registered later are not affected.
  size_t Attach(std::string_view glob, std::shared_ptr<TracepointProbe> probe);
  // Detaches `probe` from every tracepoint; returns from how many.
  size_t Detach(const TracepointProbe* probe);
  // Marks the tracepoints matching any of the comma-separated globs (also those registered
  // later) for the user-space trace; "" clears. Effective while a trace is open.
  void SetRecorded(std::string_view globs);
  // Called by the tracer when its user-space trace opens or closes: recording is effective
  // only while one is open.
  void SetTraceOpen(bool open);

 private:
  friend class TracepointBase;
  TracepointRegistry() = default;
  void Register(TracepointBase* tp);
  void Unregister(TracepointBase* tp);
  void UpdateState(TracepointBase* tp);  // with mutex_ held
  struct Impl;
  Impl& impl() const;
};

bool GlobMatch(std::string_view glob, std::string_view text);

}  // namespace causeway::client

// Fires `tp` with the given values when something listens; otherwise evaluates nothing.
#define CAUSEWAY_TRACEPOINT(tp, ...)                                                    \
  do {                                                                                  \
    if (__builtin_expect(static_cast<long>((tp).enabled()), 0)) (tp).Fire(__VA_ARGS__); \
  } while (0)
