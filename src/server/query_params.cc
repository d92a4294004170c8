#include "server/query_params.h"

#include <algorithm>

namespace causeway::server {

using nlohmann::json;

StatusOr<std::optional<int64_t>> ParseInt(const json& p, const char* key) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_unsigned()) {
    if (it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      return InvalidArgument(std::string(key) + " is too large");
    return std::optional<int64_t>(static_cast<int64_t>(it->get<uint64_t>()));
  }
  if (it->is_number_integer()) return std::optional<int64_t>(it->get<int64_t>());
  // json-bigint clients may send large integers as strings.
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size() && errno == 0) return std::optional<int64_t>(v);
  }
  return InvalidArgument(std::string(key) + " must be an integer");
}

StatusOr<std::optional<std::string>> ParseString(const json& p, const char* key) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return InvalidArgument(std::string(key) + " must be a string");
  return std::optional<std::string>(it->get<std::string>());
}

StatusOr<TimeQuery> ParseTimeQuery(const json& p, const TimeQuery& fallback, bool required) {
  TimeQuery q = fallback;
  if (auto r = p.find("requested_timerange"); r != p.end() && !r->is_null()) {
    if (!r->is_object()) return InvalidArgument("requested_timerange must be an object");
    ASSIGN_OR_RETURN(std::optional<int64_t> start, ParseInt(*r, "start"));
    ASSIGN_OR_RETURN(std::optional<int64_t> end, ParseInt(*r, "end"));
    ASSIGN_OR_RETURN(std::optional<int64_t> n, ParseInt(*r, "nbTimes"));
    if (!start || !end) return InvalidArgument("requested_timerange needs start and end");
    if (*start > *end) return InvalidArgument("requested_timerange: start is after end");
    q.start = *start;
    q.end = *end;
    if (n) {
      if (*n < 1) return InvalidArgument("requested_timerange.nbTimes must be at least 1");
      q.samples = static_cast<uint32_t>(std::min<int64_t>(*n, kMaxSamples));
    }
    return q;
  }
  if (auto t = p.find("requested_times"); t != p.end() && !t->is_null()) {
    if (!t->is_array() || t->empty())
      return InvalidArgument("requested_times must be a non-empty array of times");
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const json& v : *t) {
      json one = {{"t", v}};
      ASSIGN_OR_RETURN(std::optional<int64_t> x, ParseInt(one, "t"));
      lo = std::min(lo, *x);
      hi = std::max(hi, *x);
    }
    q.start = lo;
    q.end = hi;
    q.samples = static_cast<uint32_t>(std::min<size_t>(t->size(), kMaxSamples));
    return q;
  }
  if (required) return InvalidArgument("missing requested_timerange (or requested_times)");
  return q;
}

StatusOr<std::optional<std::vector<int64_t>>> ParseItems(const json& p, size_t max) {
  auto it = p.find("requested_items");
  if (it == p.end() || it->is_null()) return std::optional<std::vector<int64_t>>();
  if (!it->is_array()) return InvalidArgument("requested_items must be an array of entry ids");
  std::vector<int64_t> out;
  for (const json& v : *it) {
    if (out.size() >= max) break;
    json one = {{"item", v}};
    ASSIGN_OR_RETURN(std::optional<int64_t> x, ParseInt(one, "item"));
    out.push_back(*x);
  }
  return std::optional<std::vector<int64_t>>(std::move(out));
}

}  // namespace causeway::server
