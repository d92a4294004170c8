#include "server/json_reply.h"

namespace causeway::server {

void ReplyJson(httplib::Response& res, const nlohmann::json& body, int status) {
  res.status = status;
  // Replace: trace names and paths may hold any bytes, and an answer must never throw.
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& title,
                const std::string& detail) {
  nlohmann::json body = {{"title", title}};
  if (!detail.empty()) body["detail"] = detail;
  ReplyJson(res, body, status);
}

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kUnimplemented:
    case StatusCode::kDataLoss:
      return 406;
    default:
      return 500;
  }
}

void ReplyStatus(httplib::Response& res, const Status& s) {
  ReplyError(res, HttpStatusOf(s), s.message(), s.ToString());
}

std::optional<nlohmann::json> ParseBody(const httplib::Request& req, httplib::Response& res) {
  nlohmann::json body = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    ReplyError(res, 400, "The request body is not JSON");
    return std::nullopt;
  }
  if (!body.is_object()) {
    ReplyError(res, 400, "The request body must be a JSON object");
    return std::nullopt;
  }
  return body;
}

nlohmann::json Completed(nlohmann::json model, const std::string& message) {
  return {{"model", std::move(model)}, {"status", "COMPLETED"}, {"statusMessage", message}};
}

void ReplyCompletedText(httplib::Response& res, const std::string& model_json) {
  std::string body;
  body.reserve(model_json.size() + 64);
  body += "{\"model\":";
  body += model_json;
  body += ",\"status\":\"COMPLETED\",\"statusMessage\":\"Completed\"}";
  res.status = 200;
  res.set_content(std::move(body), "application/json");
}

}  // namespace causeway::server
