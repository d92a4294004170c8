// `causeway record` of writes to a slow device, for real: a loop device over a file, a blkio
// cgroup (v1) throttling writes to it, and `dd` writing with O_DIRECT from that cgroup. Its
// waits must show as BLOCK_QUEUE (throttled) far longer than BLOCK_DEVICE.
// Needs root, a kernel with BTF, cgroup v1's blkio controller and losetup; elsewhere the test
// skips with the reason. Everything it creates (cgroup, loop device, image) is removed, also
// when it fails.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/recording.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using testing::RunCli;
using testing::RunCommand;

constexpr const char* kBlkio = "/sys/fs/cgroup/blkio";

// A loop device over an image file and a blkio cgroup throttling it, torn down in reverse
// order by the destructor whatever happened in between.
class ThrottledLoopDevice {
 public:
  ThrottledLoopDevice(const std::string& dir, int write_iops) {
    image_ = dir + "/disk.img";
    if (RunCommand("truncate -s 16M '" + image_ + "'").exit_code != 0) {
      why_ = "cannot create " + image_;
      return;
    }
    const testing::CommandResult loop = RunCommand("losetup -f --show '" + image_ + "'");
    if (loop.exit_code != 0 || loop.out.empty()) {
      why_ = "losetup cannot attach a loop device";
      return;
    }
    device_ = loop.out.substr(0, loop.out.find('\n'));
    struct stat st {};
    if (::stat(device_.c_str(), &st) != 0) {
      why_ = "cannot stat " + device_;
      return;
    }
    major_minor_ = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    cgroup_ = std::string(kBlkio) + "/causeway-block-test-" + std::to_string(::getpid());
    std::error_code ec;
    if (!fs::create_directory(cgroup_, ec)) {
      why_ = "cannot create " + cgroup_ + ": " + ec.message();
      cgroup_.clear();
      return;
    }
    std::ofstream(cgroup_ + "/blkio.throttle.write_iops_device")
        << major_minor_ << " " << write_iops << "\n";
  }
  ~ThrottledLoopDevice() {
    // The recorded command has exited, so the cgroup is empty and can go.
    if (!cgroup_.empty()) ::rmdir(cgroup_.c_str());
    if (!device_.empty()) RunCommand("losetup -d '" + device_ + "'");
    std::error_code ec;
    fs::remove(image_, ec);
  }
  const std::string& why_not() const { return why_; }
  const std::string& device() const { return device_; }
  const std::string& major_minor() const { return major_minor_; }
  const std::string& cgroup() const { return cgroup_; }

 private:
  std::string image_, device_, major_minor_, cgroup_, why_;
};

TEST(RecordBlockThrottleTest, ThrottledWritesWaitInTheQueueNotOnTheDevice) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!fs::exists(std::string(kBlkio) + "/blkio.throttle.write_iops_device"))
    GTEST_SKIP() << "Skipped: no cgroup v1 blkio throttle at " << kBlkio;
  if (!testing::HaveProgram("losetup")) GTEST_SKIP() << "Skipped: losetup missing";
  testing::TempDir tmp;
  ThrottledLoopDevice dev(tmp.path(), /*write_iops=*/5);
  ASSERT_TRUE(dev.why_not().empty()) << dev.why_not();

  // 10 direct writes at 5 per second: about 2 s, nearly all of it in the throttle.
  const std::string rec = tmp.path() + "/rec";
  std::string err;
  const testing::CommandResult recorded =
      RunCli("record -o '" + rec + "' -- sh -c 'echo $$ > " + dev.cgroup() +
                 "/cgroup.procs && exec dd if=/dev/zero of=" + dev.device() +
                 " bs=4096 count=10 oflag=direct status=none'",
             &err);
  ASSERT_EQ(recorded.exit_code, 0) << err;

  const testing::CommandResult threads = RunCli("threads '" + rec + "' --format json", &err);
  ASSERT_EQ(threads.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(threads.out);
  int dd = -1;
  int64_t queued = 0, device = 0;
  for (const auto& t : j["threads"]) {
    if (t["name"] != "dd") continue;
    dd = t["tid"];
    queued = t["by_state"].value("BLOCK_QUEUE", int64_t{0});
    device = t["by_state"].value("BLOCK_DEVICE", int64_t{0});
  }
  ASSERT_GT(dd, 0) << "no dd thread in " << threads.out;
  EXPECT_GT(j["counters"]["block_requests_matched"], 0) << threads.out;
  EXPECT_GT(j["counters"]["block_waits_split"], 0) << threads.out;
  // The throttle let 5 writes a second through: most of 2 s queued, the device's time
  // (a loop device over a file in the page cache) a small part of it.
  EXPECT_GT(queued, 1'000'000'000) << threads.out;
  EXPECT_GT(queued, 10 * device) << "queued " << queued << " ns, on the device " << device;

  // dd's critical path says why: the throttle, on this device.
  const testing::CommandResult path =
      RunCli("critpath '" + rec + "' --tid " + std::to_string(dd) + " --format json", &err);
  ASSERT_EQ(path.exit_code, 0) << err;
  const auto p = nlohmann::json::parse(path.out);
  int64_t throttled = 0;
  for (const auto& s : p["segments"])
    if (s["state"] == "BLOCK_QUEUE" &&
        s["qualifier"] == "blkio throttle, disk " + dev.major_minor())
      throttled += s["duration_ns"].get<int64_t>();
  EXPECT_GT(throttled, 1'000'000'000) << path.out;
  const int64_t path_device = p["summary"]["by_state"].value("BLOCK_DEVICE", int64_t{0});
  EXPECT_GT(throttled, 10 * path_device) << path.out;
}

}  // namespace
}  // namespace causeway
