#include "support/recording.h"

#include <unistd.h>

#include <filesystem>

namespace causeway::testing {

std::string WhyNoRecorder() {
  if (CAUSEWAY_RECORDER_BUILT) return "";
  return "causeway was built without the recorder (CMake -DCAUSEWAY_RECORD=OFF)";
}

std::string WhyCannotRecord(const RecordingNeeds& needs) {
  namespace fs = std::filesystem;
  if (std::string why = WhyNoRecorder(); !why.empty()) return why;
  if (geteuid() != 0) return "causeway record needs root (this test runs as a normal user)";
  if (!fs::exists("/sys/kernel/btf/vmlinux")) return "this kernel has no BTF";
  if (needs.cpu_cgroup && !fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") &&
      !fs::exists("/sys/fs/cgroup/cgroup.controllers"))
    return "no cpu cgroup controller (cpu fault)";
  return "";
}

}  // namespace causeway::testing
