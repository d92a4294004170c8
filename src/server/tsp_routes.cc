#include "server/tsp_routes.h"

#include <sys/utsname.h>

#include <thread>

#include "server/json_reply.h"
#include "server/outputs.h"

namespace causeway::server {
namespace {

using nlohmann::json;

json TraceJson(const TraceInfo& t, const ExperimentData* data) {
  return {{"UUID", t.uuid},
          {"name", t.name},
          {"path", t.path},
          {"start", data ? data->begin : 0},
          {"end", data ? data->end : 0},
          {"nbEvents", data ? data->events : 0},
          // Traces are read when an experiment holds them: until then nothing is indexed.
          {"indexingStatus", data ? "COMPLETED" : "CLOSED"},
          {"properties", json::object()}};
}

json ExperimentJson(const Experiments& ex, const ExperimentInfo& e) {
  json traces = json::array();
  for (const std::string& u : e.trace_uuids)
    if (auto t = ex.FindTrace(u)) traces.push_back(TraceJson(*t, e.data.get()));
  return {{"UUID", e.uuid},
          {"name", e.name},
          {"start", e.data->begin},
          {"end", e.data->end},
          {"nbEvents", e.data->events},
          {"indexingStatus", "COMPLETED"},
          {"traces", traces}};
}

// The body's "parameters" object (TSP wraps every query in one), or nullopt after a 400.
std::optional<json> Parameters(const httplib::Request& req, httplib::Response& res) {
  std::optional<json> body = ParseBody(req, res);
  if (!body) return std::nullopt;
  auto it = body->find("parameters");
  if (it == body->end() || !it->is_object()) {
    ReplyError(res, 400, "Missing parameters",
               "the body must be {\"parameters\": {...}} (TSP query parameters)");
    return std::nullopt;
  }
  return *it;
}

// The type of output each kind of endpoint path serves.
std::string TypeOfPathKind(const std::string& kind) {
  if (kind == "timeGraph") return "TIME_GRAPH";
  if (kind == "XY") return "TREE_TIME_XY";
  if (kind == "data") return "DATA_TREE";
  if (kind == "table") return "TABLE";
  return "";
}

}  // namespace

void RegisterTspRoutes(httplib::Server& http, Experiments* ex) {
  const std::string base = kTspBase;

  http.Get(base + "/health", [](const httplib::Request&, httplib::Response& res) {
    ReplyJson(res, {{"status", "UP"}});
  });
  http.Get(base + "/identifier", [](const httplib::Request&, httplib::Response& res) {
    utsname u{};
    uname(&u);
    ReplyJson(res, {{"productId", "causeway"},
                    {"version", "0.1.0"},
                    {"tspVersion", "0.6.0"},
                    {"os", u.sysname},
                    {"osArch", u.machine},
                    {"osVersion", u.release},
                    {"cpuCount", std::thread::hardware_concurrency()}});
  });

  // --- Traces ---------------------------------------------------------------------------
  http.Get(base + "/traces", [ex](const httplib::Request&, httplib::Response& res) {
    json out = json::array();
    for (const TraceInfo& t : ex->Traces())
      out.push_back(TraceJson(t, ex->DataOfTrace(t.uuid).get()));
    ReplyJson(res, out);
  });
  http.Post(base + "/traces", [ex](const httplib::Request& req, httplib::Response& res) {
    std::optional<json> p = Parameters(req, res);
    if (!p) return;
    auto uri = p->find("uri");
    if (uri == p->end() || !uri->is_string())
      return ReplyError(res, 400, "Missing parameter uri", "the trace's path on the server");
    std::string name;
    if (auto n = p->find("name"); n != p->end() && n->is_string()) name = *n;
    std::string path = *uri;
    if (path.rfind("file://", 0) == 0) path = path.substr(7);
    StatusOr<TraceInfo> t = ex->OpenTrace(path, name);
    if (!t.ok()) return ReplyStatus(res, t.status());
    ReplyJson(res, TraceJson(*t, ex->DataOfTrace(t->uuid).get()));
  });
  http.Get(base + R"(/traces/([^/]+))", [ex](const httplib::Request& req, httplib::Response& res) {
    auto t = ex->FindTrace(req.matches[1]);
    if (!t) return ReplyError(res, 404, "No such trace", req.matches[1]);
    ReplyJson(res, TraceJson(*t, ex->DataOfTrace(t->uuid).get()));
  });
  http.Delete(base + R"(/traces/([^/]+))",
              [ex](const httplib::Request& req, httplib::Response& res) {
                StatusOr<TraceInfo> t = ex->CloseTrace(req.matches[1]);
                if (!t.ok()) return ReplyStatus(res, t.status());
                ReplyJson(res, TraceJson(*t, nullptr));
              });

  // --- Experiments ----------------------------------------------------------------------
  http.Get(base + "/experiments", [ex](const httplib::Request&, httplib::Response& res) {
    json out = json::array();
    for (const ExperimentInfo& e : ex->List()) out.push_back(ExperimentJson(*ex, e));
    ReplyJson(res, out);
  });
  http.Post(base + "/experiments", [ex](const httplib::Request& req, httplib::Response& res) {
    std::optional<json> p = Parameters(req, res);
    if (!p) return;
    auto name = p->find("name");
    auto traces = p->find("traces");
    if (name == p->end() || !name->is_string())
      return ReplyError(res, 400, "Missing parameter name");
    if (traces == p->end() || !traces->is_array() || traces->empty())
      return ReplyError(res, 400, "Missing parameter traces", "an array of trace UUIDs");
    std::vector<std::string> uuids;
    for (const json& u : *traces) {
      if (!u.is_string()) return ReplyError(res, 400, "Trace UUIDs must be strings");
      uuids.push_back(u);
    }
    StatusOr<ExperimentInfo> e = ex->OpenExperiment(*name, uuids);
    if (!e.ok()) return ReplyStatus(res, e.status());
    ReplyJson(res, ExperimentJson(*ex, *e));
  });
  http.Get(base + R"(/experiments/([^/]+))",
           [ex](const httplib::Request& req, httplib::Response& res) {
             auto e = ex->Find(req.matches[1]);
             if (!e) return ReplyError(res, 404, "No such experiment", req.matches[1]);
             ReplyJson(res, ExperimentJson(*ex, *e));
           });
  http.Delete(base + R"(/experiments/([^/]+))",
              [ex](const httplib::Request& req, httplib::Response& res) {
                auto e = ex->Close(req.matches[1]);
                if (!e) return ReplyError(res, 404, "No such experiment", req.matches[1]);
                ReplyJson(res, ExperimentJson(*ex, *e));
              });

  // --- Outputs --------------------------------------------------------------------------
  http.Get(base + R"(/experiments/([^/]+)/outputs)",
           [ex](const httplib::Request& req, httplib::Response& res) {
             if (!ex->Find(req.matches[1]))
               return ReplyError(res, 404, "No such experiment", req.matches[1]);
             json out = json::array();
             for (const auto& o : AllOutputs()) out.push_back(o->Descriptor());
             ReplyJson(res, out);
           });
  http.Get(base + R"(/experiments/([^/]+)/outputs/markerSets)",
           [ex](const httplib::Request& req, httplib::Response& res) {
             if (!ex->Find(req.matches[1]))
               return ReplyError(res, 404, "No such experiment", req.matches[1]);
             ReplyJson(res, Completed(json::array()));
           });
  http.Get(base + R"(/experiments/([^/]+)/outputs/([^/]+))",
           [ex](const httplib::Request& req, httplib::Response& res) {
             if (!ex->Find(req.matches[1]))
               return ReplyError(res, 404, "No such experiment", req.matches[1]);
             const Output* o = FindOutput(req.matches[2]);
             if (!o) return ReplyError(res, 404, "No such output", req.matches[2]);
             ReplyJson(res, o->Descriptor());
           });
  http.Post(base + R"(/experiments/([^/]+)/outputs/([^/]+)/style)",
            [ex](const httplib::Request& req, httplib::Response& res) {
              if (!ex->Find(req.matches[1]))
                return ReplyError(res, 404, "No such experiment", req.matches[1]);
              const Output* o = FindOutput(req.matches[2]);
              if (!o) return ReplyError(res, 404, "No such output", req.matches[2]);
              ReplyJson(res, Completed(o->Styles()));
            });
  http.Post(base + R"(/experiments/([^/]+)/outputs/([^/]+)/annotations)",
            [ex](const httplib::Request& req, httplib::Response& res) {
              if (!ex->Find(req.matches[1]))
                return ReplyError(res, 404, "No such experiment", req.matches[1]);
              ReplyJson(res, Completed({{"annotations", json::object()}}));
            });
  http.Post(
      base +
          R"(/experiments/([^/]+)/outputs/(timeGraph|XY|data|table)/([^/]+)/(tree|states|arrows|tooltip|xy|columns|lines))",
      [ex](const httplib::Request& req, httplib::Response& res) {
        auto e = ex->Find(req.matches[1]);
        if (!e) return ReplyError(res, 404, "No such experiment", req.matches[1]);
        const Output* o = FindOutput(req.matches[3]);
        if (!o || o->type() != TypeOfPathKind(req.matches[2]))
          return ReplyError(res, 404, "No such output",
                            std::string(req.matches[2]) + "/" + std::string(req.matches[3]));
        std::optional<json> p = Parameters(req, res);
        if (!p) return;
        const std::string what = req.matches[4];
        const ExperimentData& d = *e->data;
        if (what == "tree" || what == "states" || what == "arrows") {
          StatusOr<std::string> text = what == "tree"     ? o->TreeText(d, *p)
                                       : what == "states" ? o->StatesText(d, *p)
                                                          : o->ArrowsText(d, *p);
          if (!text.ok()) return ReplyStatus(res, text.status());
          return ReplyCompletedText(res, *text);
        }
        StatusOr<json> model = what == "tooltip"   ? o->Tooltip(d, *p)
                               : what == "xy"      ? o->Xy(d, *p)
                               : what == "columns" ? o->Columns(d, *p)
                                                   : o->Lines(d, *p);
        if (!model.ok()) return ReplyStatus(res, model.status());
        ReplyJson(res, Completed(std::move(*model)));
      });
}

}  // namespace causeway::server
