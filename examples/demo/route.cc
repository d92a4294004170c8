// route: GET /route?from=X,Y&to=X,Y computes a route: CPU work and a few KB of waypoints.
#include <cmath>

#include <fmt/format.h>

#include "services.h"

namespace causeway::demo {

int RunRoute(const RouteOptions& o) {
  return ServeForever("route", o.service, [&](httplib::Server& server) {
    server.Get(
        "/route", Traced("GET /route", [&](const httplib::Request& req, httplib::Response& res,
                                           DemoSpan& span) {
          auto from = LocationParam(req, "from");
          if (!from.ok()) return ReplyError(res, 400, from.status().message());
          auto to = LocationParam(req, "to");
          if (!to.ok()) return ReplyError(res, 400, to.status().message());
          BurnCpu(std::chrono::microseconds(o.cpu_us));
          const double dx = static_cast<double>(to->x - from->x);
          const double dy = static_cast<double>(to->y - from->y);
          const double distance = std::sqrt(dx * dx + dy * dy);
          // A little deterministic "traffic" per pair, so ETAs differ between drivers.
          const double traffic = 1.0 + static_cast<double>((from->x * 31 + from->y) % 7) / 10;
          const double eta_s = distance * traffic / 10.0;
          // Waypoints along the straight line until the answer is response_bytes long:
          // the size is what the net fault's bandwidth limit acts on. One string of
          // "x,y" pairs keeps formatting and the frontend's parsing cheap.
          std::string body = fmt::format(R"({{"from":"{}","to":"{}","eta_s":{:.3f},"path":")",
                                         FormatLocation(*from), FormatLocation(*to), eta_s);
          const size_t target = static_cast<size_t>(std::max<int64_t>(o.response_bytes, 64));
          for (int64_t i = 0; body.size() + 2 < target; ++i) {
            const int64_t step = i % 1000;
            fmt::format_to(std::back_inserter(body), "{}{},{}", i ? " " : "",
                           from->x + (to->x - from->x) * step / 1000,
                           from->y + (to->y - from->y) * step / 1000);
          }
          body += "\"}";
          span.SetInt("route.bytes", static_cast<int64_t>(body.size()));
          res.status = 200;
          res.set_content(body, "application/json");
        }));
  });
}

}  // namespace causeway::demo
