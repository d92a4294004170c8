#include "server/ui_json_routes.h"

#include <charconv>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/json_reply.h"
#include "server/ui_api.h"

namespace causeway::server {
namespace {

// The experiment asked for, or the first one; nullptr after answering 404.
std::shared_ptr<const ExperimentData> PickExperiment(Experiments* experiments,
                                                     const httplib::Request& req,
                                                     httplib::Response& res) {
  std::optional<ExperimentInfo> found;
  if (req.has_param("experiment")) {
    found = experiments->Find(req.get_param_value("experiment"));
  } else {
    const std::vector<ExperimentInfo> all = experiments->List();
    if (!all.empty()) found = all.front();
  }
  if (!found || !found->data) {
    ReplyError(res, 404, "No such experiment",
               "open traces on the command line or through /tsp/api/experiments");
    return nullptr;
  }
  return found->data;
}

// An integer query parameter within [lo, hi]: `fallback` when absent, nullopt after
// answering 400 when it is not one.
std::optional<int64_t> IntParam(const httplib::Request& req, httplib::Response& res,
                                const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  if (!req.has_param(key)) return fallback;
  const std::string text = req.get_param_value(key);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
    ReplyError(res, 400, std::string("Bad parameter ") + key,
               "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return std::nullopt;
  }
  return v;
}

std::optional<UiWindow> WindowParams(const httplib::Request& req, httplib::Response& res) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  const auto begin = IntParam(req, res, "begin", 0, -kMax, kMax);
  if (!begin) return std::nullopt;
  const auto end = IntParam(req, res, "end", 0, -kMax, kMax);
  if (!end) return std::nullopt;
  const auto pixels = IntParam(req, res, "pixels", 1000, 1, 10000);
  if (!pixels) return std::nullopt;
  return UiWindow{*begin, *end, static_cast<int>(*pixels)};
}

}  // namespace

void RegisterUiJsonRoutes(httplib::Server& http, Experiments* experiments) {
  http.Get("/api/requests", [experiments](const httplib::Request& req, httplib::Response& res) {
    const auto data = PickExperiment(experiments, req, res);
    if (!data) return;
    const auto limit = IntParam(req, res, "limit", 200, 0, 100000);
    if (!limit) return;
    UiRequestQuery q;
    q.operation = req.get_param_value("operation");
    q.cause = req.get_param_value("cause");
    q.limit = static_cast<size_t>(*limit);
    ReplyJson(res, UiRequestsJson(data->recording, q));
  });
  http.Get(R"(/api/requests/([0-9A-Fa-f]{1,32}))", [experiments](const httplib::Request& req,
                                                                 httplib::Response& res) {
    const auto data = PickExperiment(experiments, req, res);
    if (!data) return;
    const auto window = WindowParams(req, res);
    if (!window) return;
    StatusOr<nlohmann::json> view = UiRequestJson(data->recording, req.matches[1].str(), *window);
    if (!view.ok()) return ReplyStatus(res, view.status());
    ReplyJson(res, *view);
  });
  http.Get("/api/threads", [experiments](const httplib::Request& req, httplib::Response& res) {
    const auto data = PickExperiment(experiments, req, res);
    if (!data) return;
    const auto window = WindowParams(req, res);
    if (!window) return;
    std::vector<graph::WorkerId> workers;
    const std::string list = req.get_param_value("workers");
    for (size_t at = 0; at < list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      uint32_t w = 0;
      const auto [end, ec] = std::from_chars(list.data() + at, list.data() + comma, w);
      if (ec != std::errc() || end != list.data() + comma || workers.size() >= 1000)
        return ReplyError(res, 400, "Bad parameter workers",
                          "expected at most 1000 thread numbers separated by commas");
      workers.push_back(w);
      at = comma + 1;
    }
    ReplyJson(res, UiThreadsJson(data->recording, workers, *window));
  });
}

}  // namespace causeway::server
