// The browser tests' prerequisites: Debian's Chromium, node, and Playwright installed in
// tests/browser (scripts/setup.sh installs all three). Without them a browser test skips
// with the reason, except under CI, where it fails: CI must run them.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::testing {

// Why the browser tests cannot run here, or "" when they can.
inline std::string WhyNoBrowser() {
  const std::string dir = std::string(CAUSEWAY_SOURCE_DIR) + "/tests/browser";
  if (!std::filesystem::exists("/usr/bin/chromium")) return "Debian's chromium is not installed";
  if (!HaveProgram("node")) return "node is not installed";
  if (!std::filesystem::exists(dir + "/node_modules/playwright-core"))
    return "playwright-core is not installed (npm ci --prefix tests/browser)";
  return "";
}

inline bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace causeway::testing

#define SKIP_UNLESS_BROWSER()                                               \
  do {                                                                      \
    const std::string why_no_browser = ::causeway::testing::WhyNoBrowser(); \
    if (!why_no_browser.empty()) {                                          \
      if (::causeway::testing::UnderCi())                                   \
        FAIL() << "CI must run the browser tests: " << why_no_browser       \
               << " (scripts/setup.sh installs them)";                      \
      GTEST_SKIP() << "Skipped: " << why_no_browser;                        \
    }                                                                       \
  } while (false)
