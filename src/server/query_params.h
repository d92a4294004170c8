// The TSP query parameters the outputs read, checked: a bad type or range is an
// InvalidArgument (400), never an exception; counts are clamped to what one answer may hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace causeway::server {

inline constexpr uint32_t kMaxSamples = 65536;  // TSP's bound on nbTimes
inline constexpr uint32_t kDefaultSamples = 1000;

// The time range of a view and its resolution: `requested_timerange` {start, end, nbTimes},
// or `requested_times` (the sampled times themselves: their span and count).
struct TimeQuery {
  int64_t start = 0, end = 0;
  uint32_t samples = kDefaultSamples;
  // One sample's width (≥ 1 ns): what is shorter is merged.
  int64_t step() const {
    const int64_t s = (end - start) / (samples > 1 ? samples - 1 : 1);
    return s > 0 ? s : 1;
  }
};

// `fallback` (the experiment's range) when neither parameter is given and `required` is
// false.
StatusOr<TimeQuery> ParseTimeQuery(const nlohmann::json& parameters, const TimeQuery& fallback,
                                   bool required);

// `requested_items` (entry ids); nullopt when absent. At most `max` are kept.
StatusOr<std::optional<std::vector<int64_t>>> ParseItems(const nlohmann::json& parameters,
                                                         size_t max = 1 << 20);

// An optional integer parameter (nullopt when absent), InvalidArgument when not an integer.
StatusOr<std::optional<int64_t>> ParseInt(const nlohmann::json& parameters, const char* key);

// An optional string parameter.
StatusOr<std::optional<std::string>> ParseString(const nlohmann::json& parameters, const char* key);

}  // namespace causeway::server
