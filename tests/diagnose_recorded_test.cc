// `causeway diagnose` and the levels of `causeway request` on demo recordings committed as
// test data (tests/data/recordings): the disk fault (demo-disk, without system calls;
// demo-disk-sys, with them) against a normal recording (demo-normal-sys) as baseline.
// The disk fault's requests are flagged and walked down to the block device.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_util.h"

namespace causeway {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::RunCli;
using testing::TempDir;
using testing::UnpackDemoRecording;

json Cli(const std::string& args) {
  std::string err;
  const auto res = RunCli(args, &err);
  EXPECT_EQ(res.exit_code, 0) << args << ": " << err;
  json j = json::parse(res.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << res.out;
  return j;
}

const json& Operation(const json& diagnosis, const std::string& name) {
  for (const json& o : diagnosis["operations"])
    if (o["operation"] == name) return o;
  ADD_FAILURE() << "no operation " << name << " in " << diagnosis["operations"].dump(1);
  static const json none = json::object();
  return none;
}

int64_t Named(const json& list, const std::string& name, const char* field = "ns") {
  for (const json& x : list)
    if (x["name"] == name) return x[field].get<int64_t>();
  return 0;
}

// `causeway diagnose` of the demo recording `name` against demo-normal-sys, as JSON: every
// abnormal request explained; its GET /dispatch has `requests` requests, all abnormal.
json DiagnoseAgainstNormal(const TempDir& tmp, const std::string& name, int requests) {
  const std::string normal = UnpackDemoRecording(tmp, "normal-sys");
  const json j = Cli("diagnose " + UnpackDemoRecording(tmp, name) + " --baseline " + normal +
                     " --format json --limit -1");
  const json& dispatch = Operation(j, "GET /dispatch");
  EXPECT_EQ(dispatch["requests"], requests);
  EXPECT_EQ(dispatch["abnormal"], requests);
  EXPECT_EQ(j["abnormal_requests"], requests);
  EXPECT_EQ(j["baseline"]["source"], normal);
  EXPECT_EQ(j["abnormal"].size(), static_cast<size_t>(requests));
  return j;
}

// The disk fault recorded on a quiet machine (demo-disk, no system calls) against the
// normal recording: every request abnormal, walked from the kernel state down to the device.
TEST(DiagnoseRecordedTest, DiskFaultIsWalkedDownToTheBlockDeviceAgainstNormalRequests) {
  TempDir tmp;
  const json j = DiagnoseAgainstNormal(tmp, "disk", 8);
  EXPECT_FALSE(j["syscalls_recorded"]);
  int64_t previous = INT64_MAX;
  for (const json& f : j["abnormal"]) {
    SCOPED_TRACE(f["trace_id"].get<std::string>());
    // Slowest first, each judged against the normal recording's 6 requests.
    EXPECT_LE(f["latency_ns"].get<int64_t>(), previous);
    previous = f["latency_ns"].get<int64_t>();
    EXPECT_EQ(f["verdict"], "abnormal");
    EXPECT_EQ(f["baseline"]["count"], 6);
    EXPECT_GT(f["ratio_to_median"].get<double>(), 2.0);
    EXPECT_TRUE(f["syscalls"].is_null());
    // Level 3: the device time is the most above normal; normal requests have none.
    EXPECT_GT(Named(f["states"], "BLOCK_DEVICE"), 0) << f["states"].dump(1);
    EXPECT_EQ(Named(f["states"], "BLOCK_DEVICE", "normal_ns"), 0);
    // Level 4: device time against block queue time, on a named disk.
    EXPECT_GT(Named(f["below"], "block device"), 5 * Named(f["below"], "block queue"))
        << f["below"].dump(1);
    ASSERT_FALSE(f["devices"].empty());
    EXPECT_NE(f["devices"][0]["name"].get<std::string>().find("disk"), std::string::npos)
        << f["devices"].dump();
    // The walk: BLOCK_DEVICE, then the block device, beside the normal requests.
    ASSERT_EQ(f["walk"].size(), 2u) << f["walk"].dump(1);
    EXPECT_EQ(f["walk"][0]["name"], "BLOCK_DEVICE");
    EXPECT_EQ(f["walk"][1]["name"], "block device");
    const std::string summary = f["summary"];
    EXPECT_NE(summary.find("BLOCK_DEVICE on the critical path; normal load GET /dispatch "
                           "requests spend 0 ns"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("in the block device"), std::string::npos) << summary;
  }
}

// The disk fault recorded with every system call: the requests are flagged, and the walk
// goes request -> fsync -> BLOCK_DEVICE -> the block device, each level against the normal
// requests' none. The fsync's device time is a kworker's (the path leaves the caller for
// the thread doing the I/O): it counts in the caller's fsync.
TEST(DiagnoseRecordedTest, DiskFaultWithSyscallsIsWalkedThroughFsyncToTheBlockDevice) {
  TempDir tmp;
  const json j = DiagnoseAgainstNormal(tmp, "disk-sys", 6);
  EXPECT_TRUE(j["syscalls_recorded"]);
  for (const json& f : j["abnormal"]) {
    SCOPED_TRACE(f["trace_id"].get<std::string>());
    ASSERT_TRUE(f["syscalls"].is_array()) << "no system call level: " << f.dump(1);
    // Level 2: fsync is the largest call, tens of ms; normal requests make none.
    ASSERT_FALSE(f["syscalls"].empty());
    EXPECT_EQ(f["syscalls"][0]["name"], "fsync") << f["syscalls"].dump(1);
    const int64_t fsync = Named(f["syscalls"], "fsync");
    EXPECT_GT(fsync, 10'000'000) << f["syscalls"].dump(1);
    EXPECT_EQ(Named(f["syscalls"], "fsync", "normal_ns"), 0);
    // Level 3: the device time, none in normal requests; level 4: on the disk.
    EXPECT_GT(Named(f["states"], "BLOCK_DEVICE"), fsync / 4) << f["states"].dump(1);
    EXPECT_EQ(Named(f["states"], "BLOCK_DEVICE", "normal_ns"), 0);
    EXPECT_GT(Named(f["below"], "block device"), 5 * Named(f["below"], "block queue"))
        << f["below"].dump(1);
    EXPECT_EQ(Named(f["below"], "block device", "normal_ns"), 0);
    ASSERT_EQ(f["walk"].size(), 3u) << f["walk"].dump(1);
    EXPECT_EQ(f["walk"][0]["level"], 2);
    EXPECT_EQ(f["walk"][0]["name"], "fsync");
    EXPECT_EQ(f["walk"][1]["name"], "BLOCK_DEVICE");
    EXPECT_EQ(f["walk"][2]["name"], "block device");
    EXPECT_NE(f["summary"].get<std::string>().find(
                  "in fsync on the critical path; normal load GET /dispatch requests spend 0 ns"),
              std::string::npos)
        << f["summary"];
  }
  // The index was built beside each recording and serves the next run.
  EXPECT_TRUE(fs::exists(tmp.path() + "/disk-sys/.causeway/state.cws"));
  EXPECT_TRUE(fs::exists(tmp.path() + "/disk-sys/.causeway/graph.cwg"));
}

TEST(DiagnoseRecordedTest, TextIsATreeAndRequestShowsTheSameLevels) {
  TempDir tmp;
  const std::string disk = UnpackDemoRecording(tmp, "disk");
  const std::string normal = UnpackDemoRecording(tmp, "normal-sys");
  std::string err;
  const auto text = RunCli("diagnose " + disk + " --baseline " + normal + " --limit 1", &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("8 abnormal requests (1 shown, slowest first)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("└─ below the kernel"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("=> "), std::string::npos) << text.out;
  // `request ID` of the slowest: the same levels, judged against this recording's own
  // requests of the operation (all of them slow alike).
  const json d = Cli("diagnose " + disk + " --baseline " + normal + " --format json --limit 1");
  ASSERT_EQ(d["abnormal"].size(), 1u);
  const json& slowest = d["abnormal"][0];
  const std::string id = slowest["trace_id"];
  const json r = Cli("request " + disk + " " + id + " --format json");
  ASSERT_TRUE(r.contains("levels")) << r.dump(1).substr(0, 2000);
  const json& levels = r["levels"];
  EXPECT_EQ(levels["trace_id"], id);
  EXPECT_EQ(levels["latency_ns"], slowest["latency_ns"]);
  EXPECT_EQ(Named(levels["states"], "BLOCK_DEVICE"), Named(slowest["states"], "BLOCK_DEVICE"));
  EXPECT_EQ(levels["syscalls"], slowest["syscalls"]);
  EXPECT_GE(levels["baseline"]["count"].get<int64_t>(), 4);
  // Its normal device time is that of its own slow neighbours: most of its own.
  EXPECT_GT(Named(levels["states"], "BLOCK_DEVICE", "normal_ns"),
            Named(levels["states"], "BLOCK_DEVICE") / 3);
  const auto request_text = RunCli("request " + disk + " " + id, &err);
  ASSERT_EQ(request_text.exit_code, 0) << err;
  EXPECT_NE(request_text.out.find("Top-down, against this recording's normal requests"),
            std::string::npos)
      << request_text.out;
}

// Without a baseline the recording is its own: its requests are alike (every one fsyncs), so
// at most its slowest stands out, and the levels still come with their normal means.
TEST(DiagnoseRecordedTest, OwnBaselineLeavesOutTheSlowRequests) {
  TempDir tmp;
  const std::string disk = UnpackDemoRecording(tmp, "disk-sys");
  const json j = Cli("diagnose " + disk + " --format json");
  EXPECT_EQ(j["baseline"]["source"], "self");
  for (const json& o : j["baseline"]["operations"]) {
    if (o["operation"] != "GET /dispatch") continue;
    EXPECT_GE(o["count"].get<int64_t>(), 4);  // of 6: the ones under 1.5 x the median
    EXPECT_GT(o["mean_ns"]["state/BLOCK_DEVICE"].get<int64_t>(), 0);
  }
}

}  // namespace
}  // namespace causeway
