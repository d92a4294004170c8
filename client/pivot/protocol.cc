#include "pivot/protocol.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "pivot/value_json.h"

namespace causeway::pivot {
namespace {

using nlohmann::json;

json IdentityToJson(const AgentIdentity& a) {
  return {{"agent", a.agent}, {"host", a.host}, {"pid", a.pid}, {"service", a.service}};
}

AgentIdentity IdentityFromJson(const json& j) {
  AgentIdentity a;
  a.agent = j.at("agent").get<std::string>();
  a.host = j.value("host", "");
  a.pid = j.value("pid", int64_t{0});
  a.service = j.value("service", "");
  return a;
}

json StatsToJson(const QueryStats& s) {
  return {{"firings", s.firings},
          {"emitted", s.emitted},
          {"dropped_tuples", s.dropped_tuples},
          {"type_errors", s.type_errors}};
}

QueryStats StatsFromJson(const json& j) {
  QueryStats s;
  if (!j.is_object()) return s;
  s.firings = j.value("firings", uint64_t{0});
  s.emitted = j.value("emitted", uint64_t{0});
  s.dropped_tuples = j.value("dropped_tuples", uint64_t{0});
  s.type_errors = j.value("type_errors", uint64_t{0});
  return s;
}

json InstallToJson(const InstallCommand& m) {
  return {{"id", m.id},
          {"query", m.query},
          {"interval_ms", m.interval_ms},
          {"lease_ms", m.lease_ms},
          {"results", m.results}};
}

InstallCommand InstallFromJson(const json& j) {
  InstallCommand m;
  m.id = j.at("id").get<std::string>();
  m.query = j.at("query").get<std::string>();
  m.interval_ms = j.value("interval_ms", int64_t{1000});
  m.lease_ms = j.value("lease_ms", int64_t{10000});
  m.results = j.at("results").get<std::string>();
  if (m.id.empty()) throw std::invalid_argument("empty id");
  if (m.results.empty()) throw std::invalid_argument("empty results subject");
  if (m.interval_ms < 10 || m.interval_ms > 3600000) {
    throw std::invalid_argument("interval_ms must be in [10, 3600000]");
  }
  if (m.lease_ms < m.interval_ms) throw std::invalid_argument("lease_ms below interval_ms");
  return m;
}

// Runs `decode` on the parsed JSON; any exception becomes "Cannot decode <what>: <reason>".
template <class T, class F>
StatusOr<T> Decode(std::string_view text, const char* what, F decode) {
  try {
    json j = json::parse(text);
    if (!j.is_object())
      return InvalidArgument(std::string("Cannot decode ") + what + ": not an object");
    return decode(j);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("Cannot decode ") + what + ": " + e.what());
  }
}

}  // namespace

nlohmann::json ValueToJson(const Value& v) {
  switch (v.type) {
    case Value::Type::kInt:
      return v.i;
    case Value::Type::kDouble:
      if (!std::isfinite(v.d))
        return json{{"double", std::isnan(v.d) ? "nan" : (v.d > 0 ? "inf" : "-inf")}};
      return v.d;
    case Value::Type::kBool:
      return v.i != 0;
    case Value::Type::kString:
      return v.s;
    case Value::Type::kNull:
      break;
  }
  return nullptr;
}

Value ValueFromJson(const nlohmann::json& j) {
  if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
  if (j.is_number_float()) return Value::Double(j.get<double>());
  if (j.is_boolean()) return Value::Bool(j.get<bool>());
  if (j.is_string()) return Value::String(j.get<std::string>());
  if (j.is_object() && j.contains("double") && j["double"].is_string()) {
    const std::string& s = j["double"].get_ref<const std::string&>();
    if (s == "inf") return Value::Double(INFINITY);
    if (s == "-inf") return Value::Double(-INFINITY);
    return Value::Double(NAN);
  }
  return Value();
}

std::string Encode(const InstallCommand& m) { return InstallToJson(m).dump(); }

std::string Encode(const InstallReply& m) {
  json j = {{"agent", IdentityToJson(m.agent)},
            {"id", m.id},
            {"ok", m.ok},
            {"woven", m.woven},
            {"refreshed", m.refreshed}};
  if (!m.ok) j["error"] = m.error;
  return j.dump();
}

