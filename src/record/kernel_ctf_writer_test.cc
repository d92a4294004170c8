#include "record/kernel_ctf_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway::record {
namespace {

// The metadata's event declarations: from the first `event {` to the end.
std::string EventDeclarations(const std::string& dir) {
  std::ifstream in(dir + "/metadata");
  const std::string metadata(std::istreambuf_iterator<char>(in), {});
  const size_t first = metadata.find("\nevent {");
  EXPECT_NE(first, std::string::npos) << dir;
  return first == std::string::npos ? "" : metadata.substr(first);
}

// The tests write kernel traces with support/lttng_kernel_trace.h: its events must be the
// recorder's, with the same ids, fields and field types.
TEST(KernelCtfWriterTest, DeclaresTheEventsTheTestsWrite) {
  for (const bool syscalls : {false, true}) {
    SCOPED_TRACE(syscalls ? "with syscalls" : "without syscalls");
    testing::TempDir tmp;
    KernelTraceInfo info;
    info.hostname = "h";
    info.syscalls = syscalls;
    auto recorder = KernelCtfWriter::Create(tmp.path() + "/recorder", info);
    ASSERT_TRUE(recorder.ok()) << recorder.status().ToString();
    ASSERT_TRUE((*recorder)->Close().ok());

    auto w = ctf::CtfWriter::Create(tmp.path() + "/tests", ctf::TraceOptions{});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    testing::LttngKernelWriter kernel(**w, syscalls);
    ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
    ASSERT_TRUE((*w)->Close().ok());

    EXPECT_EQ(EventDeclarations(tmp.path() + "/tests"),
              EventDeclarations(tmp.path() + "/recorder"));
  }
}

}  // namespace
}  // namespace causeway::record
