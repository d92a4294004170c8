// causeway sync end to end on written traces: two hosts whose clocks differ by a known
// drift (1e-4) and offset (2 s), exchanging TCP segments both ways; a third host that
// exchanged nothing is reported as not connected.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/writer/ctf_writer.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

struct Seg {
  int64_t ts;
  bool send;
  uint32_t seq, ack;
  uint8_t flags;
};

void WriteHost(const std::string& dir, const std::string& host, std::vector<Seg> segs) {
  std::sort(segs.begin(), segs.end(), [](const Seg& a, const Seg& b) { return a.ts < b.ts; });
  ctf::TraceOptions opts;
  opts.hostname = host;
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter kernel(**w);
  ASSERT_TRUE(kernel.status().ok()) << kernel.status().ToString();
  for (const Seg& s : segs)
    kernel.Tcp(0, static_cast<uint64_t>(s.ts), s.send,
               {.seq = s.seq, .ack_seq = s.ack, .flags = s.flags});
  ASSERT_TRUE((*w)->Close().ok());
}

TEST(SyncCommandTest, RecoversAKnownDriftAndOffsetBetweenTwoHosts) {
  testing::TempDir tmp;
  const long double drift = 1.0001L, offset = 2e9L;
  const int64_t t0 = 1'795'337'846'000'000'000;
  auto beta_clock = [&](int64_t alpha_time) {
    return static_cast<int64_t>(std::llround(alpha_time * drift + offset - t0 * (drift - 1)));
  };
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> tail(1.0 / 3000);
  auto latency = [&] { return 8000 + static_cast<int64_t>(tail(rng)); };
  std::vector<Seg> alpha, beta, gamma;
  uint32_t seq = 1000;
  for (int i = 0; i < 500; ++i) {  // 5 s: a request alpha -> beta, a reply beta -> alpha
    const int64_t send = t0 + i * 10'000'000LL;
    const int64_t recv = send + latency();
    alpha.push_back({send, true, seq, 77, 0x18});
    beta.push_back({beta_clock(recv), false, seq, 77, 0x18});
    const int64_t reply = recv + 50'000;
    const int64_t back = reply + latency();
    beta.push_back({beta_clock(reply), true, 77, seq + 64, 0x18});
    alpha.push_back({back, false, 77, seq + 64, 0x18});
    seq += 64;
  }
  gamma.push_back({t0, true, 1, 2, 0x10});  // never received anywhere
  WriteHost(tmp.path() + "/alpha", "alpha", alpha);
  WriteHost(tmp.path() + "/beta", "beta", beta);
  WriteHost(tmp.path() + "/gamma", "gamma", gamma);

  std::string err;
  auto r = testing::RunCli("sync " + tmp.path() + " --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["matched_across_hosts"], 1000);
  EXPECT_EQ(j["unmatched"], 1);
  ASSERT_EQ(j["pairs"].size(), 1u);
  EXPECT_EQ(j["pairs"][0]["quality"], "accurate");
  EXPECT_EQ(j["pairs"][0]["a_to_b"], 500);
  EXPECT_EQ(j["pairs"][0]["b_to_a"], 500);
  ASSERT_EQ(j["hosts"].size(), 3u);
  const auto& a = j["hosts"][0];
  const auto& b = j["hosts"][1];
  const auto& g = j["hosts"][2];
  EXPECT_EQ(a["host"], "alpha");
  EXPECT_TRUE(a["reference"].get<bool>());
  EXPECT_EQ(b["via"], "alpha");
  EXPECT_FALSE(g["connected"].get<bool>());
  // beta -> alpha undoes the skew to within 1 us over the 5 s.
  const long double s = b["slope"].get<double>(), o = b["offset_ns"].get<double>();
  // The slope is known to (latency jitter of the fastest messages) / duration.
  EXPECT_NEAR(static_cast<double>(s * drift), 1.0, 2e-7);
  for (int64_t t = t0; t <= t0 + 5'000'000'000LL; t += 500'000'000) {
    const long double back = s * beta_clock(t) + o;
    EXPECT_NEAR(static_cast<double>(back - t), 0.0, 1000.0) << "at " << t;
  }
  EXPECT_LT(b["accuracy_ns"].get<double>(), 10'000);

  // Another reference, and a bad one.
  r = testing::RunCli("sync " + tmp.path() + " --reference beta", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(r.out.find("(reference)"), std::string::npos);
  EXPECT_NE(r.out.find("gamma                not connected"), std::string::npos) << r.out;
  r = testing::RunCli("sync " + tmp.path() + " --reference delta", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("Unknown reference host 'delta' (hosts: alpha, beta, gamma)"),
            std::string::npos)
      << err;
}

// One host's clock an hour ahead: merged on raw timestamps, all of alpha's trace is read
// before beta's and every segment waits for its partner. The two-step procedure (shifted
// starts, then the coarse transform, with expiry) keeps a handful waiting and gives exactly
// the one-step result.
TEST(SyncCommandTest, TwoStepBoundsTheSegmentsWaitingWhenOneTraceIsFarAhead) {
  testing::TempDir tmp;
  const int64_t t0 = 1'795'337'846'000'000'000, hour = 3'600'000'000'000;
  auto beta_clock = [&](int64_t t) { return t + hour + (t - t0) / 20'000; };  // +50 ppm
  std::vector<Seg> alpha, beta;
  const int kMessages = 3000;
  for (int i = 0; i < kMessages; ++i) {  // 30 s of request/reply every 10 ms
    const int64_t send = t0 + i * 10'000'000LL;
    const auto seq = static_cast<uint32_t>(1000 + 64 * i);
    alpha.push_back({send, true, seq, 77, 0x18});
    beta.push_back({beta_clock(send + 9000 + (i * 7919) % 4000), false, seq, 77, 0x18});
    beta.push_back({beta_clock(send + 60'000), true, 77, seq + 64, 0x18});
    alpha.push_back({send + 70'000 + (i * 104729) % 5000, false, 77, seq + 64, 0x18});
  }
  WriteHost(tmp.path() + "/alpha", "alpha", alpha);
  WriteHost(tmp.path() + "/beta", "beta", beta);

  std::string err;
  auto one = testing::RunCli("sync --one-step --format json " + tmp.path(), &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  auto two = testing::RunCli("sync --format json " + tmp.path(), &err);
  ASSERT_EQ(two.exit_code, 0) << err;
  const auto j1 = nlohmann::json::parse(one.out), j2 = nlohmann::json::parse(two.out);
  EXPECT_FALSE(j1["two_step"].get<bool>());
  ASSERT_TRUE(j2["two_step"].get<bool>());
  EXPECT_TRUE(j2["coarse_connected"].get<bool>());
  EXPECT_EQ(j1["matched_across_hosts"], 2 * kMessages);
  EXPECT_EQ(j2["matched_across_hosts"], 2 * kMessages);
  EXPECT_EQ(j2["expired"], 0);
  // One step: alpha's 3000 requests wait for beta (its replies wait too, minus those
  // matched in passing); two steps: a few at a time.
  EXPECT_GE(j1["fine_step"]["peak_pending"].get<int64_t>(), kMessages);
  EXPECT_LE(j2["coarse_step"]["peak_pending"].get<int64_t>(), 4);
  EXPECT_LE(j2["fine_step"]["peak_pending"].get<int64_t>(), 4);
  EXPECT_LT(j2["coarse_step"]["events_read"].get<int64_t>(), 4 * kMessages)
      << "the coarse step should stop once the hosts are linked";
  // The same messages, so the same hulls and the same exact transform.
  EXPECT_EQ(j1["hosts"][1]["transform"], j2["hosts"][1]["transform"]);
  EXPECT_EQ(j2["pairs"][0]["quality"], "accurate");
}

// The synchronization flags of the analyses, given garbage: a clear error naming the file
// or the host, before any analysis runs.
TEST(SyncCommandTest, AnalysesRefuseBadTransformsFilesAndUnknownReferences) {
  testing::TempDir tmp;
  const int64_t t0 = 1'795'337'846'000'000'000;
  WriteHost(tmp.path() + "/alpha", "alpha", {{t0, true, 1, 2, 0x18}});
  WriteHost(tmp.path() + "/beta", "beta", {{t0 + 5000, false, 1, 2, 0x18}});
  const std::string bad = tmp.path() + "/clocks.json";
  std::ofstream(bad) << R"({"hosts": [{"host": "beta", "connected": true}]})";
  std::string err;
  for (const char* cmd : {"threads", "critpath --tid 1"}) {
    SCOPED_TRACE(cmd);
    auto r = testing::RunCli(std::string(cmd) + " " + tmp.path() + " --transforms " + bad, &err);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(err.find("Cannot read clock transforms: file=" + bad +
                       ": hosts[0].transform: missing for a connected host"),
              std::string::npos)
        << err;
    r = testing::RunCli(
        std::string(cmd) + " " + tmp.path() + " --transforms " + tmp.path() + "/none.json", &err);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(err.find("none.json: cannot open"), std::string::npos) << err;
    r = testing::RunCli(std::string(cmd) + " " + tmp.path() + " --sync-reference delta", &err);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(err.find("Unknown reference host 'delta' (hosts: alpha, beta)"), std::string::npos)
        << err;
    r = testing::RunCli(std::string(cmd) + " " + tmp.path() + " --no-sync --transforms " + bad,
                        &err);
    EXPECT_NE(r.exit_code, 0) << "--no-sync and --transforms exclude each other";
  }
  auto r = testing::RunCli("sync " + tmp.path() + " --expiry -3", &err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(err.find("--expiry"), std::string::npos) << err;
}

// User-space traces hold no TCP segments: they are not read, and their hosts are not hosts
// to synchronize (a recording's user-space traces share the kernel trace's host anyway).
TEST(SyncCommandTest, UserSpaceTracesAreNotHostsToSynchronize) {
  testing::TempDir tmp;
  const int64_t t0 = 1'795'337'846'000'000'000;
  WriteHost(tmp.path() + "/alpha", "alpha", {{t0, true, 1, 2, 0x18}});
  WriteHost(tmp.path() + "/beta", "beta", {{t0 + 5000, false, 1, 2, 0x18}});
  const std::string ust = std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/memory";
  std::string err;
  auto r = testing::RunCli("sync " + tmp.path() + " " + ust + " --format json", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["hosts"].size(), 2u) << r.out;
  EXPECT_EQ(j["hosts"][0]["host"], "alpha");
  EXPECT_EQ(j["hosts"][1]["host"], "beta");
  EXPECT_EQ(j["matched_across_hosts"], 1);
  // Alone, they leave nothing to synchronize: said, not a crash or an empty result.
  r = testing::RunCli("sync " + ust, &err);
  EXPECT_EQ(r.exit_code, 2);  // as for other bad arguments of `causeway sync`
  EXPECT_NE(err.find("No kernel trace in " + ust), std::string::npos) << err;
}

}  // namespace
}  // namespace causeway
