// Pivot values as JSON, shared by the agent protocol and `causeway pivot`'s output: integers
// stay integers, doubles stay doubles (non-finite ones as {"double": "nan"|"inf"|"-inf"},
// which JSON cannot write), strings, booleans and null as themselves.
#pragma once

#include <nlohmann/json.hpp>

#include "pivot/baggage.h"

namespace causeway::pivot {

nlohmann::json ValueToJson(const Value& v);
Value ValueFromJson(const nlohmann::json& j);

}  // namespace causeway::pivot
