// Whether `causeway record` can run here, for the tests that record this machine: each
// such test starts with SKIP_UNLESS_RECORDING_WORKS(), which skips it (a skip, never a pass)
// with the reason printed when the recorder was not built (CAUSEWAY_RECORD=OFF), the test
// does not run as root, or the kernel has no BTF.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace causeway::testing {

struct RecordingNeeds {
  bool cpu_cgroup = false;  // the demo's cpu fault: a cpu cgroup controller
};

// Why this build has no recorder (CAUSEWAY_RECORD=OFF); empty when it has one.
std::string WhyNoRecorder();
// Why recording cannot work on this machine or in this build; empty when it can.
std::string WhyCannotRecord(const RecordingNeeds& needs = {});

}  // namespace causeway::testing

// For the tests of `causeway record` that need no root: its usage errors, say.
#define SKIP_UNLESS_RECORDER_BUILT()                              \
  do {                                                            \
    const std::string why = ::causeway::testing::WhyNoRecorder(); \
    if (!why.empty()) GTEST_SKIP() << "Skipped: " << why;         \
  } while (0)

#define SKIP_UNLESS_RECORDING_WORKS(...)                                       \
  do {                                                                         \
    const std::string why = ::causeway::testing::WhyCannotRecord(__VA_ARGS__); \
    if (!why.empty()) GTEST_SKIP() << "Skipped: " << why;                      \
  } while (0)
