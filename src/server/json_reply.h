// How every handler answers: JSON bodies, TSP's ErrorResponse ({"title", "detail"}) with a
// 4xx/5xx code for every refusal, and the request body parsed without exceptions.
#pragma once

#include <optional>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "base/status.h"

namespace causeway::server {

void ReplyJson(httplib::Response& res, const nlohmann::json& body, int status = 200);
void ReplyError(httplib::Response& res, int status, const std::string& title,
                const std::string& detail = "");
// The HTTP code for a Status: 400 invalid argument, 403 permission denied, 404 not found,
// 409 failed precondition, 500 otherwise.
int HttpStatusOf(const Status& s);
void ReplyStatus(httplib::Response& res, const Status& s);

// The body as a JSON object, or nullopt after answering 400 (not JSON, not an object).
std::optional<nlohmann::json> ParseBody(const httplib::Request& req, httplib::Response& res);

// TSP's GenericResponse around a model: {"model": ..., "status": "COMPLETED", ...}.
nlohmann::json Completed(nlohmann::json model, const std::string& message = "Completed");
// The same around a model already serialized (`model_json`), answered 200.
void ReplyCompletedText(httplib::Response& res, const std::string& model_json);

}  // namespace causeway::server