std::string Encode(const ResultsMessage& m) {
  json rows = json::array();
  for (const ResultRow& r : m.rows) {
    json group = json::array(), partials = json::array();
    for (const Value& v : r.group) group.push_back(ValueToJson(v));
    for (const Partial& p : r.partials) partials.push_back({p.sum, p.count, p.min, p.max});
    rows.push_back({{"group", std::move(group)}, {"partials", std::move(partials)}});
  }
  return json{{"agent", IdentityToJson(m.agent)},
              {"id", m.id},
              {"seq", m.seq},
              {"final", m.final},
              {"time_ns", m.time_ns},
              {"rows", std::move(rows)},
              {"stats", StatsToJson(m.stats)}}
      .dump();
}

std::string Encode(const StatusMessage& m) {
  json queries = json::array();
  for (const AgentQueryStatus& q : m.queries) {
    queries.push_back({{"id", q.id}, {"woven", q.woven}, {"stats", StatsToJson(q.stats)}});
  }
  return json{{"agent", IdentityToJson(m.agent)}, {"exiting", m.exiting}, {"queries", queries}}
      .dump();
}

std::string EncodeUninstall(std::string_view id) { return json{{"id", id}}.dump(); }

std::string EncodeHelloReply(const std::vector<InstallCommand>& installs) {
  json queries = json::array();
  for (const InstallCommand& m : installs) queries.push_back(InstallToJson(m));
  return json{{"queries", std::move(queries)}}.dump();
}

StatusOr<InstallCommand> DecodeInstall(std::string_view text) {
  return Decode<InstallCommand>(text, "install command", InstallFromJson);
}

StatusOr<InstallReply> DecodeInstallReply(std::string_view text) {
  return Decode<InstallReply>(text, "install reply", [](const json& j) {
    InstallReply m;
    m.agent = IdentityFromJson(j.at("agent"));
    m.id = j.at("id").get<std::string>();
    m.ok = j.at("ok").get<bool>();
    m.error = j.value("error", "");
    m.woven = j.value("woven", int64_t{0});
    m.refreshed = j.value("refreshed", false);
    return m;
  });
}

StatusOr<ResultsMessage> DecodeResults(std::string_view text) {
  return Decode<ResultsMessage>(text, "results", [](const json& j) {
    ResultsMessage m;
    m.agent = IdentityFromJson(j.at("agent"));
    m.id = j.at("id").get<std::string>();
    m.seq = j.value("seq", uint64_t{0});
    m.final = j.value("final", false);
    m.time_ns = j.value("time_ns", int64_t{0});
    for (const json& r : j.at("rows")) {
      ResultRow row;
      for (const json& v : r.at("group")) row.group.push_back(ValueFromJson(v));
      for (const json& p : r.at("partials")) {
        if (!p.is_array() || p.size() != 4)
          throw std::invalid_argument("partial is not [sum, count, min, max]");
        Partial part;
        part.sum = p[0].get<double>();
        part.count = p[1].get<int64_t>();
        part.min = p[2].get<double>();
        part.max = p[3].get<double>();
        part.any = part.count > 0;
        row.partials.push_back(part);
      }
      m.rows.push_back(std::move(row));
    }
    m.stats = StatsFromJson(j.value("stats", json::object()));
    return m;
  });
}

StatusOr<StatusMessage> DecodeStatus(std::string_view text) {
  return Decode<StatusMessage>(text, "status", [](const json& j) {
    StatusMessage m;
    m.agent = IdentityFromJson(j.at("agent"));
    m.exiting = j.value("exiting", false);
    for (const json& q : j.value("queries", json::array())) {
      m.queries.push_back({q.at("id").get<std::string>(), q.value("woven", int64_t{0}),
                           StatsFromJson(q.value("stats", json::object()))});
    }
    return m;
  });
}

StatusOr<std::string> DecodeUninstall(std::string_view text) {
  return Decode<std::string>(text, "uninstall command",
                             [](const json& j) { return j.at("id").get<std::string>(); });
}

StatusOr<std::vector<InstallCommand>> DecodeHelloReply(std::string_view text) {
  return Decode<std::vector<InstallCommand>>(text, "hello reply", [](const json& j) {
    std::vector<InstallCommand> out;
    for (const json& q : j.at("queries")) out.push_back(InstallFromJson(q));
    return out;
  });
}

}  // namespace causeway::pivot
