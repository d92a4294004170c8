// The page cache events of `causeway record`, for real: a file read cold (its pages dropped
// from the cache) then warm, each under the recorder; `causeway io` must see the first read
// miss and the second hit. Serial: it drops the file's pages from the page cache. Needs
// root, a kernel with BTF and the filemap tracepoints, and a temporary directory on a disk
// (tmpfs pages cannot be dropped); elsewhere it skips with the reason.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/recording.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::RunCli;
using testing::RunCommand;
using testing::TempDir;

constexpr long kTmpfsMagic = 0x01021994;
constexpr size_t kFileBytes = 8 << 20;  // 2048 pages of 4 KiB

// The row of `causeway io --format json` for (dev, inode) read by `process`; null if none.
nlohmann::json RowOf(const std::string& dir, const std::string& dev, uint64_t inode,
                     const std::string& process) {
  std::string err;
  const auto r = RunCli("io " + dir + " --format json --limit 0", &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  if (r.exit_code != 0) return nullptr;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["page_cache"]["recorded"].get<bool>()) << r.out;
  for (const auto& f : j["page_cache"]["files"])
    if (f["dev"] == dev && f["inode"] == inode && f["process"] == process) return f;
  ADD_FAILURE() << "no row for " << process << " reading " << dev << " inode " << inode
                << " in: " << j["page_cache"].dump();
  return nullptr;
}

TEST(RecordPageCacheTest, ColdReadMissesWarmReadHits) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (RunCommand("bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "
                 "btf_trace_mm_filemap_get_pages")
          .exit_code != 0)
    GTEST_SKIP()
        << "Skipped: this kernel has no mm_filemap_get_pages tracepoint (recent kernels have it)";
  TempDir tmp;
  struct statfs fs {};
  ASSERT_EQ(statfs(tmp.path().c_str(), &fs), 0);
  if (fs.f_type == kTmpfsMagic)
    GTEST_SKIP() << "Skipped: " << tmp.path() << " is on tmpfs, whose pages cannot be dropped";

  // A file of random bytes (no filesystem shortcut for zeros), on the disk.
  const std::string file = tmp.path() + "/data";
  {
    std::vector<char> bytes(kFileBytes);
    unsigned x = 12345;
    for (char& c : bytes) c = static_cast<char>((x = x * 1103515245 + 12345) >> 16);
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  struct stat st {};
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  const std::string dev = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  const uint64_t inode = st.st_ino;
  const uint64_t pages = kFileBytes / 4096;

  // Cold: written back, then dropped from the cache (clean pages of the whole machine).
  ASSERT_EQ(RunCommand("sync '" + file + "' && echo 1 > /proc/sys/vm/drop_caches").exit_code, 0);
  const std::string read = " --no-http -- dd if=" + file + " of=/dev/null bs=128k";
  std::string err;
  ASSERT_EQ(RunCli("record -o " + tmp.path() + "/cold" + read, &err).exit_code, 0) << err;
  // Warm: the same read again, every page in the cache now.
  ASSERT_EQ(RunCli("record -o " + tmp.path() + "/warm" + read, &err).exit_code, 0) << err;

  const nlohmann::json cold = RowOf(tmp.path() + "/cold", dev, inode, "dd");
  const nlohmann::json warm = RowOf(tmp.path() + "/warm", dev, inode, "dd");
  ASSERT_FALSE(cold.is_null());
  ASSERT_FALSE(warm.is_null());
  std::printf("cold: %s\nwarm: %s\n", cold.dump().c_str(), warm.dump().c_str());
  // Every page read once, each read counted once however many batches it took.
  EXPECT_EQ(cold["pages_read"].get<uint64_t>(), pages);
  EXPECT_EQ(warm["pages_read"].get<uint64_t>(), pages);
  EXPECT_GT(cold["miss_ratio"].get<double>(), 0.5);
  EXPECT_LT(warm["miss_ratio"].get<double>(), 0.1);
}

}  // namespace
}  // namespace causeway
