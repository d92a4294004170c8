// `causeway serve` on a recording `causeway index` has indexed: the analysis comes from the
// index (it says so), and every view it answers is the one it answers reading the trace.
#include <string>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/serve_process.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using nlohmann::json;

const std::string kApi = "/tsp/api";

// What a viewer asks first, as the bodies the server answered: the experiment (minus its
// UUIDs, new each start), the thread tree, 20 threads' states and the arrows at 300 pixels,
// the requests tree, and the slowest request's critical path.
std::vector<std::string> FirstViews(const testing::ServeProcess& serve) {
  httplib::Client c("127.0.0.1", serve.port());
  std::vector<std::string> out;
  auto exps = c.Get((kApi + "/experiments").c_str());
  if (!exps || exps->status != 200) {
    ADD_FAILURE() << "no experiments";
    return out;
  }
  json e = json::parse(exps->body).at(0);
  const std::string uuid = e["UUID"];
  e.erase("UUID");
  for (json& t : e["traces"]) t.erase("UUID");
  out.push_back(e.dump());
  const std::string outputs = kApi + "/experiments/" + uuid + "/outputs/";
  auto post = [&](const std::string& path, const json& parameters) {
    auto r = c.Post((outputs + path).c_str(), json{{"parameters", parameters}}.dump(),
                    "application/json");
    EXPECT_TRUE(r && r->status == 200) << path << ": " << (r ? r->body : "no answer");
    return r ? json::parse(r->body, nullptr, false) : json();
  };
  const json range = {{"start", e["start"]}, {"end", e["end"]}, {"nbTimes", 300}};
  out.push_back(post("timeGraph/causeway.threads/tree", json::object()).dump());
  const json rows = json::array({1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 100, 110, 120, 130});
  out.push_back(post("timeGraph/causeway.threads/states",
                     {{"requested_timerange", range}, {"requested_items", rows}})
                    .dump());
  out.push_back(post("timeGraph/causeway.threads/arrows", {{"requested_timerange", range}}).dump());
  const json requests = post("data/causeway.requests/tree", json::object());
  out.push_back(requests.dump());
  return out;
}

TEST(ServeIndexTest, AnIndexedRecordingIsServedFromItsIndexWithTheSameViews) {
  testing::TempDir tmp;
  const std::string dir = testing::UnpackDemoRecording(tmp, "lock");
  std::string err;
  ASSERT_EQ(testing::RunCli("index " + dir, &err).exit_code, 0) << err;

  testing::ServeProcess indexed({dir, "--port", "0"});
  ASSERT_TRUE(indexed.started()) << indexed.output();
  EXPECT_NE(indexed.output().find("using the index built"), std::string::npos) << indexed.output();
  testing::ServeProcess read({dir, "--port", "0", "--no-index"});
  ASSERT_TRUE(read.started()) << read.output();
  EXPECT_EQ(read.output().find("index"), std::string::npos) << read.output();

  const std::vector<std::string> from_index = FirstViews(indexed);
  const std::vector<std::string> from_trace = FirstViews(read);
  ASSERT_EQ(from_index.size(), 5u);
  ASSERT_EQ(from_trace.size(), from_index.size());
  for (size_t i = 0; i < from_index.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_GT(from_index[i].size(), 20u) << from_index[i];
    EXPECT_TRUE(from_index[i] == from_trace[i])
        << "differs from the trace's: " << from_index[i].substr(0, 500);
  }
  EXPECT_EQ(indexed.Stop(SIGTERM), 0);
  EXPECT_EQ(read.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace causeway
