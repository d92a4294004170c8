// Drives Causeway's web UI (`causeway serve`, web/) in Debian's Chromium, headless, and
// reports as one JSON line what it saw: the slowest request picked from the list, the pieces
// and arrows the timeline drew after a zoom beside the API's answer for the same window,
// the URL's view and what a reload of it restores, console errors, requests that left the
// server. Usage: node check_ui.js BASE_URL SCREENSHOT.png [CHROMIUM]
"use strict";
const { chromium } = require("playwright-core");

const idle = (page) => page.waitForFunction(
    () => window.causeway && window.causeway.idle && window.causeway.drawn.window, null, { timeout: 15000 });

// The server analyses its recording before it answers: wait for its list (at most 60 s).
async function waitForServer(base) {
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      const r = await fetch(base + "/api/requests");
      if (r.ok) return;
    } catch (e) { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error("no answer from " + base + "/api/requests");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

(async () => {
  const [base, screenshot, executable] = process.argv.slice(2);
  await waitForServer(base);
  const browser = await chromium.launch({
    executablePath: executable || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],  // root in CI
  });
  const errors = [];
  const out = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    // Nothing may be fetched from anywhere but the server.
    await page.route("**/*", (route) =>
      route.request().url().startsWith(base) ? route.continue()
                                             : (errors.push("network: " + route.request().url()), route.abort()));
    await page.goto(base + "/");
    await idle(page);
    const api = (path) => page.evaluate((p) => fetch(p).then((r) => r.json()), path);

    // The list is slowest first; pick its first row.
    const list = await api("/api/requests");
    out.slowest = list.requests[0].id;
    out.listed = await page.$$eval("#requests tbody tr", (trs) => trs.map((t) => t.dataset.id));
    await page.click("#requests tbody tr:first-child");
    await page.waitForFunction((id) => location.hash.includes("request=" + id), out.slowest);
    await idle(page);
    out.title = await page.textContent("#title");
    out.slices = await page.$$eval("#pie path.slice", (s) => s.map((x) => x.dataset.cause));
    out.levels = await page.textContent("#levels");
    const before = await page.evaluate(() => window.causeway.drawn.window);

    // Zoom in with the wheel at the middle of the plot, twice.
    const box = await (await page.$("#timeline-canvas")).boundingBox();
    await page.mouse.move(box.x + 240 + (box.width - 252) / 2, box.y + 60);
    await page.mouse.wheel(0, -400);
    await page.mouse.wheel(0, -400);
    await page.waitForFunction((b) => window.causeway.drawn.window.end - window.causeway.drawn.window.begin < b.end - b.begin, before);
    await idle(page);
    const zoomed = await page.evaluate(() => window.causeway.drawn);
    out.before = before;
    out.window = zoomed.window;
    out.drawn = { pieces: zoomed.pieces, arrows: zoomed.arrows, lanes: zoomed.lanes };
    const w = zoomed.window;
    const answer = await api(`/api/requests/${out.slowest}?begin=${w.begin}&end=${w.end}&pixels=${w.pixels}`);
    out.api = {
      window: answer.window,
      pieces: answer.pieces.map((p) => ({ row: p.row, start: p.start, end: p.end, cause: p.cause })),
      arrows: answer.arrows.map((a) => ({ kind: a.kind, from: a.from, to: a.to })),
    };
    out.hash = await page.evaluate(() => location.hash);

    // Pan by dragging: the window moves, its width stays.
    await page.mouse.move(box.x + 700, box.y + 60);
    await page.mouse.down();
    await page.mouse.move(box.x + 600, box.y + 60, { steps: 5 });
    await page.mouse.up();
    await idle(page);
    out.panned = await page.evaluate(() => window.causeway.drawn.window);
    out.panned_hash = await page.evaluate(() => location.hash);

    // The URL holds the view: a reload shows the same window and pieces.
    await page.reload();
    await idle(page);
    const reloaded = await page.evaluate(() => window.causeway.drawn);
    out.reloaded = { window: reloaded.window, pieces: reloaded.pieces.length, title: await page.textContent("#title") };
    await page.screenshot({ path: screenshot });
    out.errors = errors.concat(await page.evaluate(() => window.causeway.errors));
    console.log(JSON.stringify(out));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
