// `causeway serve`'s defences: what a client may open, who may connect, and that malformed
// or abandoned requests get an error, not a crash. Each test's server is killed at its end
// (testing::ServeProcess).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/serve_process.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kApi = "/tsp/api";

// The trace every test serves: a real LTTng kernel trace (no spans: threads and events).
std::string Trace() { return testing::TestTrace("lttng/many-threads"); }

// A JSON error body ({"title": ...}) with `status`.
void ExpectJsonError(const httplib::Result& r, int status) {
  ASSERT_TRUE(r) << "no answer";
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << r->body;
  const json body = json::parse(r->body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << r->body;
  EXPECT_TRUE(body.contains("title")) << r->body;
}

httplib::Result Post(httplib::Client& c, const std::string& path, const json& body) {
  return c.Post((kApi + path).c_str(), body.dump(), "application/json");
}

std::string FirstExperiment(httplib::Client& c) {
  auto r = c.Get((kApi + "/experiments").c_str());
  if (!r || r->status != 200) return "";
  const json j = json::parse(r->body);
  return j.empty() ? "" : j[0]["UUID"].get<std::string>();
}

TEST(ServeSecurityTest, TracePathsOutsideTheRootsAreRefused) {
  testing::TempDir tmp;
  const std::string root = tmp.path() + "/root";
  fs::create_directories(root);
  fs::copy(Trace(), root + "/trace", fs::copy_options::recursive);
  // A link inside the root to a trace outside it, and a trace outside.
  fs::copy(Trace(), tmp.path() + "/outside", fs::copy_options::recursive);
  fs::create_directory_symlink(tmp.path() + "/outside", root + "/link");

  testing::ServeProcess serve({"--root", root, "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  httplib::Client c("127.0.0.1", serve.port());
  for (const std::string& path :
       {std::string("/etc"), tmp.path() + "/outside", root + "/../outside", root + "/link",
        std::string("/nonexistent/trace")}) {
    SCOPED_TRACE(path);
    ExpectJsonError(Post(c, "/traces", {{"parameters", {{"uri", path}}}}), 403);
  }
  // Inside: opened, and analysed as an experiment.
  auto ok = Post(c, "/traces", {{"parameters", {{"uri", root + "/trace"}}}});
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  const std::string uuid = json::parse(ok->body)["UUID"];
  auto e = Post(c, "/experiments", {{"parameters", {{"name", "x"}, {"traces", {uuid}}}}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 200) << e->body;
  EXPECT_GT(json::parse(e->body)["nbEvents"].get<int64_t>(), 0);
  // A directory inside the root with no trace: 404, not 403.
  fs::create_directories(root + "/empty");
  ExpectJsonError(Post(c, "/traces", {{"parameters", {{"uri", root + "/empty"}}}}), 404);
}

// Whether the kernel lists a listening TCP socket on `port` bound to 127.0.0.1 only.
bool ListensOnLoopbackOnly(int port) {
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  char want[16];
  std::snprintf(want, sizeof want, "0100007F:%04X", port);
  bool found = false;
  while (std::getline(tcp, line)) {
    if (line.find(want) != std::string::npos && line.find(" 0A ") != std::string::npos)
      found = true;
    char any[16];
    std::snprintf(any, sizeof any, "00000000:%04X", port);
    if (line.find(any) != std::string::npos) return false;
  }
  return found;
}

TEST(ServeSecurityTest, BindsLoopbackByDefault) {
  testing::ServeProcess serve({Trace(), "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  EXPECT_EQ(serve.host(), "127.0.0.1");
  EXPECT_TRUE(ListensOnLoopbackOnly(serve.port()));
}

// A second server on the port of a running one fails: it must not share the port (and
// take some of the first one's connections).
TEST(ServeSecurityTest, APortInUseIsRefused) {
  testing::ServeProcess first({Trace(), "--port", "0"});
  ASSERT_TRUE(first.started()) << first.output();
  // Under `timeout`: a second server that did bind would serve until killed.
  const auto second =
      testing::RunCommand("(timeout 30 " + std::string(CAUSEWAY_CLI) + " serve " + Trace() +
                          " --port " + std::to_string(first.port()) + " 2>&1)");
  EXPECT_EQ(second.exit_code, 1) << second.out;
  EXPECT_NE(second.out.find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << second.out;
  EXPECT_EQ(second.out.find("listening on"), std::string::npos) << second.out;
}

TEST(ServeSecurityTest, OtherAddressesNeedAToken) {
  for (const char* address : {"0.0.0.0", "::", "192.0.2.1"}) {
    std::string err;
    const auto r =
        testing::RunCli(std::string("serve ") + Trace() + " --port 0 --bind " + address, &err);
    EXPECT_EQ(r.exit_code, 2) << address;
    EXPECT_NE(err.find("--token"), std::string::npos) << err;
    EXPECT_EQ(r.out, "");  // never listened
  }
}

TEST(ServeSecurityTest, TokenIsEnforcedOnEveryRequest) {
  // Bound to loopback (tests keep their traffic there): a token given is enforced the same.
  testing::ServeProcess serve({Trace(), "--port", "0", "--token", "s3cret-token"});
  ASSERT_TRUE(serve.started()) << serve.output();
  httplib::Client c("127.0.0.1", serve.port());
  ExpectJsonError(c.Get((kApi + "/health").c_str()), 401);
  ExpectJsonError(c.Get((kApi + "/health").c_str(), {{"Authorization", "Bearer wrong-token!"}}),
                  401);
  ExpectJsonError(c.Get((kApi + "/health").c_str(), {{"Authorization", "Bearer s3cret-toke"}}),
                  401);
  ExpectJsonError(c.Get("/", {{"Authorization", "Basic czNjcmV0LXRva2Vu"}}), 401);
  auto ok = c.Get((kApi + "/health").c_str(), {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json::parse(ok->body)["status"], "UP");
  auto query = c.Get((kApi + "/experiments?access_token=s3cret-token").c_str());
  ASSERT_TRUE(query);
  EXPECT_EQ(query->status, 200);
}

TEST(ServeSecurityTest, MalformedRequestsGetJsonErrors) {
  testing::ServeProcess serve({Trace(), "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  httplib::Client c("127.0.0.1", serve.port());
  const std::string exp = FirstExperiment(c);
  ASSERT_FALSE(exp.empty());
  const std::string out = "/experiments/" + exp + "/outputs/";

  ExpectJsonError(c.Post((kApi + "/traces").c_str(), "{not json", "application/json"), 400);
  ExpectJsonError(c.Post((kApi + "/traces").c_str(), "[1,2]", "application/json"), 400);
  ExpectJsonError(Post(c, "/traces", json::object()), 400);                     // no parameters
  ExpectJsonError(Post(c, "/traces", {{"parameters", {{"name", "x"}}}}), 400);  // no uri
  ExpectJsonError(Post(c, "/traces", {{"parameters", {{"uri", 42}}}}), 400);
  ExpectJsonError(Post(c, "/experiments", {{"parameters", {{"name", "x"}}}}), 400);
  ExpectJsonError(
      Post(c, "/experiments", {{"parameters", {{"name", "x"}, {"traces", {"no-such-uuid"}}}}}),
      404);
  ExpectJsonError(c.Get((kApi + "/experiments/no-such-uuid").c_str()), 404);
  ExpectJsonError(c.Get((kApi + "/traces/no-such-uuid").c_str()), 404);
  ExpectJsonError(Post(c, "/experiments/no-such-uuid/outputs/timeGraph/causeway.threads/tree",
                       {{"parameters", json::object()}}),
                  404);
  ExpectJsonError(Post(c, out + "timeGraph/no.such.output/tree", {{"parameters", json::object()}}),
                  404);
  ExpectJsonError(Post(c, out + "XY/causeway.threads/tree", {{"parameters", json::object()}}), 404);
  ExpectJsonError(c.Get("/no/such/path"), 404);
  // States without a time range, with a reversed one, with times that are not numbers.
  ExpectJsonError(
      Post(c, out + "timeGraph/causeway.threads/states", {{"parameters", json::object()}}), 400);
  ExpectJsonError(Post(c, out + "timeGraph/causeway.threads/states",
                       {{"parameters", {{"requested_timerange", {{"start", 10}, {"end", 5}}}}}}),
                  400);
  ExpectJsonError(Post(c, out + "timeGraph/causeway.threads/states",
                       {{"parameters", {{"requested_timerange", {{"start", "x"}, {"end", 5}}}}}}),
                  400);
  ExpectJsonError(Post(c, out + "timeGraph/causeway.threads/states",
                       {{"parameters",
                         {{"requested_timerange", {{"start", 1}, {"end", 5}, {"nbTimes", -3}}}}}}),
                  400);
  ExpectJsonError(Post(c, out + "table/causeway.events/lines",
                       {{"parameters", {{"requested_table_index", 0}}}}),
                  400);  // no count
  ExpectJsonError(
      Post(c, out + "table/causeway.events/lines",
           {{"parameters", {{"requested_table_index", -1}, {"requested_table_count", 5}}}}),
      400);
  // No spans: the request outputs say so.
  ExpectJsonError(
      Post(c, out + "timeGraph/causeway.critical_path/tree", {{"parameters", json::object()}}),
      404);
  // A body larger than the server takes.
  ExpectJsonError(c.Post((kApi + "/traces").c_str(), std::string(2 << 20, ' '), "application/json"),
                  413);

  // Still serving.
  auto h = c.Get((kApi + "/health").c_str());
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
}

TEST(ServeSecurityTest, HugeCountsAreClamped) {
  testing::ServeProcess serve({Trace(), "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  httplib::Client c("127.0.0.1", serve.port());
  const std::string exp = FirstExperiment(c);
  const json e = json::parse(c.Get((kApi + "/experiments/" + exp).c_str())->body);
  const std::string out = "/experiments/" + exp + "/outputs/";
  auto lines =
      Post(c, out + "table/causeway.events/lines",
           {{"parameters", {{"requested_table_index", 0}, {"requested_table_count", 2000000000}}}});
  ASSERT_TRUE(lines);
  ASSERT_EQ(lines->status, 200) << lines->body;
  const size_t n = json::parse(lines->body)["model"]["lines"].size();
  EXPECT_EQ(n, std::min<size_t>(10000, e["nbEvents"].get<size_t>()));

  auto states = Post(c, out + "timeGraph/causeway.threads/states",
                     {{"parameters",
                       {{"requested_timerange",
                         {{"start", e["start"]}, {"end", e["end"]}, {"nbTimes", 4000000000LL}}},
                        {"requested_items", {1, 2, 3}}}}});
  ASSERT_TRUE(states);
  ASSERT_EQ(states->status, 200) << states->body.substr(0, 200);
  // The parsed document is named: a range-for over a member of a temporary would read freed
  // memory (the temporary dies before the loop runs).
  const json states_doc = json::parse(states->body);
  for (const json& row : states_doc["model"]["rows"])
    EXPECT_LE(row["states"].size(), 2u * 65536 + 2);

  auto xy = Post(c, out + "XY/causeway.cpu_usage/xy",
                 {{"parameters",
                   {{"requested_timerange",
                     {{"start", e["start"]}, {"end", e["end"]}, {"nbTimes", 1LL << 40}}},
                    {"requested_items", {1}}}}});
  ASSERT_TRUE(xy);
  ASSERT_EQ(xy->status, 200);
  const json xy_doc = json::parse(xy->body);
  for (const json& s : xy_doc["model"]["series"]) EXPECT_EQ(s["yValues"].size(), 65536u);
}

// Opens a connection, sends `request`, reads `read_bytes` of the answer, then resets the
// connection (SO_LINGER 0): the server's write fails mid-answer.
void AbandonMidAnswer(int port, const std::string& request, size_t read_bytes) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  int rcvbuf = 4096;  // a small window: the server blocks writing, then sees the reset
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  ASSERT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string got(read_bytes, '\0');
  size_t have = 0;
  while (have < read_bytes) {
    const ssize_t n = recv(fd, got.data() + have, read_bytes - have, 0);
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(fd);
}

TEST(ServeSecurityTest, SurvivesClientsThatDisconnectMidAnswer) {
  testing::ServeProcess serve({Trace(), "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  httplib::Client c("127.0.0.1", serve.port());
  const std::string exp = FirstExperiment(c);
  const json e = json::parse(c.Get((kApi + "/experiments/" + exp).c_str())->body);
  // A large answer: every thread's states at the finest resolution.
  const std::string body =
      json{{"parameters",
            {{"requested_timerange",
              {{"start", e["start"]}, {"end", e["end"]}, {"nbTimes", 65536}}}}}}
          .dump();
  const std::string request = "POST " + kApi + "/experiments/" + exp +
                              "/outputs/timeGraph/causeway.threads/states HTTP/1.1\r\nHost: x\r\n"
                              "Content-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t read : {0u, 100u, 20000u, 0u, 100u}) AbandonMidAnswer(serve.port(), request, read);
  // A half-sent request, then closed.
  AbandonMidAnswer(serve.port(), request.substr(0, request.size() / 2), 0);
  auto h = c.Get((kApi + "/health").c_str());
  ASSERT_TRUE(h) << "the server did not survive";
  EXPECT_EQ(h->status, 200);
  // And still answers the full request.
  auto full =
      c.Post((kApi + "/experiments/" + exp + "/outputs/timeGraph/causeway.threads/states").c_str(),
             body, "application/json");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 200);
  EXPECT_GT(full->body.size(), 20000u);
  EXPECT_EQ(serve.Stop(SIGINT), 0) << "SIGINT: a clean stop";
}

}  // namespace
}  // namespace causeway
