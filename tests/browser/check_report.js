// Opens Causeway's HTML report in Debian's Chromium (headless, no network) and reports
// what it rendered, as one JSON line: the critical-path pieces and arrows of the timeline,
// the pie's slices before and after selecting another request, console errors.
// Usage: node check_report.js REPORT.html SCREENSHOT.png [CHROMIUM]
"use strict";
const { chromium } = require("playwright-core");

(async () => {
  const [report, screenshot, executable] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: executable || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],  // root in CI
  });
  const errors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    // Any request leaving the file is an error: the report must be self-contained.
    await page.route("**/*", (route) =>
      route.request().url().startsWith("file://") ? route.continue()
                                                   : (errors.push("network: " + route.request().url()), route.abort()));
    await page.goto("file://" + report);
    await page.waitForSelector("#timeline-svg rect.piece");
    const result = await page.evaluate(() => ({
      title: document.title,
      pieces: document.querySelectorAll("#timeline-svg rect.piece").length,
      arrows: document.querySelectorAll("#timeline-svg line.arrow").length,
      labels: document.querySelectorAll("#timeline-svg text.label").length,
      slices: document.querySelectorAll("#pie path.slice").length,
      selected: (document.querySelector("#timeline-svg text.sel") || {}).textContent || "",
      info: document.getElementById("info").textContent,
    }));
    // Select another request: the pie and the table follow.
    const labels = await page.$$("#timeline-svg text.label");
    if (labels.length > 1) {
      await labels[labels.length - 1].click();
      result.selected_after_click = await page.evaluate(
          () => (document.querySelector("#timeline-svg text.sel") || {}).textContent || "");
      result.slices_after_click = await page.evaluate(() => document.querySelectorAll("#pie path.slice").length);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    result.errors = errors;
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
