// The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright
// (tests/browser/check_report.js). It must render every critical-path piece, the arrows
// between requests and the pie, follow a click, make no network request, and leave a
// screenshot (build/…/html-report.png).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/request_html.h"
#include "requests/request_analysis.h"
#include "support/browser.h"
#include "support/kernel_scenario.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;

spans::Span Root(uint64_t trace, int32_t tid, int64_t start, int64_t end) {
  spans::Span s;
  s.trace = {0, trace};
  s.span_id = trace;
  s.tid = tid;
  s.start_ns = start;
  s.end_ns = end;
  static spans::SpanNames names;  // the test spans' names, for the whole program
  s.service = names.Intern("svc");
  s.operation = names.Intern("GET </script>");  // must not break the page
  return s;
}

TEST(HtmlReportTest, RendersTimelineArrowsAndPieInChromium) {
  SKIP_UNLESS_BROWSER();
  // Three requests: A waits for B's lock, B for C's (seed 000 Figure 6).
  testing::KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 3:c
    5 cpu0 switch 1 S -> 2:b
    10 cpu0 switch 2 S -> 0
    400 cpu1 waking 2
    400 cpu1 switch 3 S -> 0
    400 cpu0 switch 0 -> 2
    700 cpu0 waking 1
    700 cpu0 switch 2 S -> 1
    end 1000
  )");
  spans::SpanSet set;
  for (auto s : {Root(0xA, 1, 0, 900), Root(0xB, 2, 0, 700), Root(0xC, 3, 0, 400)}) {
    set.by_id[s.span_id] = set.spans.size();
    set.spans.push_back(s);
  }
  auto a = requests::AnalyzeRequests(k.graph(), set);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  size_t pieces = 0;
  for (size_t i = 0; i < a->requests.size(); ++i) pieces += a->Detail(i).path.size();

  testing::TempDir tmp;
  const std::string html = tmp.path() + "/report.html";
  const std::string png = std::string(CAUSEWAY_BINARY_DIR) + "/html-report.png";
  std::ofstream(html) << report::RequestsHtml(k.graph(), set, *a, "scenario <three-way>");
  auto r = testing::RunCommand("node " + std::string(CAUSEWAY_SOURCE_DIR) +
                               "/tests/browser/check_report.js " + html + " " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out.substr(r.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["title"], "Causeway: scenario <three-way>");
  EXPECT_EQ(j["pieces"].get<size_t>(), pieces);
  EXPECT_EQ(j["labels"], 3);
  EXPECT_GE(j["arrows"].get<int>(), 2);  // from B and from C to A
  EXPECT_GE(j["slices"].get<int>(), 2);  // the slowest (A): running and blocked by request
  // The slowest (A) is selected first; its id and operation are shown as text, escaped.
  EXPECT_NE(j["info"].get<std::string>().find("0000000000000000000000000000000a"),
            std::string::npos)
      << j.dump();
  EXPECT_NE(j["info"].get<std::string>().find("svc GET </script>"), std::string::npos) << j.dump();
  EXPECT_NE(j["selected_after_click"], j["selected"]);
  EXPECT_GE(j["slices_after_click"].get<int>(), 1);
  EXPECT_NE(j["info"].get<std::string>().find("blocked by request"), std::string::npos);
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 5000u);
}

}  // namespace
}  // namespace causeway
